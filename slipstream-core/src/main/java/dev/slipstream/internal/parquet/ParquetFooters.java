/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.parquet;

import com.github.benmanes.caffeine.cache.Ticker;
import dev.slipstream.S3Location;
import dev.slipstream.internal.learn.ByVersion;
import dev.slipstream.internal.learn.PredictedColumns;
import java.time.Duration;

/**
 * The Parquet footers a client has parsed, by object version: the layout every later stream of that version
 * reads by from its first read (a second open of the file, an open by path with no read policy, a task
 * given another row group of it), without fetching or parsing the footer again. A version is the bucket,
 * key, length and ETag ({@link ByVersion}); with no ETag known there is no version to name, and nothing is
 * kept or found.
 *
 * <p>A footer is metadata, not bytes: using it serves nothing before S3 has answered a stream's open, it
 * only decides what that stream fetches. Bounded in bytes and time, so that a client reading ever-new
 * files keeps a flat heap and gives the memory back once it stops: the footers weigh at most {@link
 * #MAX_BYTES} together ({@link #weight}), the least useful dropped first, and a footer unused for {@link
 * #IDLE} goes (by the JVM-wide scheduler thread, even when the client is idle). Thread-safe; one per client.
 */
public final class ParquetFooters {
  /** The most heap the footers of one client take ({@link ByVersion#MAX_BYTES}). */
  public static final long MAX_BYTES = ByVersion.MAX_BYTES;
  /** How long an unused footer is kept ({@link ByVersion#IDLE}). */
  public static final Duration IDLE = ByVersion.IDLE;
  /**
   * Heap an entry takes besides its footer ({@link ParquetFooter#heapBytes}) and its key's characters (see
   * {@link ByVersion#ENTRY_BYTES}).
   */
  static final int ENTRY_BYTES = ByVersion.ENTRY_BYTES;

  private final PredictedColumns columns;
  private final ByVersion<ParquetFooter> footers;

  public ParquetFooters() {
    this(MAX_BYTES, Ticker.systemTicker());
  }

  ParquetFooters(long maxBytes, Ticker ticker) {
    this.footers = new ByVersion<>(maxBytes, IDLE, ticker, ParquetFooter::heapBytes);
    this.columns = new PredictedColumns(IDLE, ticker);
  }

  /** The footer kept for this version, or null. */
  public ParquetFooter get(S3Location location, long length, String etag) {
    return footers.get(location, length, etag);
  }

  /** Keeps {@code footer} for this version (nothing without an ETag), dropping the least useful beyond the bound. */
  public void remember(S3Location location, long length, String etag, ParquetFooter footer) {
    footers.put(location, length, etag, footer);
  }

  /** The columns this client's readers read, by schema: what a stream fetches ahead of its reader. */
  public PredictedColumns columns() {
    return columns;
  }

  /** Footers kept, expired ones dropped first (for tests and diagnostics). */
  long size() {
    return footers.size();
  }

  /** The estimated heap the footers take, expired ones dropped first (for tests and diagnostics). */
  long weightedBytes() {
    return footers.weightedBytes();
  }
}
