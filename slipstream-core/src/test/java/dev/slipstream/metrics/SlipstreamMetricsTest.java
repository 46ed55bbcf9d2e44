/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import dev.slipstream.Counter;
import dev.slipstream.Latency;
import dev.slipstream.ReadStatistics;
import dev.slipstream.RetryCause;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Slipstream's statistics scraped as Prometheus text through Micrometer. */
class SlipstreamMetricsTest {
  @Test
  void countersRetriesAndLatenciesAreScrapedLiveWithPrometheusNames() {
    ReadStatistics client = ReadStatistics.global().childWithLatencies();
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    new SlipstreamMetrics(client).bindTo(registry);

    client.add(Counter.BYTES_READ, 12_345);
    client.add(Counter.GET_REQUESTS, 7);
    client.add(Counter.WAIT_NANOS, 1_500_000_000L);
    client.retry(RetryCause.STALL);
    client.retry(RetryCause.STALL);
    for (int ms = 1; ms <= 100; ms++) {
      client.record(Latency.GET_FIRST_BYTE, TimeUnit.MILLISECONDS.toNanos(ms));
    }
    String text = registry.scrape();
    List<String> lines = text.lines().filter(l -> !l.startsWith("#")).toList();

    assertThat(lines).contains("slipstream_bytes_read_total 12345.0", "slipstream_get_requests_total 7.0",
        "slipstream_wait_seconds_total 1.5", "slipstream_retries_total{cause=\"stall\"} 2.0",
        "slipstream_retries_total{cause=\"timeout\"} 0.0", "slipstream_get_first_byte_latency_seconds_count 100",
        "slipstream_get_first_byte_latency_max_seconds 0.1");
    // the exported values are the histogram's own, converted from microseconds to seconds
    dev.slipstream.LatencySummary firstByte = client.latency(Latency.GET_FIRST_BYTE);
    assertThat(value(lines, "slipstream_get_first_byte_latency_seconds_sum"))
        .isCloseTo(firstByte.meanMicros() * firstByte.count() / 1e6, org.assertj.core.api.Assertions.within(1e-9));
    assertThat(value(lines, "slipstream_get_first_byte_latency_quantile_seconds{quantile=\"0.5\"}"))
        .isCloseTo(firstByte.p50Micros() / 1e6, org.assertj.core.api.Assertions.within(1e-9));
    assertThat(value(lines, "slipstream_get_first_byte_latency_quantile_seconds{quantile=\"0.99\"}"))
        .isCloseTo(firstByte.p99Micros() / 1e6, org.assertj.core.api.Assertions.within(1e-9));
    // live: a later increment shows in the next scrape
    client.add(Counter.BYTES_READ, 5);
    assertThat(registry.scrape()).contains("slipstream_bytes_read_total 12350.0");
    // fixed cardinality: the only labels are a retry's cause and a percentile
    assertThat(lines).filteredOn(l -> l.contains("{"))
        .allSatisfy(l -> assertThat(l).containsAnyOf("{cause=\"", "{quantile=\""));
  }

  private static double value(List<String> lines, String series) {
    return lines.stream().filter(l -> l.startsWith(series + " ")).findFirst()
        .map(l -> Double.parseDouble(l.substring(series.length() + 1))).orElseThrow(
            () -> new AssertionError("no series " + series));
  }
}
