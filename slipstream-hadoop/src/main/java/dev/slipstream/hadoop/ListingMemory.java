/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.hadoop;

import dev.slipstream.ObjectRef;
import dev.slipstream.S3Location;
import dev.slipstream.WriteLog;
import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BiConsumer;
import org.apache.hadoop.fs.EtagSource;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.RemoteIterator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a FileSystem's listings tell its later calls: the order files were listed in, which open-ahead
 * follows once a thread reads them in that order; the length and version each file was listed with,
 * which {@code open(path)} uses instead of a HEAD within {@code list.reuse.ttl}, and the status it was
 * listed with, which {@code getFileStatus(path)} returns instead of a HEAD in the same window; the orders callers
 * declared ({@code readingInOrder}); and the flat listings kept to answer the directory listings that
 * follow (a glob's, see {@link ListingReuse}; a walk over sibling directories', see {@link SiblingWalks}).
 * Every write through the FileSystem comes to {@link #changed}, which forgets what it may have made
 * untrue. Bounded as {@link ListingOrder} (files by count), {@link ListingReuse} (statuses by count, and
 * {@code list.reuse.ttl}) and {@link SiblingWalks} (parents by count) are. Thread-safe.
 */
final class ListingMemory {
  /** The FileSystem's logger: its messages keep the name they always had. */
  private static final Logger LOG = LoggerFactory.getLogger(HadoopConfig.LOGGER);

  private final ListingCallbacks fs;
  private final String bucket;
  private final ListingOrder listed;
  /** Orders the caller declared: followed without further evidence. */
  private final ListingOrder declared;
  /**
   * Files opened ahead at once for a reader that starts at the end: each takes the time its predecessor
   * is decoded, so two cover the next opens; more would hold more memory for a guess.
   */
  static final int FROM_THE_END_AHEAD = 2;

  /** Per thread, the last file opened (its first stream): the evidence that decides which order is followed. */
  private final ThreadLocal<Opened> lastOpened = new ThreadLocal<>();
  /** The orders threads are seen to open listed files in, across listings. */
  private final FollowedOrders orders;
  /** Times a thread opened a file again right after a stream of it that started in its tail. */
  private final java.util.concurrent.atomic.AtomicLong reopensAfterTail = new java.util.concurrent.atomic.AtomicLong();
  /** Reopens after a footer seen before a stream that started in its tail is kept for the next one. */
  static final int REOPENS_SEEN = 2;
  private final int openAheadFiles;
  /** How long a listed version stands in for a HEAD; 0: never. */
  private final long versionTtlNanos;
  /** Kept flat listings, with the glob that lists for walks; all three null when none are kept. */
  private final ListingReuse reuse;
  private final FlatGlob glob;
  private final SiblingWalks walks;
  /** Key ranges a walk's flat listing is cut into, at most. */
  private final int listParallelism;
  /** Tells the core client that S3's answers about a bucket's key prefix no longer stand; it logs the write in {@code writes}. */
  private final BiConsumer<String, String> answersChanged;
  /** The client's log of the writes through the FileSystem, which judges the listings under way. */
  private final WriteLog writes;

  /**
   * @param versionTtlNanos how long a listed file's length and version stand in for a HEAD (0: never),
   *     and how long a walk over sibling directories is remembered
   * @param glob the flat glob, which lists for walks over sibling directories too; null (with
   *     {@code reuse}) when no flat listing is kept
   * @param reuse the flat listings kept, which {@code glob} fills
   * @param writes the client's log of writes ({@code Slipstream.writes()})
   * @param answersChanged the client's {@code changed}, which forgets S3's answers and logs the write in {@code writes}
   */
  ListingMemory(ListingCallbacks fs, int openAheadFiles, long versionTtlNanos, FlatGlob glob, ListingReuse reuse,
      int listParallelism, WriteLog writes, BiConsumer<String, String> answersChanged) {
    this.fs = fs;
    this.bucket = fs.bucket();
    this.writes = writes;
    this.listed = new ListingOrder(ListingOrder.DEFAULT_CAPACITY, versionTtlNanos > 0, this::ref, writes);
    this.declared = new ListingOrder(ListingOrder.DEFAULT_CAPACITY, false, this::ref, writes);
    this.openAheadFiles = openAheadFiles;
    this.versionTtlNanos = versionTtlNanos;
    this.glob = glob;
    this.reuse = reuse;
    this.walks = glob == null ? null : new SiblingWalks(versionTtlNanos, reuse.pageKeys(), FlatGlob.MAX_KEYS);
    this.listParallelism = listParallelism;
    this.answersChanged = answersChanged;
    // A directory as Spark holds it: the parent of a listed file's qualified path, so the same Path.
    this.orders = new FollowedOrders(dir -> fs.keyToPath(dir).hashCode());
  }

  private boolean remembering() {
    return openAheadFiles > 0 || versionTtlNanos > 0;
  }

  /** To be taken before a listing's first request is sent, and handed to {@link #remember} with what it returns. */
  long generation() {
    return writes.generation();
  }

  /**
   * A listing returned whole, whose first request went out at {@code sentAt} (a {@link #generation}): its
   * files remembered in their order, but for those a write through the FileSystem touched since.
   */
  FileStatus[] remember(FileStatus[] statuses, long sentAt) {
    if (statuses != null && remembering()) {
      listed.listed(statuses, sentAt);
    }
    return statuses;
  }

  /** As {@link #remember(FileStatus[], long)}, for each status as the iterator hands it out. */
  <T extends FileStatus> RemoteIterator<T> remember(RemoteIterator<T> it, long sentAt) {
    if (!remembering()) {
      return it;
    }
    ListingOrder.Listing order = listed.newListing(sentAt);
    return new RemoteIterator<T>() {
      @Override
      public boolean hasNext() throws IOException {
        return it.hasNext();
      }

      @Override
      public T next() throws IOException {
        T status = it.next();
        order.listed(status);
        return status;
      }
    };
  }

  /**
   * The file at {@code location} as a listing handed it out within the TTL (and no change through the
   * FileSystem since), if that listing gave its ETag; else null.
   */
  ObjectRef listedRecently(S3Location location) {
    ListingOrder.Listed file = listedWithinTtl(location);
    return file == null ? null : file.ref();
  }

  /**
   * The status a listing handed out within the TTL for the file at {@code path}, the object itself, as
   * {@link #listedRecently} would take that file's length and version from it; else null. Null too for
   * a path of another bucket, and for a status whose path is no longer the one asked for (a caller may
   * have set another: ViewFileSystem sets its own on the statuses it passes on).
   */
  FileStatus statusListedRecently(Path path) {
    Path q = path == null ? null : fs.qualify(path);
    if (q == null || !bucket.equals(q.toUri().getHost())) {
      return null;
    }
    String key = fs.pathToKey(q);
    ListingOrder.Listed file = key.isEmpty() ? null : listedWithinTtl(new S3Location(bucket, key));
    FileStatus status = file == null ? null : file.status();
    return status == null || !q.equals(status.getPath()) ? null : status;
  }

  /**
   * What both an open and a {@code getFileStatus} may take from a listing instead of a HEAD: a file (no
   * directory key) a listing handed out within {@code list.reuse.ttl}, with no write through the
   * FileSystem to it since, whose ETag the listing gave. Never with the TTL at 0, which the FileSystem
   * also sets where listed sizes are not the objects' or its listings are all S3A's (see {@link Listings}).
   */
  private ListingOrder.Listed listedWithinTtl(S3Location location) {
    if (versionTtlNanos <= 0 || location.key().endsWith("/")) {
      return null;
    }
    ListingOrder.Listed file = listed.listedWithin(location, versionTtlNanos);
    return file == null || file.ref().etag() == null ? null : file;
  }

  /**
   * The FileSystem changes {@code paths}: every write comes here, when it starts and again when its
   * effect may be seen (a stream's close, an upload's completion; see {@link ChangesAfterWrites}). Kept
   * listings are dropped, and one under way when this is called is not kept; so are the listed versions
   * that {@code open(path)} would use instead of a HEAD for these paths and everything under them, and
   * the answers S3 gave about them (access.ttl).
   */
  void changed(Path... paths) {
    if (reuse != null) {
      reuse.clear();
    }
    for (Path p : paths) {
      Path q = p == null ? null : fs.qualify(p);
      if (q != null && bucket.equals(q.toUri().getHost())) {
        // S3's answers for them no longer stand; the root's key is "": the whole bucket. First: the client
        // logs the write, so that a listing under way finds it there once this forget is done.
        answersChanged.accept(bucket, fs.pathToKey(q));
        listed.forgetUnder(bucket, fs.pathToKey(q));
      }
    }
  }

  private ListingReuse.Held reused(Path f) {
    return reuse == null || f == null ? null : reuse.take(fs.pathToKey(fs.qualify(f)));
  }

  /**
   * The listing of directory {@code f} from a kept flat listing: a glob's, or one of its parent made
   * now because the calls walk sibling directories ({@link SiblingWalks}); null: S3A lists it.
   */
  ListingReuse.Held heldOrSiblings(Path f) throws IOException {
    ListingReuse.Held held = reused(f);
    if (walks == null || f == null) {
      return held;
    }
    Path q = fs.qualify(f);
    String key = fs.pathToKey(q);
    if (key.isEmpty() || key.endsWith("/") || !bucket.equals(q.toUri().getHost())) {
      return held;
    }
    int slash = key.lastIndexOf('/');
    String parent = slash < 0 ? "" : key.substring(0, slash);
    int budget = walks.asked(parent, key, held != null);
    if (held != null || budget <= 0) {
      return held;
    }
    int ranges = Math.max(1, Math.min(listParallelism, budget / walks.firstBudget()));
    FlatGlob.Siblings siblings = null;
    try {
      siblings = glob.keepSiblings(parent, key, budget, ranges);
    } catch (AccessDeniedException e) {
      // A policy may grant listing the child's prefix and not the parent's (s3:prefix): S3A's listing of
      // the child, as S3A alone would have made, and the rest of the walk S3A's too.
      LOG.debug("flat listing of the parent of {} refused, left to S3A: {}", q, e.getMessage());
    } finally {
      walks.listed(parent, siblings == null ? null : siblings.lastKey());
    }
    return siblings != null && siblings.kept() ? reused(f) : null;
  }

  /**
   * The caller will read {@code files} in this order (its reading order for open-ahead). Returns the
   * first of them to fetch ahead now: up to {@code openahead.files}.
   */
  List<ObjectRef> declare(List<? extends FileStatus> files) {
    declared.listed(files.toArray(new FileStatus[0]), declared.generation());
    List<ObjectRef> first = new ArrayList<>();
    for (FileStatus f : files) {
      ObjectRef ref = f.isFile() ? ref(f) : null;
      if (ref != null && first.size() < openAheadFiles) {
        first.add(ref);
      }
    }
    return first;
  }

  /** The files of {@code statuses} that are of this bucket, as the core names them. */
  List<ObjectRef> refs(List<? extends FileStatus> statuses) {
    List<ObjectRef> refs = new ArrayList<>();
    for (FileStatus f : statuses) {
      ObjectRef ref = f.isFile() ? ref(f) : null;
      if (ref != null) {
        refs.add(ref);
      }
    }
    return refs;
  }

  /** Files to open ahead, and whether their reader starts at the end (a footer) rather than the first byte. */
  record Next(List<ObjectRef> files, boolean fromTheEnd) {
    static final Next NONE = new Next(List.of(), false);
  }

  /**
   * The files to open ahead now that {@code location} was opened on this thread. For a reader from the
   * first byte: the next ones of an order the caller declared; or the next ones of a listing, if this
   * thread's previous file was the one listed just before. For a reader whose previous file's first read
   * was in its tail (a footer: Parquet, ORC): the next {@link #FROM_THE_END_AHEAD} in the order this thread
   * follows across the listings of the same tree ({@link FollowedOrders}: by key, or largest first as
   * Spark's tasks take them). The same file opened again (a footer read, then its data) names none, and
   * its first stream stays the evidence.
   */
  Next openAheadAfter(S3Location location, SlipstreamFSInputStream opened) {
    int n = openAheadFiles;
    if (n <= 0) {
      return Next.NONE;
    }
    Opened previous = lastOpened.get();
    if (previous != null && previous.location().equals(location)) {
      if (previous.stream().startedInTail()) {
        reopensAfterTail.incrementAndGet();
      }
      return Next.NONE;
    }
    lastOpened.set(new Opened(location, opened));
    List<ObjectRef> next = declared.after(location, n);
    if (!next.isEmpty()) {
      return new Next(next, false);
    }
    if (previous == null) {
      return Next.NONE;
    }
    if (previous.stream().startedInTail()) {
      return new Next(orders.following(previous.location(), location, Math.min(n, FROM_THE_END_AHEAD),
          listed::under), true);
    }
    if (!previous.stream().startedAtFirstByte()) {
      return Next.NONE;
    }
    List<ObjectRef> following = listed.after(previous.location(), 1);
    if (following.isEmpty() || !following.get(0).location().equals(location)) {
      return Next.NONE;
    }
    return new Next(listed.after(location, n), false);
  }

  /**
   * Whether this FileSystem's readers open a file again after reading its footer (Spark reads a Parquet
   * file's footer through one stream and its data through another): seen at least {@link #REOPENS_SEEN}
   * times. A stream that started in its tail is then kept at close for that open.
   */
  boolean reopensAfterTail() {
    return openAheadFiles > 0 && reopensAfterTail.get() >= REOPENS_SEEN;
  }

  /**
   * Remembers a listing returned whole, as every listing call of the FileSystem does, so that opening
   * one of its files fetches the next ones ahead. Tests call it to stand for a listing.
   */
  void listed(FileStatus[] statuses) {
    listed.listed(statuses, listed.generation());
  }

  /**
   * A file status of this bucket as the core names it, with its ETag when the status carries one; null
   * for what cannot be opened (the root, directory markers, other buckets).
   */
  private ObjectRef ref(FileStatus status) {
    Path path = fs.qualify(status.getPath());
    if (!bucket.equals(path.toUri().getHost())) {
      return null;
    }
    String key = fs.pathToKey(path);
    if (key.isEmpty() || key.endsWith("/")) {
      return null;
    }
    String etag = status instanceof EtagSource e ? e.getEtag() : null;
    return new ObjectRef(new S3Location(bucket, key), status.getLen(),
        etag == null || etag.isBlank() ? null : etag);
  }

  /** A file opened, and its stream (which tells where its first read started). */
  private record Opened(S3Location location, SlipstreamFSInputStream stream) {}
}
