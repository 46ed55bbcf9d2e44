/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.read;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * How many blocks a run of reads in order fetches ahead, tuned by what the reader meets: the one place
 * the depth policy lives.
 *
 * <p>A run starts at 2 blocks, so that a reader that reads a header and jumps away wastes a block or two.
 * Entering its second block proves the run sequential: the depth then starts from what the client has
 * learned ({@link Learned}) instead of ramping up again. Each time the reader has to wait for the block
 * it enters, the fetches are behind it: the depth doubles, up to the cap ({@code prefetch.blocks}), and
 * the client learns it. Each time it finds four blocks in a row already there, it is ahead of the link:
 * the depth drops by one (not below 2), and so does what the client starts from, so that a slow
 * consumer (a decoder, a writer) holds no more blocks than it needs. Memory stays the last word: prefetch
 * takes free memory only, so under pressure a stream fetches less than its depth.
 *
 * <p>On a link of {@code c} bytes per second per connection, a first-byte latency {@code l} and a reader
 * faster than the link, the depth grows until the link is full or the cap is reached, whichever is first:
 * about {@code link / c} blocks in flight (12 on the {@code s3-like} profile: 300 MB/s over 25 MB/s per
 * connection), within the cap of 16 that the fetch threads allow. Not thread-safe: its planner guards it.
 */
public final class PrefetchDepth {
  /** Blocks found at hand in a row before the depth drops by one. */
  static final int AHEAD_STREAK = 4;
  /** The depth a run starts at (unless its caller promised to read sequentially). */
  static final int START = 2;

  /** What a client has learned: the depth a proven run starts from. Thread-safe; one per client. */
  public static final class Learned {
    private final AtomicInteger depth = new AtomicInteger(START);

    public Learned() {}

    int get() {
      return depth.get();
    }

    void raise(int d) {
      depth.accumulateAndGet(d, Math::max);
    }

    void lower() {
      depth.updateAndGet(d -> Math.max(START, d - 1));
    }
  }

  private final int cap;
  private final int initial;
  private final Learned learned;
  private int depth;
  /** The last block entered by the current run, or -1 at the start of a run. */
  private long lastBlock = -1;
  private int blocksInRun;
  private int aheadStreak;
  private boolean arrivalNoted;

  /**
   * @param cap most blocks ahead ({@code prefetch.blocks})
   * @param sequential the caller promised to read in order: start at the cap
   */
  PrefetchDepth(int cap, boolean sequential, Learned learned) {
    this.cap = cap;
    this.learned = learned;
    this.initial = sequential ? cap : Math.min(START, cap);
    this.depth = initial;
  }

  /** A jump: the next read in order starts a new run. */
  void reset() {
    depth = initial;
    lastBlock = -1;
    blocksInRun = 0;
    aheadStreak = 0;
  }

  /** The reader enters block {@code index}; returns the depth to fetch ahead of it. */
  int enter(long index) {
    if (index > lastBlock) {
      lastBlock = index;
      arrivalNoted = false;
      if (++blocksInRun == 2) {
        depth = Math.max(depth, Math.min(cap, learned.get())); // proven: start from what the client learned
      }
    }
    return depth;
  }

  /** Whether the reader had to wait for the block it entered last: once per block. */
  void arrived(long index, boolean waited) {
    if (index != lastBlock || arrivalNoted) {
      return;
    }
    arrivalNoted = true;
    if (waited) {
      aheadStreak = 0;
      if (depth < cap) {
        depth = Math.min(cap, Math.max(1, depth * 2));
        learned.raise(depth);
      }
    } else if (++aheadStreak >= AHEAD_STREAK && blocksInRun > 1) {
      aheadStreak = 0;
      if (depth > START) {
        depth--;
        learned.lower();
      }
    }
  }
}
