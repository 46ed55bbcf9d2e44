/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.orc;

import com.github.benmanes.caffeine.cache.Ticker;
import dev.slipstream.S3Location;
import dev.slipstream.internal.learn.ByVersion;
import java.time.Duration;

/**
 * The ORC layouts a client has learnt, by object version ({@link ByVersion}), as the client keeps
 * Parquet footers: the layout every later stream of that version reads by from its first read (the
 * record reader Hive and Spark open after the split computation or the schema read its tail), without the
 * tail being read again. A layout grows as readers read the stripes' footers ({@link OrcLayout#learn}), to at most {@link
 * OrcTail#MAX_LAYOUT_BYTES}, a quarter of the bound of all; it is weighed again
 * then. Same version, bounds and expiry as the Parquet footers ({@code parquet.ParquetFooters}). Thread-safe; one per client.
 */
public final class OrcLayouts {
  /**
   * Heap an entry takes besides its layout ({@link OrcLayout#heapBytes}) and its key's characters, as a
   * Parquet footer's ({@link ByVersion#ENTRY_BYTES}).
   */
  public static final int ENTRY_BYTES = ByVersion.ENTRY_BYTES;

  private final ByVersion<OrcLayout> layouts;

  /** With the Parquet footers' bounds: {@link ByVersion#MAX_BYTES} of heap, {@link ByVersion#IDLE} unused. */
  public OrcLayouts() {
    this(ByVersion.MAX_BYTES, ByVersion.IDLE, Ticker.systemTicker());
  }

  /**
   * @param maxBytes the most heap the layouts take together
   * @param idle how long an unused layout is kept
   */
  public OrcLayouts(long maxBytes, Duration idle, Ticker ticker) {
    this.layouts = new ByVersion<>(maxBytes, idle, ticker, OrcLayout::heapBytes);
  }

  /** The layout kept for this version, or null. */
  public OrcLayout get(S3Location location, long length, String etag) {
    return layouts.get(location, length, etag);
  }

  /**
   * Keeps {@code layout} for this version (nothing without an ETag), or weighs it again once it has grown;
   * the least useful dropped beyond the bound.
   */
  public void put(S3Location location, long length, String etag, OrcLayout layout) {
    layouts.put(location, length, etag, layout);
  }

  /** Layouts kept, expired ones dropped first (for tests and diagnostics). */
  public long size() {
    return layouts.size();
  }

  /** The estimated heap the layouts take, expired ones dropped first (for tests and diagnostics). */
  public long weightedBytes() {
    return layouts.weightedBytes();
  }
}
