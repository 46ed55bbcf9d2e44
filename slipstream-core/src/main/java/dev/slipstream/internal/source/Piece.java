/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.source;

/**
 * Bytes of one object version that a tier may hold, by name: block {@code index} of the stream's grid
 * (starting at {@code start}, {@code length} bytes long), or exactly the range {@code [start, start +
 * length)} as a columnar reader fetched it ({@code index} -1). A range is found again only by a read of
 * exactly that range.
 */
public record Piece(long index, long start, int length) {
  /** The shortest range a tier keeps: shorter ones cost more to name, find and check than to fetch. */
  public static final int MIN_RANGE = 4 * 1024;

  /**
   * Where a piece's bytes came from, as the tier that served them tells ({@link Tier#origin}), or S3. A
   * block the disk cache served is not written there again.
   */
  public enum Origin {
    /** The memory cache: pool memory an earlier stream of the client was done with. */
    MEMORY,
    /** The local disk cache. */
    DISK,
    /** The shared tier. */
    SHARED,
    /** S3, the last source. */
    S3
  }

  public static Piece block(long index, long start, int length) {
    return new Piece(index, start, length);
  }

  public static Piece range(long start, int length) {
    return new Piece(-1, start, length);
  }

  public boolean isBlock() {
    return index >= 0;
  }

  /** Whether a tier keeps a piece of this size: every block, and ranges of at least {@link #MIN_RANGE}. */
  public boolean worthKeeping() {
    return isBlock() || length >= MIN_RANGE;
  }
}
