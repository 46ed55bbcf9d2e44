/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.read;

import dev.slipstream.ReadPolicy;

/**
 * Decides, for each read, whether the reader is going through the object in order and so how far to
 * fetch ahead, or jumping about, in which case a small read fetches just its own bytes.
 *
 * <p>A read continues the previous one if it starts where that one ended, or a little ahead of it
 * (at most {@link #SKIP_TOLERANCE} bytes, as a reader skipping a record header does), or if its block
 * is already in memory (a skip within data already fetched or on its way). The first read of a stream
 * counts as continuing from position 0. A run of sequential reads starts with a prefetch depth of 2
 * blocks and doubles it each time it enters a new block, up to the configured maximum: a file read start to end quickly fetches at full depth, while a reader that
 * reads a header and jumps away wastes at most a block or two. A jump resets the depth.
 *
 * <p>Thread-safe: the positional reads of many threads share one instance (the stream position has its
 * own).
 */
final class ReadPlanner {
  /** What to do for one read. */
  record Decision(boolean sequential, boolean direct) {}

  /** A forward gap this small still counts as reading in order; S3A's default readahead is 64 KiB. */
  static final int SKIP_TOLERANCE = 64 * 1024;

  private final int blockSize;
  private final int maxDepth;
  private final int initialDepth;
  private long nextExpected;
  private int depth;
  /** The last block entered by the current sequential run, or -1 at the start of a run. */
  private long lastBlock = -1;

  /**
   * @param policy {@link ReadPolicy#SEQUENTIAL} starts at full depth; {@link ReadPolicy#RANDOM} does not
   *     take the first read for a sequential one
   */
  ReadPlanner(int blockSize, int maxDepth, ReadPolicy policy) {
    this.blockSize = blockSize;
    this.maxDepth = maxDepth;
    this.initialDepth = policy == ReadPolicy.SEQUENTIAL ? maxDepth : Math.min(2, maxDepth);
    this.depth = initialDepth;
    // With no read yet, 'continuing' means starting at 0 -- unless the caller said it reads at random.
    this.nextExpected = policy == ReadPolicy.RANDOM ? Long.MIN_VALUE / 2 : 0;
  }

  synchronized Decision onRead(long position, int length, boolean blockInMemory) {
    boolean sequential = blockInMemory
        || (position >= nextExpected && position - nextExpected <= Math.min(SKIP_TOLERANCE, blockSize / 4));
    if (!sequential) {
      depth = initialDepth;
      lastBlock = -1;
    }
    nextExpected = position + length;
    // A small read after a jump costs one GET of exactly its bytes, not a block-sized one.
    boolean direct = !sequential && length < blockSize / 2;
    return new Decision(sequential, direct);
  }

  /**
   * A sequential read moves into block {@code index}: the depth doubles for every new block after the
   * first of the run. Called per block, so that one large read spanning blocks grows it too.
   *
   * @return the prefetch depth to use from this block on
   */
  synchronized int enterBlock(long index) {
    if (index > lastBlock) {
      if (lastBlock >= 0) {
        depth = Math.min(maxDepth, Math.max(1, depth * 2));
      }
      lastBlock = index;
    }
    return depth;
  }

}
