/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.memcached;

import dev.slipstream.Counter;
import dev.slipstream.ReadStatistics;

/**
 * Whether a server is worth asking: after {@value #FAILURES_TO_DOWN} failures or timeouts in a row it is
 * left alone for {@value #FIRST_BACKOFF_MILLIS} ms, then asked again; each further run of failures doubles
 * the wait, up to {@value #MAX_BACKOFF_MILLIS} ms; an answer resets it (mcrouter's defaults, a good start).
 */
final class ServerHealth {
  static final int FAILURES_TO_DOWN = 3;
  static final long FIRST_BACKOFF_MILLIS = 10_000;
  static final long MAX_BACKOFF_MILLIS = 60_000;

  private final ReadStatistics stats;
  private final ServerNumbers numbers;
  private int failures;
  private long backoffMillis;
  private long downUntilNanos;

  ServerHealth(ReadStatistics stats, ServerNumbers numbers) {
    this.stats = stats;
    this.numbers = numbers;
  }

  synchronized boolean usable() {
    return System.nanoTime() - downUntilNanos >= 0 || downUntilNanos == 0;
  }

  synchronized void answered() {
    failures = 0;
    backoffMillis = 0;
    downUntilNanos = 0;
  }

  synchronized void failed() {
    if (++failures >= FAILURES_TO_DOWN) {
      backoffMillis = backoffMillis == 0 ? FIRST_BACKOFF_MILLIS : Math.min(MAX_BACKOFF_MILLIS, backoffMillis * 2);
      downUntilNanos = System.nanoTime() + backoffMillis * 1_000_000L;
      if (downUntilNanos == 0) {
        downUntilNanos = 1;
      }
      failures = 0;
      stats.increment(Counter.SHARED_SERVERS_DOWN);
      numbers.timesDown.increment();
    }
  }
}
