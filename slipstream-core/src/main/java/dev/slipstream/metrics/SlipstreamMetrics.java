/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.metrics;

import dev.slipstream.Counter;
import dev.slipstream.Latency;
import dev.slipstream.LatencySummary;
import dev.slipstream.ReadStatistics;
import dev.slipstream.RetryCause;
import dev.slipstream.ShadowCache;
import dev.slipstream.Slipstream;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.FunctionTimer;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.TimeGauge;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.function.ToLongFunction;

/**
 * Slipstream's counters and latency histograms as Micrometer meters, read live from a
 * {@link ReadStatistics} (a client's {@code statistics()}, or {@link ReadStatistics#global()}):
 * {@code new SlipstreamMetrics(client.statistics()).bindTo(registry)}. Micrometer is an optional
 * dependency: add {@code io.micrometer:micrometer-core} (and a registry) to use this class.
 *
 * <p>Names, as a Prometheus registry writes them:
 * <ul>
 *   <li>every counter as {@code slipstream_<name>_total} (e.g. {@code slipstream_bytes_read_total},
 *       {@code slipstream_get_requests_total}); the nanoseconds callers waited as
 *       {@code slipstream_wait_seconds_total};</li>
 *   <li>retries as {@code slipstream_retries_total{cause="stall"}}, one series per cause;</li>
 *   <li>each latency as a timer, {@code slipstream_<kind>_latency_seconds_count} and {@code _sum}, with
 *       {@code slipstream_<kind>_latency_max_seconds}, and its percentiles as
 *       {@code slipstream_<kind>_latency_quantile_seconds{quantile="0.5"|"0.99"|"0.999"}}.</li>
 * </ul>
 * With a client ({@link #SlipstreamMetrics(Slipstream)}) also:
 * <ul>
 *   <li>what its requests and transfer cost at its {@code cost.*} prices, as
 *       {@code slipstream_cost_dollars_total};</li>
 *   <li>for each server of the shared tier, its numbers with a {@code server} label (host:port), e.g.
 *       {@code slipstream_shared_server_chunk_hits_total} and {@code slipstream_shared_server_lookup_p99_seconds};</li>
 *   <li>for each simulated cache of {@code cache.shadow.sizes}, {@code slipstream_shadow_cache_lookups_total}
 *       and {@code slipstream_shadow_cache_hits_total} with a {@code size} label in bytes: the hit ratio a
 *       cache of that size would have had is {@code hits / lookups}.</li>
 * </ul>
 * No label names a bucket, key or anything else from the data: the cardinality is fixed.
 */
public final class SlipstreamMetrics implements MeterBinder {
  private final ReadStatistics stats;
  private final Slipstream client;

  /** The counters and latencies of {@code stats} (e.g. {@link ReadStatistics#global()}). */
  public SlipstreamMetrics(ReadStatistics stats) {
    this.stats = Objects.requireNonNull(stats, "stats");
    this.client = null;
  }

  /** The counters and latencies of {@code client}, with its cost and its shadow caches. */
  public SlipstreamMetrics(Slipstream client) {
    this.client = Objects.requireNonNull(client, "client");
    this.stats = client.statistics();
  }

  @Override
  public void bindTo(MeterRegistry registry) {
    for (Counter c : Counter.values()) {
      if (c == Counter.WAIT_NANOS) {
        FunctionCounter.builder("slipstream.wait.seconds", stats, s -> s.get(c) / 1e9)
            .description("time callers waited for bytes").register(registry);
        continue;
      }
      for (String name : c.exportedNames()) {
        FunctionCounter.builder("slipstream." + name.replace('_', '.'), stats, s -> s.get(c)).register(registry);
      }
    }
    for (RetryCause cause : RetryCause.values()) {
      FunctionCounter.builder("slipstream.retries", stats, s -> s.retries(cause))
          .tag("cause", cause.name().toLowerCase(Locale.ROOT)).register(registry);
    }
    for (Latency kind : Latency.values()) {
      String name = "slipstream." + kind.metricName().replace('_', '.') + ".latency";
      FunctionTimer.builder(name, stats, s -> s.latency(kind).count(),
              s -> (double) s.latency(kind).meanMicros() * s.latency(kind).count(), TimeUnit.MICROSECONDS)
          .register(registry);
      TimeGauge.builder(name + ".max", stats, TimeUnit.MICROSECONDS, s -> s.latency(kind).maxMicros())
          .register(registry);
      quantile(registry, name, kind, "0.5", LatencySummary::p50Micros);
      quantile(registry, name, kind, "0.99", LatencySummary::p99Micros);
      quantile(registry, name, kind, "0.999", LatencySummary::p999Micros);
    }
    if (client != null) {
      FunctionCounter.builder("slipstream.cost.dollars", client, c -> c.cost().totalDollars())
          .description("requests and transfer at the client's cost.* prices").register(registry);
      List<dev.slipstream.spi.SharedBlockStore.ServerStatistics> servers = client.sharedTierServers();
      for (int i = 0; i < servers.size(); i++) {
        int at = i;
        String server = servers.get(i).server();
        for (String value : servers.get(i).values().keySet()) {
          String name = "slipstream.shared.server." + value.replace('_', '.');
          if (value.endsWith("_us")) {
            TimeGauge.builder(name.substring(0, name.length() - 3), client, TimeUnit.MICROSECONDS,
                c -> c.sharedTierServers().get(at).values().getOrDefault(value, 0L))
                .tag("server", server).register(registry);
          } else {
            FunctionCounter.builder(name, client, c -> c.sharedTierServers().get(at).values().getOrDefault(value, 0L))
                .tag("server", server).register(registry);
          }
        }
      }
      List<ShadowCache> shadows = client.shadowCaches();
      for (int i = 0; i < shadows.size(); i++) {
        int at = i;
        String size = Long.toString(shadows.get(i).sizeBytes());
        FunctionCounter.builder("slipstream.shadow.cache.lookups", client, c -> c.shadowCaches().get(at).lookups())
            .tag("size", size).register(registry);
        FunctionCounter.builder("slipstream.shadow.cache.hits", client, c -> c.shadowCaches().get(at).hits())
            .tag("size", size).register(registry);
      }
    }
  }

  private void quantile(MeterRegistry registry, String name, Latency kind, String q,
      ToLongFunction<LatencySummary> value) {
    TimeGauge.builder(name + ".quantile", stats, TimeUnit.MICROSECONDS, s -> value.applyAsLong(s.latency(kind)))
        .tag("quantile", q).register(registry);
  }
}
