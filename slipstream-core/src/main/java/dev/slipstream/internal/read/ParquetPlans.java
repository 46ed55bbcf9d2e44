/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.read;

import dev.slipstream.S3Location;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The Parquet footers a client has parsed, by object version: the plan every later stream of that version
 * reads by from its first read (a second open of the file, an open by path with no read policy, a task
 * given another row group of it), without fetching or parsing the footer again. A version is the bucket,
 * key, length and ETag; with no ETag known there is no version to name, and nothing is kept or found.
 *
 * <p>A plan is metadata, not bytes: using it serves nothing before S3 has answered a stream's open, it
 * only decides what that stream fetches. Bounded by {@link #MAX_BYTES} of heap, least recently used
 * dropped first. Thread-safe; one per client.
 */
public final class ParquetPlans {
  /**
   * The most heap the plans of one client take: at about 56 bytes a column chunk, the footers of 10,000
   * files of 30 chunks each, several times the files one executor reads in a stage.
   */
  static final long MAX_BYTES = 16L << 20;

  private record Version(String bucket, String key, long length, String etag) {}

  private final long maxBytes;
  private final PredictedColumns columns = new PredictedColumns();
  private final LinkedHashMap<Version, ParquetFooter> plans = new LinkedHashMap<>(64, 0.75f, true);
  private long bytes;

  public ParquetPlans() {
    this(MAX_BYTES);
  }

  ParquetPlans(long maxBytes) {
    this.maxBytes = maxBytes;
  }

  /** The plan kept for this version, or null. */
  synchronized ParquetFooter get(S3Location location, long length, String etag) {
    return etag == null ? null : plans.get(new Version(location.bucket(), location.key(), length, etag));
  }

  /** Keeps {@code plan} for this version (nothing without an ETag), dropping the least recently used beyond the bound. */
  synchronized void put(S3Location location, long length, String etag, ParquetFooter plan) {
    if (etag == null || plan.heapBytes() > maxBytes) {
      return;
    }
    ParquetFooter old = plans.put(new Version(location.bucket(), location.key(), length, etag), plan);
    bytes += plan.heapBytes() - (old == null ? 0 : old.heapBytes());
    for (Iterator<Map.Entry<Version, ParquetFooter>> it = plans.entrySet().iterator(); bytes > maxBytes && it.hasNext(); ) {
      bytes -= it.next().getValue().heapBytes();
      it.remove();
    }
  }

  /** The columns this client's readers read, by schema: what a stream fetches ahead of its reader. */
  PredictedColumns columns() {
    return columns;
  }

  /** Plans kept (for tests and diagnostics). */
  synchronized int size() {
    return plans.size();
  }
}
