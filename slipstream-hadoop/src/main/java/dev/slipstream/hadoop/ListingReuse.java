/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.hadoop;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.Scheduler;
import com.github.benmanes.caffeine.cache.Ticker;
import dev.slipstream.ListEntry;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The directories a glob's flat listing saw, kept for a short while so that the listings which follow
 * a glob are answered from it: FileInputFormat globs its input paths, then lists every directory
 * matched with {@code listLocatedStatus} (and, recursive, every directory under those), one S3A
 * listing each. Here those are answered from the glob's own listing, a snapshot taken moments before.
 *
 * <p>Bounded three ways, so that what is kept never goes stale for long nor grows: an entry answers
 * once ({@link #take} removes it), lives at most {@code list.reuse.ttl} (then the JVM-wide scheduler
 * thread drops it, so the memory of a glob whose directories nobody lists comes back even when the
 * FileSystem is idle), and the whole holds at most {@code maxEntries} statuses, about 200 bytes each
 * (a glob that would add more keeps only what fits; expired directories are dropped first). Mutations through the FileSystem ({@link #clear}) drop everything, and a listing
 * that started before one is not kept: it may show the state before it ({@link #generation}). A directory is
 * kept only if S3A would list it in one page (its entries, marker included, within
 * {@code min(1000, fs.s3a.paging.maximum)}), so that the order served is S3A's: files, then
 * subdirectories; and only if it has entries (an empty directory is S3A's to judge).
 *
 * <p>Thread-safe.
 */
final class ListingReuse {
  private final long ttlNanos;
  private final int pageKeys;
  private final int maxEntries;
  /** Weighed in statuses; never over {@code maxEntries}, as {@link #keep} adds only what fits. */
  private final Cache<String, Held> held;
  /** Changes so far: each {@link #clear} counts one. */
  private long generation;

  /**
   * @param pageKeys most keys S3A lists in one page
   * @param maxEntries most statuses held in all (the FileSystem: as many as one glob may list)
   */
  ListingReuse(long ttlNanos, int pageKeys, int maxEntries) {
    this(ttlNanos, pageKeys, maxEntries, Ticker.systemTicker());
  }

  /** Most keys S3A lists in one page: {@code min(1000, fs.s3a.paging.maximum)}. */
  int pageKeys() {
    return pageKeys;
  }

  ListingReuse(long ttlNanos, int pageKeys, int maxEntries, Ticker ticker) {
    this.ttlNanos = ttlNanos;
    this.pageKeys = pageKeys;
    this.maxEntries = maxEntries;
    this.held = Caffeine.newBuilder()
        .maximumWeight(maxEntries)
        .weigher((String key, Held h) -> h.size())
        .expireAfterWrite(ttlNanos, TimeUnit.NANOSECONDS)
        .executor(Runnable::run)
        .scheduler(Scheduler.systemScheduler())
        .ticker(ticker)
        .build();
  }

  /**
   * One directory as a listing saw it, as S3A's delimiter listing of it would show it.
   *
   * @param key its key, without the trailing slash
   * @param files the files directly in it, in key order ({@code _$folder$} markers left out)
   * @param dirs its subdirectories' keys (without the trailing slash), in S3's order
   * @param objects the objects directly in it as a delimiter listing counts them: files, its own marker,
   *     S3N markers
   */
  record Directory(String key, List<ListEntry> files, List<String> dirs, int objects) {
    /** Entries of its listing: what S3A's listStatus would return. */
    int entries() {
      return files.size() + dirs.size();
    }

    /** Keys S3A's delimiter listing of it returns: objects and common prefixes. */
    int listedKeys() {
      return objects + dirs.size();
    }
  }

  /** One directory's listing: its files (key order) and subdirectory keys (S3 order). */
  record Held(List<ListEntry> files, List<String> dirs) {
    int size() {
      return files.size() + dirs.size();
    }
  }

  /** To be taken before a listing starts, and handed to {@link #keep} with what it listed. */
  synchronized long generation() {
    return generation;
  }

  /**
   * Keeps the directories {@code dirs}, in this order, while they fit; nothing if the FileSystem changed
   * something since the listing began ({@code listedAt}, its {@link #generation()}).
   */
  synchronized void keep(List<Directory> dirs, long listedAt) {
    if (listedAt != generation) {
      return;
    }
    long entries = entries();
    for (Directory d : dirs) {
      int size = d.entries();
      if (size == 0 || d.listedKeys() > pageKeys || entries + size > maxEntries) {
        continue;
      }
      Held old = held.asMap().put(d.key(), new Held(List.copyOf(d.files()), d.dirs()));
      entries += size - (old == null ? 0 : old.size());
    }
  }

  /** The listing of the directory {@code key} (no trailing slash), once; null if none is held or it expired. */
  Held take(String key) {
    return held.asMap().remove(key);
  }

  /** Drops everything: the FileSystem changed something. */
  synchronized void clear() {
    generation++;
    held.invalidateAll();
  }

  /** Statuses held now, expired directories dropped first. */
  long entries() {
    held.cleanUp();
    return held.policy().eviction().orElseThrow().weightedSize().orElseThrow();
  }
}
