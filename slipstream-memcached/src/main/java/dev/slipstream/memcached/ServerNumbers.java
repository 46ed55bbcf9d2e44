/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.memcached;

import dev.slipstream.RecentLatencies;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;

/**
 * What one server has seen, for operators ({@code Slipstream.sharedTierServers()}, and the metrics binder's
 * {@code server} label): chunks found and not, timeouts, errors, times left alone, bytes read, chunks
 * written and not, lookups and writes not made for want of memory, and the latency of its lookups (the last
 * {@value #WINDOW}).
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
  /** Lookups and writes not made: no room for their chunks' arrays (in flight, or in memory.max). */
  final LongAdder noMemory = new LongAdder();
  private final RecentLatencies lookupMicros = new RecentLatencies(WINDOW);

  /** A lookup on this server was answered after {@code nanos}. */
  void answered(long nanos) {
    lookupMicros.record(nanos / 1000);
  }

  /** The numbers by name, latencies in microseconds. */
  Map<String, Long> values() {
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
    v.put("no_memory", noMemory.sum());
    v.put("lookup_p50_us", lookupMicros.quantile(0.5));
    v.put("lookup_p99_us", lookupMicros.quantile(0.99));
    v.put("lookup_p999_us", lookupMicros.quantile(0.999));
    return v;
  }
}
