/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.memcached;

import dev.slipstream.RecentLatencies;
import java.util.concurrent.TimeUnit;

/**
 * How long a lookup may wait for the pool: three times the 99th percentile of the last {@value #WINDOW}
 * lookups, at least {@value #FLOOR_MILLIS} ms and at most {@code shared.timeout}; {@code shared.timeout}
 * itself until {@value #MIN_SAMPLES} are known, and always with {@code shared.timeout.adaptive=false}. So a
 * healthy pool, answering in a few milliseconds, costs a read at most a few more when a server stalls, and
 * a slower one keeps a deadline that fits it. A lookup that timed out counts as one that took the deadline
 * it had (it took at least that): were it left out, a pool slowed by a busy host would keep a deadline
 * fitted to its quiet moments and turn more than one lookup in a hundred into misses for good; counted,
 * the deadline rises until it covers 99 of 100 again.
 */
final class LookupDeadline {
  static final int WINDOW = 512;
  static final int MIN_SAMPLES = 32;
  static final long FLOOR_MILLIS = 20;
  private static final int RECOMPUTE_EVERY = 16;

  private final long maxNanos;
  private final boolean adaptive;
  private final RecentLatencies recent = new RecentLatencies(WINDOW);
  private volatile long deadlineNanos;

  LookupDeadline(long maxNanos, boolean adaptive) {
    this.maxNanos = maxNanos;
    this.adaptive = adaptive;
    this.deadlineNanos = maxNanos;
  }

  long nanos() {
    return deadlineNanos;
  }

  /** An answered lookup took {@code nanos}. */
  void answered(long nanos) {
    sample(nanos);
  }

  /** A lookup given {@code deadlineNanos} to answer did not answer within it. */
  void timedOut(long deadlineNanos) {
    sample(deadlineNanos);
  }

  private void sample(long nanos) {
    if (!adaptive) {
      return;
    }
    long n = recent.record(nanos);
    if (n >= MIN_SAMPLES && n % RECOMPUTE_EVERY == 0) {
      long p99 = recent.quantile(0.99);
      deadlineNanos = Math.min(maxNanos, Math.max(TimeUnit.MILLISECONDS.toNanos(FLOOR_MILLIS), 3 * p99));
    }
  }
}
