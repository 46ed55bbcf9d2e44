/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.testkit;

/**
 * The random draws of one request, from {@link SeededDraws}: each draw is a pure function of the
 * request's key, its occurrence and a salt. Every use of a draw (the fault, its kind, the cut point, the
 * latency) has its own salt so that the draws are independent of one another.
 *
 * @param key the request's identity hashed with the seed
 * @param occurrence how many identical requests came before this one
 */
record RequestDraws(long key, long occurrence) {

  /** 64 well-mixed bits for the use {@code salt}. */
  long bits(long salt) {
    return mix(key + mix(occurrence * 0x9E3779B97F4A7C15L + salt));
  }

  /** A draw in [0, 1) from the top 53 bits. */
  double uniform(long salt) {
    return (bits(salt) >>> 11) * 0x1.0p-53;
  }

  /** The SplitMix64 finaliser: a cheap, well-mixed bijection on 64 bits. */
  static long mix(long z) {
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    return z ^ (z >>> 31);
  }
}
