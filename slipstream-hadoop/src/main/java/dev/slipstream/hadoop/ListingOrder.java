/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.hadoop;

import dev.slipstream.ObjectRef;
import dev.slipstream.S3Location;
import dev.slipstream.WriteLog;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;
import org.apache.hadoop.fs.FileStatus;

/**
 * The files this FileSystem recently handed out in listings, in listing order, so that opening one of
 * them can name the next ones to open-ahead: a task that reads the files of a listing one after another
 * then finds each next file's first block already fetched.
 *
 * <p>Each listing call keeps its own order ({@link #newListing()}), so listings made at the same time by
 * several threads do not interleave. A path listed again takes its place in the newer listing. Memory is
 * bounded: at most {@code capacity} files are remembered in all, about 300 bytes each with a key of 40
 * characters (its reference, location, ETag, place and map entry: 3 MB at the default); beyond that the
 * oldest listings are forgotten (or, for a single listing larger than that, its first files), and at most
 * {@link #MAX_LISTINGS} listings are kept. It is bounded by count, not time: what a FileSystem listed last
 * stays until newer listings push it out, a few MB at most per FileSystem. A wrong guess costs one
 * bounded, counted fetch; never a wrong byte (the core serves a prepared block only for the version
 * the stream opens).
 *
 * <p>An order that keeps statuses ({@code keepStatuses}: the FileSystem's listings, not the orders callers
 * declare) also holds each file's {@link FileStatus} as the listing handed it out, the object itself, so
 * that {@code getFileStatus} can return it instead of a HEAD. That costs what the status holds beyond the
 * reference, which shares its ETag: measured on Hadoop 3.5 with a key of 40 characters, about 570 bytes
 * for an {@code S3AFileStatus} and 710 for a located one (its {@code Path} and {@code URI}, whose strings
 * repeat the path, the status's fields and permission, and S3A's one block location), 2 bytes more for
 * each further character of the key: about 7 MB more at the default capacity, still bounded by the same
 * count.
 *
 * <p>A file a write through the FileSystem touched after its listing's first request went out is not
 * remembered from that listing: the listing may name the version the write replaced, and an open that
 * trusted it would pay a 412 and a reopen. That is judged per key by the client's {@link WriteLog}, as
 * the client judges S3's answers to its GETs; a listing gives its {@link #generation} from before its
 * first request. Thread-safe.
 */
final class ListingOrder {
  /** Files remembered when the FileSystem does not say otherwise: a few MiB at most. */
  static final int DEFAULT_CAPACITY = 10_000;
  /** Listings remembered, empty ones included; the oldest are forgotten beyond this. */
  static final int MAX_LISTINGS = 1_000;

  private final int capacity;
  /** Whether each file's status is kept with its reference, for {@link #listedWithin}'s callers. */
  private final boolean keepStatuses;
  private final Function<FileStatus, ObjectRef> toRef;
  /** The writes through the FileSystem, as its client logs them: a listing older than one is not kept for its keys. */
  private final WriteLog writes;
  /** Listings, oldest first. Guarded by {@code this}. */
  private final ArrayDeque<Listing> listings = new ArrayDeque<>();
  /**
   * Where each remembered file stands, per bucket, keys sorted: a forget looks at the files under its path
   * (and at most two more), not at every file remembered, as S3A's bulk deletes tell of each path. Guarded
   * by {@code this}.
   */
  private final Map<String, TreeMap<String, Position>> where = new HashMap<>();
  /** Files looked at by forgets (for tests: a forget's cost is what it touches). Guarded by {@code this}. */
  private long examined;
  private int total;

  /**
   * @param keepStatuses whether each file's status, as its listing handed it out, is kept with it
   * @param toRef a listed status as an object reference, or null for what cannot be opened ahead
   *     (directories, other buckets)
   * @param writes the writes through the FileSystem, logged before {@link #forgetUnder} hears of them
   */
  ListingOrder(int capacity, boolean keepStatuses, Function<FileStatus, ObjectRef> toRef, WriteLog writes) {
    if (capacity < 1) {
      throw new IllegalArgumentException("capacity must be positive: " + capacity);
    }
    this.capacity = capacity;
    this.keepStatuses = keepStatuses;
    this.toRef = toRef;
    this.writes = writes;
  }

  /** To be taken before a listing's first request is sent, and handed to {@link #newListing} or {@link #listed}. */
  long generation() {
    return writes.generation();
  }

  /**
   * A new listing, whose first request went out at {@code sentAt} (a {@link #generation}): call
   * {@link Listing#listed} for every status it hands out, in order (e.g. from the {@code RemoteIterator} of
   * {@code listFiles}, as each one is returned).
   */
  Listing newListing(long sentAt) {
    Listing l = new Listing(sentAt);
    synchronized (this) {
      listings.addLast(l);
      while (listings.size() > MAX_LISTINGS) {
        forget(listings.pollFirst());
      }
    }
    return l;
  }

  /** A whole listing at once, e.g. the result of {@code listStatus}, whose first request went out at {@code sentAt}. */
  void listed(FileStatus[] statuses, long sentAt) {
    Listing l = newListing(sentAt);
    for (FileStatus s : statuses) {
      l.listed(s);
    }
  }

  /** Up to {@code k} files listed right after {@code location} in its latest listing; empty if unknown. */
  synchronized List<ObjectRef> after(S3Location location, int k) {
    Position p = positionOf(location);
    if (p == null || k <= 0) {
      return List.of();
    }
    List<Listed> files = p.listing.files;
    int from = p.index - p.listing.trimmed + 1;
    if (from < 0) {
      return List.of();
    }
    List<ObjectRef> refs = new ArrayList<>();
    for (Listed f : files.subList(Math.min(from, files.size()), Math.min(files.size(), from + k))) {
      refs.add(f.ref());
    }
    return refs;
  }

  /** The files remembered under directory {@code dir} of {@code bucket} ({@code ""}: all of it), in key order. */
  synchronized List<ObjectRef> under(String bucket, String dir) {
    TreeMap<String, Position> inBucket = where.get(bucket);
    if (inBucket == null) {
      return List.of();
    }
    List<ObjectRef> refs = new ArrayList<>();
    for (Map.Entry<String, Position> e : inBucket.tailMap(dir, true).entrySet()) {
      if (!e.getKey().startsWith(dir)) {
        break;
      }
      Position p = e.getValue();
      int i = p.index - p.listing.trimmed;
      if (i >= 0 && i < p.listing.files.size()) {
        refs.add(p.listing.files.get(i).ref());
      }
    }
    return refs;
  }

  /**
   * The file at {@code location} as a listing of the last {@code maxAgeNanos} handed it out (its length
   * and ETag then, and its status if this order keeps them); null if none did.
   */
  synchronized Listed listedWithin(S3Location location, long maxAgeNanos) {
    Position p = positionOf(location);
    if (p == null || System.nanoTime() - p.listing.startedNanos > maxAgeNanos) {
      return null;
    }
    int i = p.index - p.listing.trimmed;
    return i < 0 || i >= p.listing.files.size() ? null : p.listing.files.get(i);
  }

  /**
   * Forgets where the file at {@code key} of {@code bucket}, and every file under it as a directory
   * (the whole bucket for the empty key), stands: the FileSystem wrote, deleted or renamed it, so no
   * listing of before says what it is now. The listings keep their order (open-ahead of such a file
   * costs at most a wasted fetch, never a wrong byte).
   */
  synchronized void forgetUnder(String bucket, String key) {
    TreeMap<String, Position> inBucket = where.get(bucket);
    if (inBucket == null) {
      return;
    }
    if (key.isEmpty()) {
      examined += inBucket.size();
      where.remove(bucket);
      return;
    }
    examined++;
    inBucket.remove(key);
    // The keys under it as a directory are the ones from "key/" on, up to the first that does not start so.
    String dir = key.endsWith("/") ? key : key + "/";
    for (Iterator<String> under = inBucket.tailMap(dir, true).keySet().iterator(); under.hasNext(); ) {
      examined++;
      if (!under.next().startsWith(dir)) {
        break;
      }
      under.remove();
    }
    if (inBucket.isEmpty()) {
      where.remove(bucket);
    }
  }

  /** Files looked at by forgets so far: each looks at what it forgets and at most two more. */
  synchronized long examined() {
    return examined;
  }

  /** Files remembered now. */
  synchronized int size() {
    return total;
  }

  private Position positionOf(S3Location location) {
    TreeMap<String, Position> inBucket = where.get(location.bucket());
    return inBucket == null ? null : inBucket.get(location.key());
  }

  private synchronized void add(Listing l, Listed file) {
    ObjectRef ref = file.ref();
    if (!l.live) {
      return; // forgotten already: nothing more to remember for it
    }
    if (writes.writtenSince(ref.location(), l.sentAt)) {
      // A write since the listing's request: it may show the version replaced. Checked under this lock,
      // and the write is logged before its forgetUnder takes it: that forget either finds this file or
      // came first, and then the log says so here.
      return;
    }
    l.files.add(file);
    where.computeIfAbsent(ref.location().bucket(), b -> new TreeMap<>())
        .put(ref.location().key(), new Position(l, l.trimmed + l.files.size() - 1));
    total++;
    while (total > capacity) {
      if (listings.peekFirst() == l) {
        trimFront(l, Math.max(1, l.files.size() / 2)); // the oldest left is this one: forget its first half
      } else {
        forget(listings.pollFirst());
      }
    }
  }

  private void forget(Listing l) {
    l.live = false;
    trimFront(l, l.files.size());
  }

  private void trimFront(Listing l, int n) {
    for (int i = 0; i < n; i++) {
      ObjectRef r = l.files.get(i).ref();
      TreeMap<String, Position> inBucket = where.get(r.location().bucket());
      Position p = inBucket == null ? null : inBucket.get(r.location().key());
      if (p != null && p.listing == l && p.index == l.trimmed + i) {
        inBucket.remove(r.location().key());
        if (inBucket.isEmpty()) {
          where.remove(r.location().bucket());
        }
      }
    }
    l.files.subList(0, n).clear();
    l.trimmed += n;
    total -= n;
  }

  /** One listing call's files, in the order they were handed out. */
  final class Listing {
    private final List<Listed> files = new ArrayList<>();
    /** When the listing call began: what it hands out is at least this fresh. */
    private final long startedNanos = System.nanoTime();
    /** The {@link #generation} before its first request: a file a write since touched is not kept. */
    private final long sentAt;
    /** Files dropped from the front to keep within capacity. */
    private int trimmed;
    private boolean live = true;

    private Listing(long sentAt) {
      this.sentAt = sentAt;
    }

    /** The listing handed out {@code status}. Directories and empty files are not remembered. */
    void listed(FileStatus status) {
      if (status == null || !status.isFile() || status.getLen() == 0) {
        return;
      }
      ObjectRef ref = toRef.apply(status);
      if (ref != null) {
        add(this, new Listed(ref, keepStatuses ? status : null));
      }
    }
  }

  /**
   * A file a listing handed out: its reference, and its status as handed out (the object itself) where
   * the order keeps statuses, else null.
   */
  record Listed(ObjectRef ref, FileStatus status) {}

  private record Position(Listing listing, int index) {}
}
