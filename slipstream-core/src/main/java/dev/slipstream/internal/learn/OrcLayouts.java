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

/**
 * The ORC layouts a client has learnt, by object version, as {@link ParquetFooters} keeps Parquet footers:
 * the plan every later stream of that version reads by from its first read (the record reader Hive and
 * Spark open after the split computation or the schema read its tail), without the tail being read
 * again. A plan grows as readers read the stripes' footers ({@link OrcLayout#learn}), to at most {@link
 * dev.slipstream.internal.format.OrcTail#MAX_PLAN_BYTES}, a quarter of the bound of all; it is weighed again
 * then. Same version, bounds and expiry as {@link ParquetFooters}, which owns it. Thread-safe; one per client.
 */
public final class OrcLayouts {
  /**
   * Heap an entry takes besides its plan ({@link OrcLayout#heapBytes}) and its key's characters, as a
   * Parquet plan's: the cache's node (64) and hash-table entry (40), the version (32), its key's String
   * (40) and its ETag's String (40 + 34 for a quoted MD5).
   */
  public static final int ENTRY_BYTES = 64 + 40 + 32 + 40 + 74;

  private record Version(String bucket, String key, long length, String etag) {}

  private final Cache<Version, OrcLayout> plans;

  /**
   * @param maxBytes the most heap the plans take together
   * @param idle how long an unused plan is kept
   */
  public OrcLayouts(long maxBytes, Duration idle, Ticker ticker) {
    this.plans = Caffeine.newBuilder()
        .maximumWeight(maxBytes)
        .weigher(OrcLayouts::weight)
        .expireAfterAccess(idle)
        .executor(Runnable::run)
        .scheduler(Scheduler.systemScheduler())
        .ticker(ticker)
        .build();
  }

  private static int weight(Version v, OrcLayout plan) {
    return (int) Math.min(Integer.MAX_VALUE, ENTRY_BYTES + v.key().length() + plan.heapBytes());
  }

  /** The plan kept for this version, or null. */
  public OrcLayout get(S3Location location, long length, String etag) {
    return etag == null ? null : plans.getIfPresent(new Version(location.bucket(), location.key(), length, etag));
  }

  /**
   * Keeps {@code plan} for this version (nothing without an ETag), or weighs it again once it has grown;
   * the least useful dropped beyond the bound.
   */
  public void put(S3Location location, long length, String etag, OrcLayout plan) {
    if (etag != null) {
      plans.put(new Version(location.bucket(), location.key(), length, etag), plan);
    }
  }

  /** Plans kept, expired ones dropped first (for tests and diagnostics). */
  public long size() {
    plans.cleanUp();
    return plans.estimatedSize();
  }

  /** The estimated heap the plans take, expired ones dropped first (for tests and diagnostics). */
  public long weightedBytes() {
    plans.cleanUp();
    return plans.policy().eviction().orElseThrow().weightedSize().orElseThrow();
  }
}
