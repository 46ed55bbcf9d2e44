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
 */
public final class ReadStatistics {
  private static final ReadStatistics GLOBAL = new ReadStatistics(null);

  private final ReadStatistics parent;
  private final LongAdder[] counters = new LongAdder[Counter.values().length];
  private final LongAdder[] retries = new LongAdder[RetryCause.values().length];

  private ReadStatistics(ReadStatistics parent) {
    this.parent = parent;
    for (int i = 0; i < counters.length; i++) {
      counters[i] = new LongAdder();
    }
    for (int i = 0; i < retries.length; i++) {
      retries[i] = new LongAdder();
    }
  }

  /** The JVM-wide totals. */
  public static ReadStatistics global() {
    return GLOBAL;
  }

  /** A new scope whose increments also count in this one. */
  public ReadStatistics child() {
    return new ReadStatistics(this);
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

  /** All counters by metric name, retries as {@code retries_<cause>}; for JSON and exporters. */
  public Map<String, Long> snapshot() {
    Map<String, Long> m = new LinkedHashMap<>();
    for (Counter c : Counter.values()) {
      m.put(c.metricName(), get(c));
    }
    for (RetryCause c : RetryCause.values()) {
      m.put("retries_" + c.name().toLowerCase(java.util.Locale.ROOT), retries(c));
    }
    return m;
  }

  @Override
  public String toString() {
    return snapshot().toString();
  }
}
