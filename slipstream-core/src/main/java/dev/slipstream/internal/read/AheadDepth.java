/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.read;

import dev.slipstream.internal.learn.LearnedDepth;

/**
 * How many blocks a run of reads in order fetches ahead, tuned by what the reader meets: the one place
 * the depth policy lives.
 *
 * <p>A run starts at 2 blocks, so that a reader that reads a header and jumps away wastes a block or two.
 * A caller that declared a sequential read (Hadoop's {@code whole-file} and {@code sequential} read
 * policies, which {@code FileUtil.copy} and the shell's {@code -cp} and {@code -get} declare) starts at
 * the cap: it has promised the run, and a window of whole blocks on every fetch thread fills the link
 * with the fewest GETs.
 * While the depth is growing it doubles with each block the reader enters, up to the cap ({@code
 * prefetch.blocks}); entering the second block proves the run sequential, and the depth then starts from
 * what the client has learned ({@link LearnedDepth}) instead of ramping up again. When the reader finds a
 * whole window of blocks already there (as many in a row as the depth), it is ahead of the link: the
 * depth halves (not below 2) and stops growing, and the client learns the lower depth, so that a slow
 * consumer (a decoder, a writer) holds no more blocks than it needs. A wait for a block makes the depth
 * grow again, and the client learns the depth it waited at. Memory stays the last word: prefetch takes
 * free memory only, so under pressure a stream fetches less than its depth.
 *
 * <p>A reader faster than the link keeps waiting, so its depth reaches the cap, which defaults to the
 * number of fetch threads: no depth puts more requests in flight than that. On the {@code s3-like}
 * profile the link is full at about 12 (300 MB/s over 25 MB/s per connection). Not thread-safe: its
 * planner guards it.
 */
final class AheadDepth {
  /** The depth a run starts at (unless its caller promised to read sequentially: see {@link #start()}). */
  static final int START = LearnedDepth.START;

  private final int cap;
  private final boolean sequential;
  private final LearnedDepth learned;
  private int depth;
  private boolean growing = true;
  /** The last block entered by the current run, or -1 at the start of a run. */
  private long lastBlock = -1;
  private int blocksInRun;
  private int aheadStreak;
  private boolean arrivalNoted;

  /**
   * @param cap most blocks ahead ({@code prefetch.blocks})
   * @param sequential the caller promised to read in order: start deep
   */
  AheadDepth(int cap, boolean sequential, LearnedDepth learned) {
    this.cap = cap;
    this.sequential = sequential;
    this.learned = learned;
    this.depth = start();
  }

  /**
   * Where a run starts: 2 blocks; for a declared sequential read, the cap: the caller promised the run,
   * and a window of the cap puts whole blocks on every fetch thread at once.
   */
  private int start() {
    return sequential ? cap : Math.min(START, cap);
  }

  /** A jump: the next read in order starts a new run. */
  void reset() {
    depth = start();
    growing = true;
    lastBlock = -1;
    blocksInRun = 0;
    aheadStreak = 0;
  }

  /** The reader enters block {@code index}; returns the depth to fetch ahead of it. */
  int enter(long index) {
    if (index > lastBlock) {
      boolean first = lastBlock < 0;
      lastBlock = index;
      arrivalNoted = false;
      if (++blocksInRun == 2) {
        depth = Math.max(depth, Math.min(cap, learned.get())); // proven: start from what the client learned
      }
      if (!first && growing) {
        depth = Math.min(cap, depth * 2);
      }
    }
    return depth;
  }

  /**
   * Whether blocks fetched ahead of the reader now come from S3 in parallel parts: only while the reader
   * waits on the link (the depth is growing) and the run's window, the block entered and those ahead of it
   * up to the end of what it will read ({@code windowBlocks}), holds fewer blocks than the cap, which
   * defaults to the fetch threads: too few whole blocks to fill them. A window of the cap fills the threads
   * with whole blocks, and a reader ahead of the link needs no more speed: parts would only cost GETs and
   * CPU.
   */
  boolean partsAhead(int windowBlocks) {
    return growing && partsNow(windowBlocks);
  }

  /**
   * Whether the block the reader waits for comes from S3 in parallel parts: unless the run's window fills
   * the threads with whole blocks, as a declared read's first one does. Its parts would then only take
   * threads from the blocks ahead, which wait in the queue and arrive last: the run ends later, on more GETs.
   */
  boolean partsNow(int windowBlocks) {
    return windowBlocks < cap;
  }

  /** Whether the reader had to wait for the block it entered last: once per block. */
  void arrived(long index, boolean waited) {
    if (index != lastBlock || arrivalNoted) {
      return;
    }
    arrivalNoted = true;
    if (waited) {
      aheadStreak = 0;
      growing = true;
      learned.raise(depth);
    } else if (++aheadStreak >= Math.max(START, depth)) {
      aheadStreak = 0; // a whole window was there before the reader: it is ahead of the link
      growing = false;
      depth = Math.max(Math.min(START, cap), depth / 2);
      learned.lower(depth);
    }
  }
}
