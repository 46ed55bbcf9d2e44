/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream;

import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;

/**
 * Counters of one scope: a stream, a client, or the whole JVM ({@link #global()}). Each increment is
 * added to the scope and to its parents, so a stream's numbers roll up into its client's and the
 * JVM's without any aggregation step. Thread-safe and cheap: one {@link LongAdder} per counter.
 *
 * <p>Latencies ({@link Latency}) are recorded the same way into every scope up the chain that keeps
 * histograms: a client's ({@link #childWithLatencies()}) and the JVM's; a stream's scope keeps none of
 * its own (a histogram is some 25 KiB) and reports {@link LatencySummary#EMPTY}.
 */
public final class ReadStatistics {
  private static final ReadStatistics GLOBAL = new ReadStatistics(null, true);
  /** Longest latency a histogram tells apart (one hour); longer ones count as this. */
  private static final long MAX_MICROS = 3_600_000_000L;

  private final ReadStatistics parent;
  private final LongAdder[] counters = new LongAdder[Counter.values().length];
  private final LongAdder[] retries = new LongAdder[RetryCause.values().length];
  /** Null in a scope that keeps no histograms of its own. */
  private final Histogram[] latencies;

  private ReadStatistics(ReadStatistics parent, boolean withLatencies) {
    this.parent = parent;
    for (int i = 0; i < counters.length; i++) {
      counters[i] = new LongAdder();
    }
    for (int i = 0; i < retries.length; i++) {
      retries[i] = new LongAdder();
    }
    if (withLatencies) {
      latencies = new Histogram[Latency.values().length];
      for (int i = 0; i < latencies.length; i++) {
        latencies[i] = new Histogram();
      }
    } else {
      latencies = null;
    }
  }

  /** The JVM-wide totals. */
  public static ReadStatistics global() {
    return GLOBAL;
  }

  /** A new scope whose increments also count in this one; it keeps no latency histograms of its own. */
  public ReadStatistics child() {
    return new ReadStatistics(this, false);
  }

  /**
   * Where a count that comes after this scope is done belongs: a stream's client (the scope this one rolls
   * up into), or this scope itself when it is a client's or the JVM's. What outlives a stream (bytes the
   * memory cache keeps from it) counts there, and so holds no reference to the stream's own numbers.
   */
  public ReadStatistics lasting() {
    return parent == null || parent == GLOBAL ? this : parent;
  }

  /** As {@link #child()}, keeping latency histograms of its own too: for a client. */
  public ReadStatistics childWithLatencies() {
    return new ReadStatistics(this, true);
  }

  /** Records one sample of {@code kind}, {@code nanos} long, here and in every parent keeping histograms. */
  public void record(Latency kind, long nanos) {
    long micros = Math.max(0, Math.min(MAX_MICROS, nanos / 1000));
    for (ReadStatistics s = this; s != null; s = s.parent) {
      if (s.latencies != null) {
        s.latencies[kind.ordinal()].record(micros);
      }
    }
  }

  /** The latencies of {@code kind} recorded in this scope; {@link LatencySummary#EMPTY} if it keeps none. */
  public LatencySummary latency(Latency kind) {
    return latencies == null ? LatencySummary.EMPTY : latencies[kind.ordinal()].summary();
  }

  /**
   * One kind's samples: percentiles from HdrHistogram (two significant digits), the exact maximum beside.
   * A sample is a request or a wait, not a byte: a monitor around recording and reading is cheap enough,
   * and HdrHistogram's reads must not overlap its writes.
   */
  private static final class Histogram {
    private final org.HdrHistogram.Histogram h = new org.HdrHistogram.Histogram(MAX_MICROS, 2);
    private long max;

    synchronized void record(long micros) {
      h.recordValue(micros);
      max = Math.max(max, micros);
    }

    synchronized LatencySummary summary() {
      long n = h.getTotalCount();
      if (n == 0) {
        return LatencySummary.EMPTY;
      }
      return new LatencySummary(n, h.getMinValue(), Math.round(h.getMean()),
          Math.min(max, h.getValueAtPercentile(50)), Math.min(max, h.getValueAtPercentile(99)),
          Math.min(max, h.getValueAtPercentile(99.9)), max);
    }
  }

  public void add(Counter c, long n) {
    for (ReadStatistics s = this; s != null; s = s.parent) {
      s.counters[c.ordinal()].add(n);
    }
  }

  public void increment(Counter c) {
    add(c, 1);
  }

  public void retry(RetryCause cause) {
    for (ReadStatistics s = this; s != null; s = s.parent) {
      s.retries[cause.ordinal()].increment();
      s.counters[Counter.RETRIES.ordinal()].increment();
    }
  }

  public long get(Counter c) {
    return counters[c.ordinal()].sum();
  }

  public long retries(RetryCause cause) {
    return retries[cause.ordinal()].sum();
  }

  public Map<RetryCause, Long> retriesByCause() {
    Map<RetryCause, Long> m = new EnumMap<>(RetryCause.class);
    for (RetryCause c : RetryCause.values()) {
      m.put(c, retries(c));
    }
    return m;
  }

  /**
   * All counters by metric name, retries as {@code retries_<cause>}, and, in a scope keeping histograms,
   * each latency as {@code <kind>_latency_{count,p50_us,p99_us,p999_us,max_us}}; for JSON and exporters.
   */
  public Map<String, Long> snapshot() {
    Map<String, Long> m = new LinkedHashMap<>();
    for (Counter c : Counter.values()) {
      for (String name : c.exportedNames()) {
        m.put(name, get(c));
      }
    }
    for (RetryCause c : RetryCause.values()) {
      m.put("retries_" + c.name().toLowerCase(java.util.Locale.ROOT), retries(c));
    }
    if (latencies != null) {
      for (Latency k : Latency.values()) {
        LatencySummary l = latency(k);
        String p = k.metricName() + "_latency_";
        m.put(p + "count", l.count());
        m.put(p + "p50_us", l.p50Micros());
        m.put(p + "p99_us", l.p99Micros());
        m.put(p + "p999_us", l.p999Micros());
        m.put(p + "max_us", l.maxMicros());
      }
    }
    return m;
  }

  @Override
  public String toString() {
    return snapshot().toString();
  }
}
