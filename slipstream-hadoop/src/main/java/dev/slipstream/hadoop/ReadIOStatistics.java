/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.hadoop;

import dev.slipstream.Counter;
import dev.slipstream.Latency;
import dev.slipstream.LatencySummary;
import dev.slipstream.ReadStatistics;
import dev.slipstream.RetryCause;
import java.util.Locale;
import org.apache.hadoop.fs.statistics.IOStatistics;
import org.apache.hadoop.fs.statistics.MeanStatistic;
import org.apache.hadoop.fs.statistics.StreamStatisticNames;
import org.apache.hadoop.fs.statistics.impl.DynamicIOStatisticsBuilder;
import org.apache.hadoop.fs.statistics.impl.IOStatisticsBinding;

/**
 * Slipstream's read counters as Hadoop IOStatistics, live: Hadoop's standard stream statistic names
 * where one means the same thing ({@code stream_read_bytes}: bytes returned; {@code
 * stream_read_total_bytes}: bytes fetched from S3; {@code stream_read_opened}: GETs), and every counter
 * as {@code slipstream_<name>}, retries by cause as {@code slipstream_retries_<cause>}; for the
 * FileSystem, its client's latency histograms too. One place for the names, for a stream's statistics
 * and for the FileSystem's.
 */
final class ReadIOStatistics {
  private ReadIOStatistics() {}

  /** A stream's (or any one set of) counters. */
  static IOStatistics of(ReadStatistics s) {
    DynamicIOStatisticsBuilder b = IOStatisticsBinding.dynamicIOStatistics();
    bind(b, s);
    return b.build();
  }

  /** {@code s3a}'s statistics (S3A's FileSystem: its own entries, live), with the read side taken from {@code s}. */
  static IOStatistics over(IOStatistics s3a, ReadStatistics s) {
    DynamicIOStatisticsBuilder b = IOStatisticsBinding.dynamicIOStatistics();
    for (String k : s3a.counters().keySet()) {
      b.withLongFunctionCounter(k, key -> s3a.counters().getOrDefault(key, 0L));
    }
    for (String k : s3a.gauges().keySet()) {
      b.withLongFunctionGauge(k, key -> s3a.gauges().getOrDefault(key, 0L));
    }
    for (String k : s3a.minimums().keySet()) {
      b.withLongFunctionMinimum(k, key -> s3a.minimums().getOrDefault(key, 0L));
    }
    for (String k : s3a.maximums().keySet()) {
      b.withLongFunctionMaximum(k, key -> s3a.maximums().getOrDefault(key, 0L));
    }
    for (String k : s3a.meanStatistics().keySet()) {
      b.withMeanStatisticFunction(k, key -> s3a.meanStatistics().get(key));
    }
    bind(b, s); // after S3A's: the read side is Slipstream's
    bindLatencies(b, s);
    return b.build();
  }

  /**
   * A client's latency histograms ({@link Latency}), in microseconds: as IOStatistics' minimum, maximum
   * and mean ({@code slipstream_<kind>_latency_us.min}, {@code .max}, {@code .mean}) and, as IOStatistics
   * has no percentile, the percentiles as gauges ({@code .p50}, {@code .p99}, {@code .p999}).
   */
  private static void bindLatencies(DynamicIOStatisticsBuilder b, ReadStatistics s) {
    for (Latency kind : Latency.values()) {
      String n = "slipstream_" + kind.metricName() + "_latency_us";
      b.withLongFunctionMinimum(n + ".min", k -> s.latency(kind).minMicros())
          .withLongFunctionMaximum(n + ".max", k -> s.latency(kind).maxMicros())
          .withMeanStatisticFunction(n + ".mean", k -> {
            LatencySummary l = s.latency(kind);
            return new MeanStatistic(l.count(), l.meanMicros() * l.count());
          })
          .withLongFunctionGauge(n + ".p50", k -> s.latency(kind).p50Micros())
          .withLongFunctionGauge(n + ".p99", k -> s.latency(kind).p99Micros())
          .withLongFunctionGauge(n + ".p999", k -> s.latency(kind).p999Micros());
    }
  }

  private static void bind(DynamicIOStatisticsBuilder b, ReadStatistics s) {
    b.withLongFunctionCounter(StreamStatisticNames.STREAM_READ_BYTES, k -> s.get(Counter.BYTES_READ))
        .withLongFunctionCounter(StreamStatisticNames.STREAM_READ_TOTAL_BYTES, k -> s.get(Counter.BYTES_FETCHED))
        .withLongFunctionCounter(StreamStatisticNames.STREAM_READ_OPENED, k -> s.get(Counter.GET_REQUESTS));
    for (Counter c : Counter.values()) {
      for (String name : c.exportedNames()) {
        b.withLongFunctionCounter("slipstream_" + name, k -> s.get(c));
      }
    }
    for (RetryCause c : RetryCause.values()) {
      b.withLongFunctionCounter("slipstream_retries_" + c.name().toLowerCase(Locale.ROOT), k -> s.retries(c));
    }
  }
}
