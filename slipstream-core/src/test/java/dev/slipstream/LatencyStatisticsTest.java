/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream;

import static org.assertj.core.api.Assertions.assertThat;

import dev.slipstream.testkit.LinkProfile;
import dev.slipstream.testkit.LinkShaper;
import dev.slipstream.testkit.S3ServerExtension;
import dev.slipstream.testkit.TestData;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** Latency histograms: known values, the roll-up into a client's, and latencies the link shaper injects. */
class LatencyStatisticsTest {
  @RegisterExtension static final S3ServerExtension S3 = new S3ServerExtension();
  static final String BUCKET = "latency";
  static final long SIZE = 6L * 256 * 1024 + 77;
  /** The shaper's latency: median and max 40 ms, so every request's first byte waits 10 to 40 ms. */
  static final LinkProfile FORTY_MS = LinkProfile.LOOPBACK.withLatency(40, 40);
  static final long FLOOR_MICROS = TimeUnit.MILLISECONDS.toMicros(10);

  @TempDir Path cacheDir;

  @BeforeAll
  static void setUp() {
    S3.server().createBucket(BUCKET);
    S3.server().putGenerated(BUCKET, "data", 5, SIZE);
    S3.server().putGenerated(BUCKET, "dir/a", 6, 1000);
  }

  @Test
  void shadowCachesSeeEveryBlockFetchedAndWhatEachSizeWouldHaveServed() throws IOException {
    int blocks = (int) ((SIZE + 256 * 1024 - 1) / (256 * 1024));
    try (Slipstream client = Slipstream.builder().isolatedResources().config(TestClients.config(S3.server())
        .set("block.size", "256K").set("memory.max", "8M").set("cache.shadow.sizes", "256K,64M").build()).build()) {
      for (int round = 0; round < 2; round++) {
        try (SlipstreamInputStream in = client.open(S3Location.parse("s3://" + BUCKET + "/data"))) {
          byte[] all = in.readAllBytes();
          assertThat(TestData.firstMismatch(5, 0, all, 0, all.length)).isEqualTo(-1);
        }
      }
      java.util.List<ShadowCache> shadows = client.shadowCaches();
      assertThat(shadows).hasSize(2);
      assertThat(shadows.get(0).sizeBytes()).isEqualTo(256 * 1024);
      assertThat(shadows.get(0).lookups()).isEqualTo(2L * blocks);
      assertThat(shadows.get(0).hits()).as("one block: a sequential scan never meets a block again").isZero();
      assertThat(shadows.get(1).hits()).as("the whole object: the second read hits every block").isEqualTo(blocks);
      assertThat(shadows.get(1).hitBytes()).isEqualTo(SIZE);
      assertThat(shadows.get(1).hitRatio()).isEqualTo(0.5);
    }
    try (Slipstream none = Slipstream.builder().isolatedResources().config(TestClients.config(S3.server()).build())
        .build()) {
      assertThat(none.shadowCaches()).isEmpty();
    }
  }

  @Test
  void percentilesOfKnownSamples() {
    ReadStatistics client = ReadStatistics.global().childWithLatencies();
    ReadStatistics stream = client.child();
    for (int ms = 1; ms <= 100; ms++) {
      stream.record(Latency.GET, TimeUnit.MILLISECONDS.toNanos(ms));
    }
    LatencySummary l = client.latency(Latency.GET);
    assertThat(l.count()).isEqualTo(100);
    assertThat(l.maxMicros()).isEqualTo(100_000);
    assertThat(l.minMicros()).isBetween(990L, 1_000L); // two significant digits: within 1%
    assertThat(l.p50Micros()).isBetween(49_500L, 50_500L);
    assertThat(l.p99Micros()).isBetween(98_000L, 100_000L);
    assertThat(l.p999Micros()).isBetween(99_000L, 100_000L);
    assertThat(l.meanMicros()).isBetween(50_000L, 51_000L);
    assertThat(stream.latency(Latency.GET)).as("a stream keeps no histogram of its own")
        .isEqualTo(LatencySummary.EMPTY);
    assertThat(client.latency(Latency.HEAD)).isEqualTo(LatencySummary.EMPTY);
    Map<String, Long> snapshot = client.snapshot();
    assertThat(snapshot).containsEntry("get_latency_count", 100L).containsEntry("get_latency_max_us", 100_000L)
        .containsKeys("get_first_byte_latency_p99_us", "read_wait_latency_p999_us", "list_latency_p50_us");
    assertThat(stream.snapshot()).doesNotContainKey("get_latency_count");
  }

  /** Hadoop's IOStatistics evaluate every entry at once in a parallel stream: summaries are read concurrently. */
  @Test
  void summariesReadConcurrentlyWhileSamplesArriveAreWhole() throws Exception {
    ReadStatistics client = ReadStatistics.global().childWithLatencies();
    client.record(Latency.LIST, 5_000_000);
    java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(6);
    try {
      java.util.List<java.util.concurrent.Future<?>> all = new java.util.ArrayList<>();
      for (int t = 0; t < 2; t++) {
        all.add(pool.submit(() -> {
          for (int i = 0; i < 20_000; i++) {
            client.record(Latency.LIST, (i % 1000 + 1) * 1_000_000L);
          }
        }));
      }
      for (int t = 0; t < 4; t++) {
        all.add(pool.submit(() -> {
          for (int i = 0; i < 2_000; i++) {
            LatencySummary l = client.latency(Latency.LIST);
            assertThat(l.count()).isPositive();
            assertThat(l.p50Micros()).isLessThanOrEqualTo(l.maxMicros());
          }
        }));
      }
      for (java.util.concurrent.Future<?> f : all) {
        f.get(60, TimeUnit.SECONDS);
      }
    } finally {
      pool.shutdownNow();
    }
    assertThat(client.latency(Latency.LIST).count()).isEqualTo(40_001);
  }

  @Test
  void aClientTimesItsRequestsAsTheLinkDelaysThem() throws IOException {
    try (LinkShaper shaper = LinkShaper.start(S3.server().endpoint(), FORTY_MS, 3);
        Slipstream client = Slipstream.builder().isolatedResources().config(TestClients.config(shaper.endpoint())
            .set("block.size", "256K").set("memory.max", "8M").set("cache.disk.mode", "all")
            .set("cache.disk.dir", cacheDir.toString()).build()).build()) {
      S3Location data = S3Location.parse("s3://" + BUCKET + "/data");
      for (int round = 0; round < 2; round++) { // the second read comes from the disk cache
        try (SlipstreamInputStream in = client.open(data)) {
          byte[] all = in.readAllBytes();
          assertThat(TestData.firstMismatch(5, 0, all, 0, all.length)).isEqualTo(-1);
        }
        assertThat(Slipstream.awaitDiskCacheWrites(java.time.Duration.ofSeconds(10))).isTrue();
      }
      try (Listing l = client.lister().list(BUCKET, "dir/")) {
        while (l.hasNext()) {
          l.next();
        }
      }
      ReadStatistics s = client.statistics();
      LatencySummary head = s.latency(Latency.HEAD);
      LatencySummary firstByte = s.latency(Latency.GET_FIRST_BYTE);
      LatencySummary get = s.latency(Latency.GET);
      LatencySummary list = s.latency(Latency.LIST);
      assertThat(head.count()).isEqualTo(s.get(Counter.HEAD_REQUESTS)).isPositive();
      // a hedge that lost was a GET with no answer used: one sample per GET answered
      assertThat(firstByte.count()).isEqualTo(s.get(Counter.GET_REQUESTS) - s.get(Counter.HEDGED_REQUESTS))
          .isPositive();
      assertThat(get.count()).isEqualTo(firstByte.count());
      assertThat(list.count()).isEqualTo(s.get(Counter.LIST_REQUESTS)).isPositive();
      // every request waited for the link's latency at least (a floor the shaper keeps, not a speed)
      assertThat(head.minMicros()).isGreaterThanOrEqualTo(FLOOR_MICROS);
      assertThat(firstByte.minMicros()).isGreaterThanOrEqualTo(FLOOR_MICROS);
      assertThat(list.minMicros()).isGreaterThanOrEqualTo(FLOOR_MICROS);
      assertThat(get.maxMicros()).isGreaterThanOrEqualTo(firstByte.maxMicros());
      assertThat(s.latency(Latency.DISK_CACHE_READ).count()).isEqualTo(s.get(Counter.DISK_CACHE_HITS)).isPositive();
      assertThat(s.latency(Latency.READ_WAIT).count()).isPositive();
      assertThat(ReadStatistics.global().latency(Latency.GET).count()).as("rolled up into the JVM's")
          .isGreaterThanOrEqualTo(get.count());
    }
  }
}
