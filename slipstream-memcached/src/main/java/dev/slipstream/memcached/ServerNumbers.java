/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.memcached;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;

/**
 * What one server has seen, for operators ({@code Slipstream.sharedTierServers()}, and the metrics binder's
 * {@code server} label): chunks found and not, timeouts, errors, times left alone, bytes read, chunks
 * written and not, and the latency of its lookups (the last {@value #WINDOW}).
 */
final class ServerNumbers {
  static final int WINDOW = 512;

  final LongAdder lookups = new LongAdder();
  final LongAdder chunkHits = new LongAdder();
  final LongAdder chunkMisses = new LongAdder();
  final LongAdder timeouts = new LongAdder();
  final LongAdder errors = new LongAdder();
  final LongAdder timesDown = new LongAdder();
  final LongAdder bytesRead = new LongAdder();
  final LongAdder sets = new LongAdder();
  final LongAdder setFailures = new LongAdder();
  private final long[] recentMicros = new long[WINDOW];
  private long samples; // guarded by recentMicros

  /** A lookup on this server was answered after {@code nanos}. */
  void answered(long nanos) {
    synchronized (recentMicros) {
      recentMicros[(int) (samples++ % WINDOW)] = nanos / 1000;
    }
  }

  /** The numbers by name, latencies in microseconds. */
  Map<String, Long> values() {
    long[] sorted;
    synchronized (recentMicros) {
      sorted = Arrays.copyOf(recentMicros, (int) Math.min(samples, WINDOW));
    }
    Arrays.sort(sorted);
    Map<String, Long> v = new LinkedHashMap<>();
    v.put("lookups", lookups.sum());
    v.put("chunk_hits", chunkHits.sum());
    v.put("chunk_misses", chunkMisses.sum());
    v.put("timeouts", timeouts.sum());
    v.put("errors", errors.sum());
    v.put("times_down", timesDown.sum());
    v.put("bytes_read", bytesRead.sum());
    v.put("sets", sets.sum());
    v.put("set_failures", setFailures.sum());
    v.put("lookup_p50_us", quantile(sorted, 0.5));
    v.put("lookup_p99_us", quantile(sorted, 0.99));
    v.put("lookup_p999_us", quantile(sorted, 0.999));
    return v;
  }

  private static long quantile(long[] sorted, double q) {
    return sorted.length == 0 ? 0 : sorted[(int) Math.ceil(q * sorted.length) - 1];
  }
}
