/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream;

/**
 * One latency histogram as numbers, in microseconds: how many samples, their mean and extremes, and
 * percentiles (to two significant digits, as the histogram keeps them; {@code max} is exact). All zero
 * when there is no sample.
 */
public record LatencySummary(long count, long minMicros, long meanMicros, long p50Micros, long p99Micros,
    long p999Micros, long maxMicros) {
  /** No sample. */
  public static final LatencySummary EMPTY = new LatencySummary(0, 0, 0, 0, 0, 0, 0);
}
