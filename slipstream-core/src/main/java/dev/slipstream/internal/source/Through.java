/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.source;

import dev.slipstream.internal.fetch.Purpose;

/**
 * A read a caller waits for, {@code [position, position + length)}, and how the read-through of ranges
 * serves it ({@link RangeThrough#readThrough}): decided by the stream before it asks.
 *
 * @param blocksFirst first from the blocks the stream and its tiers hold, sending nothing if they hold
 *     it all
 * @param keep the read alone (without {@code around}, or when memory is short for it) is looked up as a
 *     tier kept exactly it, read from wherever its blocks are, and offered to the tiers; without, it
 *     comes from S3 in one request and is not offered
 * @param why the purpose of the read alone
 * @param around the extent fetched around the read and held by the caller; null for the read alone
 */
public record Through(long position, int length, boolean blocksFirst, boolean keep, Purpose why, Extent around) {
  public Through {
    if (around != null && (position < around.start() || position + length > around.start() + around.length())) {
      throw new IllegalArgumentException("extent " + around.start() + "+" + around.length()
          + " does not cover the read " + position + "+" + length);
    }
  }

  /**
   * Bytes fetched around a read into a span of the pool, which the caller holds for the reads that follow:
   * {@code [start, start + length)}. With {@code keep} (a footer's tail, a columnar extent) it is looked up
   * as a tier kept exactly this range and, once fetched, offered to the tiers; without (a readahead after a
   * small read the tiers did not hold), it comes from S3 alone. {@code why} is the fetch's purpose.
   */
  public record Extent(long start, int length, boolean keep, Purpose why) {}
}
