/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.learn;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * The prefetch depth a client's readers have needed: where a run of reads in order starts once it is
 * proven sequential, instead of ramping up again (the per-stream policy, {@code read.AheadDepth},
 * raises it where a reader waited and lowers it where a reader found a whole window there). Thread-safe;
 * one per client.
 */
public final class LearnedDepth {
  /** The depth a run starts at before anything is learned, and the least it learns. */
  public static final int START = 2;

  private final AtomicInteger depth = new AtomicInteger(START);

  public LearnedDepth() {}

  /** The depth a proven run starts from. */
  public int get() {
    return depth.get();
  }

  /** A reader waited at depth {@code d}: a proven run starts at least there. */
  public void raise(int d) {
    depth.accumulateAndGet(d, Math::max);
  }

  /** A reader was ahead of the link at depth {@code d}: a proven run starts at most there (not below {@link #START}). */
  public void lower(int d) {
    depth.accumulateAndGet(Math.max(START, d), Math::min);
  }
}
