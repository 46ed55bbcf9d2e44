/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream;

/**
 * What the shared block tier does ({@code shared.mode}; {@link SlipstreamConfig#sharedMode()}). Its own
 * type for the reason {@link CacheMode} is.
 */
public enum SharedMode {
  /** No shared tier. */
  OFF,
  /** Blocks are read from the tier, and every block fetched from S3 is written to it. */
  READ_WRITE,
  /** Blocks are read from the tier; nothing is written. */
  READ_ONLY,
  /**
   * The tier is asked and written as in read-write, in the background, but never serves a byte: what it
   * holds is compared with S3's bytes, and its hits, misses, mismatches and latency are counted. Only the
   * blocks {@code shared.shadow.fraction} samples by name are asked and written.
   */
  SHADOW
}
