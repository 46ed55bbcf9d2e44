/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream;

/**
 * What the caller expects its access pattern to be. Every policy still adapts to what the reader
 * actually does; the policy only sets the starting point.
 */
public enum ReadPolicy {
  /**
   * The default: the first read at the start of the object counts as sequential, with a prefetch
   * depth of 2 that grows; a jump resets it, and a small read after a jump fetches only its bytes.
   */
  ADAPTIVE,
  /** Read start to end (a whole file, a CSV or JSON split): prefetch at full depth from the first read. */
  SEQUENTIAL,
  /**
   * Positioned reads all over the object (an index, vectored reads): the first read is not assumed
   * sequential, so a small one fetches just its own bytes; a run of reads in order still prefetches.
   */
  RANDOM
}
