/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream;

import java.util.Arrays;

/**
 * The last few latencies (or any values) of something, and their quantiles: what a deadline or a delay
 * that tunes itself is computed from (hedged requests, the shared tier's lookups), and what an operator
 * reads as a recent p99. Thread-safe; recording is a store into a ring, a quantile sorts a copy.
 *
 * <p>A public value of the bottom floor, beside {@link Latency}: the fetch floor's hedging and the
 * shared tier's modules both learn their delays from it, and neither may depend on the metrics
 * exporters, which sit above the whole client.
 */
public final class RecentLatencies {
  private final long[] recent;
  private long samples; // guarded by this

  /** Keeps the last {@code window} values. */
  public RecentLatencies(int window) {
    if (window <= 0) {
      throw new IllegalArgumentException("window must be positive: " + window);
    }
    this.recent = new long[window];
  }

  /** Records {@code value}; returns how many values were recorded so far (the first is 1). */
  public synchronized long record(long value) {
    recent[(int) (samples++ % recent.length)] = value;
    return samples;
  }

  /** How many values were recorded so far. */
  public synchronized long samples() {
    return samples;
  }

  /** The {@code q}-quantile (0 &lt; q &le; 1, nearest rank) of the values kept; 0 if there are none. */
  public long quantile(double q) {
    if (!(q > 0 && q <= 1)) {
      throw new IllegalArgumentException("a quantile is in (0, 1]: " + q);
    }
    long[] sorted;
    synchronized (this) {
      sorted = Arrays.copyOf(recent, (int) Math.min(samples, recent.length));
    }
    if (sorted.length == 0) {
      return 0;
    }
    Arrays.sort(sorted);
    return sorted[(int) Math.ceil(q * sorted.length) - 1];
  }
}
