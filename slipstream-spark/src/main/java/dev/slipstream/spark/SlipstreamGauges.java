/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.spark;

import com.codahale.metrics.Gauge;
import com.codahale.metrics.MetricRegistry;
import dev.slipstream.Counter;
import dev.slipstream.Latency;
import dev.slipstream.LatencySummary;
import dev.slipstream.ReadStatistics;
import dev.slipstream.RetryCause;
import java.util.Locale;
import java.util.function.ToLongFunction;

/**
 * Slipstream's numbers as Dropwizard gauges, read live from a {@link ReadStatistics}. The names follow
 * Prometheus's conventions (a sink may add its own prefix, e.g. Spark's Prometheus servlet writes
 * {@code metrics_<app>_driver_plugin_dev_slipstream_spark_SlipstreamPlugin_<name>_Value}):
 * <ul>
 *   <li>every counter as {@code slipstream_<name>_total} (e.g. {@code slipstream_bytes_read_total},
 *       {@code slipstream_get_requests_total}); the time callers waited as {@code slipstream_wait_seconds_total};</li>
 *   <li>retries as {@code slipstream_retries_<cause>_total} (e.g. {@code slipstream_retries_stall_total});</li>
 *   <li>each latency as {@code slipstream_<kind>_latency_count}, and {@code slipstream_<kind>_latency_p50_seconds},
 *       {@code _p99_seconds}, {@code _p999_seconds}, {@code _max_seconds}, where kind is {@code head},
 *       {@code get_first_byte}, {@code get}, {@code list}, {@code disk_cache_read} or {@code read_wait}.</li>
 * </ul>
 * No name carries a bucket, a key or anything else from the data.
 */
public final class SlipstreamGauges {
  private SlipstreamGauges() {}

  /** Registers every gauge in {@code registry}, reading {@code stats} each time a sink asks. */
  public static void register(MetricRegistry registry, ReadStatistics stats) {
    for (Counter c : Counter.values()) {
      if (c == Counter.WAIT_NANOS) {
        registry.register("slipstream_wait_seconds_total", (Gauge<Double>) () -> stats.get(c) / 1e9);
      } else {
        for (String name : c.exportedNames()) {
          registry.register("slipstream_" + name + "_total", (Gauge<Long>) () -> stats.get(c));
        }
      }
    }
    for (RetryCause cause : RetryCause.values()) {
      registry.register("slipstream_retries_" + cause.name().toLowerCase(Locale.ROOT) + "_total",
          (Gauge<Long>) () -> stats.retries(cause));
    }
    for (Latency kind : Latency.values()) {
      String name = "slipstream_" + kind.metricName() + "_latency";
      registry.register(name + "_count", (Gauge<Long>) () -> stats.latency(kind).count());
      seconds(registry, name + "_p50_seconds", stats, kind, LatencySummary::p50Micros);
      seconds(registry, name + "_p99_seconds", stats, kind, LatencySummary::p99Micros);
      seconds(registry, name + "_p999_seconds", stats, kind, LatencySummary::p999Micros);
      seconds(registry, name + "_max_seconds", stats, kind, LatencySummary::maxMicros);
    }
  }

  private static void seconds(MetricRegistry registry, String name, ReadStatistics stats, Latency kind,
      ToLongFunction<LatencySummary> micros) {
    registry.register(name, (Gauge<Double>) () -> micros.applyAsLong(stats.latency(kind)) / 1e6);
  }
}
