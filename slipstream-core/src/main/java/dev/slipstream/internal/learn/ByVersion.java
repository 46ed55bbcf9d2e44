/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.learn;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.Scheduler;
import com.github.benmanes.caffeine.cache.Ticker;
import dev.slipstream.S3Location;
import java.time.Duration;
import java.util.function.ToLongFunction;

/**
 * What a client learnt of a file's layout, kept by object version: the bucket, key, length and ETag; with
 * no ETag known there is no version to name, and nothing is kept or found. Bounded in bytes and time, so
 * that a client reading ever-new files keeps a flat heap and gives the memory back once it stops: the
 * entries weigh at most {@code maxBytes} together (the least useful dropped first), each weighed as {@link
 * #ENTRY_BYTES}, its key's characters and what it says it takes of the heap, again whenever it is put back
 * grown; an entry unused for {@code idle} goes (by the JVM-wide scheduler thread, even when the client is
 * idle). The one shape the Parquet footers and the ORC layouts are kept in. Thread-safe.
 */
public final class ByVersion<T> {
  /**
   * Heap an entry takes besides what it holds and its key's characters: the cache's node (64) and
   * hash-table entry (40), the version (32), its key's String (40) and its ETag's String (40 + 34 for a
   * quoted MD5).
   */
  public static final int ENTRY_BYTES = 64 + 40 + 32 + 40 + 74;
  /**
   * The most heap one client's entries of one kind take: at about 56 bytes a column chunk, the Parquet
   * footers of 10,000 files of 30 chunks each, several times the files one executor reads in a stage.
   */
  public static final long MAX_BYTES = 16L << 20;
  /**
   * How long an unused entry is kept: it pays when a file is opened again (the next task of a stage, the
   * next query of a notebook's session over the same table), which comes within minutes or rarely at all.
   */
  public static final Duration IDLE = Duration.ofMinutes(10);

  private record Version(String bucket, String key, long length, String etag) {}

  private final Cache<Version, T> entries;

  /** @param heapBytes what an entry says it takes of the heap */
  public ByVersion(long maxBytes, Duration idle, Ticker ticker, ToLongFunction<T> heapBytes) {
    this.entries = Caffeine.newBuilder()
        .maximumWeight(maxBytes)
        .weigher((Version v, T t) -> (int) Math.min(Integer.MAX_VALUE,
            ENTRY_BYTES + v.key().length() + heapBytes.applyAsLong(t)))
        .expireAfterAccess(idle)
        .executor(Runnable::run)
        .scheduler(Scheduler.systemScheduler())
        .ticker(ticker)
        .build();
  }

  /** The entry kept for this version, or null. */
  public T get(S3Location location, long length, String etag) {
    return etag == null ? null : entries.getIfPresent(new Version(location.bucket(), location.key(), length, etag));
  }

  /** Keeps {@code t} for this version (nothing without an ETag), dropping the least useful beyond the bound. */
  public void put(S3Location location, long length, String etag, T t) {
    if (etag != null) {
      entries.put(new Version(location.bucket(), location.key(), length, etag), t);
    }
  }

  /** Entries kept, expired ones dropped first (for tests and diagnostics). */
  public long size() {
    entries.cleanUp();
    return entries.estimatedSize();
  }

  /** The estimated heap the entries take, expired ones dropped first (for tests and diagnostics). */
  public long weightedBytes() {
    entries.cleanUp();
    return entries.policy().eviction().orElseThrow().weightedSize().orElseThrow();
  }
}
