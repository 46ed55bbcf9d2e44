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
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Hedged requests on a link where 3% of requests wait 600 ms for their first byte: late GETs get a
 * second GET within the budget, the first answer is read, every byte is right, and nothing is left
 * running or open.
 */
class HedgedRequestsTest {
  @RegisterExtension static final S3ServerExtension S3 = new S3ServerExtension();
  static final String BUCKET = "hedging";
  static final int BLOCK = 64 * 1024;
  static final int BLOCKS = 160;
  static final long SIZE = (long) BLOCKS * BLOCK - 99;
  /** 5 ms to the first byte, and 3% of requests 600 ms. */
  static final LinkProfile TAIL = LinkProfile.LOOPBACK.withLatency(5, 10).withTail(0.03, 600, 600);

  @BeforeAll
  static void setUp() {
    S3.server().createBucket(BUCKET);
    S3.server().putGenerated(BUCKET, "data", 11, SIZE);
  }

  private static Slipstream client(LinkShaper shaper, String budget) {
    return Slipstream.builder().isolatedResources().config(TestClients.config(shaper.endpoint())
        .set("block.size", "64K").set("memory.max", "4M").set("prefetch.blocks", "4")
        .set("hedge.delay.min", "100ms").set("hedge.budget", budget).build()).build();
  }

  private static void readAll(Slipstream client) throws IOException {
    try (SlipstreamInputStream in = client.open(S3Location.parse("s3://" + BUCKET + "/data"))) {
      byte[] all = in.readAllBytes();
      assertThat(all).hasSize((int) SIZE);
      assertThat(TestData.firstMismatch(11, 0, all, 0, all.length)).isEqualTo(-1);
    }
  }

  @Test
  void lateGetsAreHedgedWithinTheBudgetAndTheFirstAnswerIsRead() throws Exception {
    try (LinkShaper shaper = LinkShaper.start(S3.server().endpoint(), TAIL, 7)) {
      ReadStatistics stats;
      try (Slipstream client = client(shaper, "20%")) {
        readAll(client);
        readAll(client);
        stats = client.statistics();
        long gets = stats.get(Counter.GET_REQUESTS);
        long hedged = stats.get(Counter.HEDGED_REQUESTS);
        System.out.printf("hedging: %d GETs, %d hedged, %d hedges won%n", gets, hedged, stats.get(Counter.HEDGE_WINS));
        assertThat(hedged).as("hedges of %d GETs", gets).isPositive().isLessThanOrEqualTo((long) (0.2 * gets));
        assertThat(stats.get(Counter.HEDGE_WINS)).isPositive().isLessThanOrEqualTo(hedged);
        // every GET the client sent, hedges included, is one the link saw (a hedge that lost may still be
        // on its way when the read ends)
        for (int i = 0; i < 250 && shaper.requests("GET") < gets; i++) {
          Thread.sleep(20);
        }
        assertThat(shaper.requests("GET")).isEqualTo(gets);
      }
      assertNothingLeft(shaper);
    }
  }

  /**
   * A new endpoint, nothing learnt about it yet: a GET still waiting after the initial delay (1 s) is
   * hedged, and the hedge, a fresh draw of the link, answers first. Half of this link's requests wait
   * 1.5 s; six one-GET reads, fewer than the 32 latencies that would replace the initial delay.
   */
  @Test
  void aSlowGetIsHedgedBeforeAnyLatencyIsKnown() throws Exception {
    LinkProfile halfSlow = LinkProfile.LOOPBACK.withLatency(5, 10).withTail(0.5, 1500, 1500);
    for (int i = 0; i < 6; i++) {
      S3.server().putGenerated(BUCKET, "small-" + i, 20 + i, BLOCK);
    }
    try (LinkShaper shaper = LinkShaper.start(S3.server().endpoint(), halfSlow, 4)) {
      try (Slipstream client = client(shaper, "50%")) {
        for (int i = 0; i < 6; i++) {
          try (SlipstreamInputStream in = client.open(S3Location.parse("s3://" + BUCKET + "/small-" + i),
              OpenOptions.length(BLOCK))) {
            byte[] all = in.readAllBytes();
            assertThat(TestData.firstMismatch(20 + i, 0, all, 0, BLOCK)).isEqualTo(-1);
          }
        }
        ReadStatistics stats = client.statistics();
        System.out.printf("before any latency is known: %d GETs, %d hedged, %d hedges won%n",
            stats.get(Counter.GET_REQUESTS), stats.get(Counter.HEDGED_REQUESTS), stats.get(Counter.HEDGE_WINS));
        assertThat(stats.get(Counter.GET_REQUESTS)).isLessThan(32);
        assertThat(stats.get(Counter.HEDGED_REQUESTS)).isPositive();
        assertThat(stats.get(Counter.HEDGE_WINS)).isPositive();
      }
      assertNothingLeft(shaper);
    }
  }

  @Test
  void aBudgetOfZeroSendsNoHedgeAndNoRequestThread() throws Exception {
    try (LinkShaper shaper = LinkShaper.start(S3.server().endpoint(), TAIL, 7);
         Slipstream client = client(shaper, "0")) {
      readAll(client);
      assertThat(client.statistics().get(Counter.HEDGED_REQUESTS)).isZero();
      assertThat(shaper.requests("GET")).isEqualTo(client.statistics().get(Counter.GET_REQUESTS));
      assertThat(requestThreads()).isEmpty();
    }
  }

  @Test
  void aStreamClosedWhileItsGetsAreHedgedEndsCleanly() throws Exception {
    try (LinkShaper shaper = LinkShaper.start(S3.server().endpoint(), TAIL, 9)) {
      try (Slipstream client = client(shaper, "50%")) {
        readAll(client); // learns the latencies
        for (int i = 0; i < 5; i++) {
          SlipstreamInputStream in = client.open(S3Location.parse("s3://" + BUCKET + "/data"));
          byte[] some = new byte[3 * BLOCK];
          in.readNBytes(some, 0, some.length);
          assertThat(TestData.firstMismatch(11, 0, some, 0, some.length)).isEqualTo(-1);
          in.close(); // prefetches in flight, some of them hedged
        }
      }
      assertNothingLeft(shaper);
    }
  }

  private static List<String> requestThreads() {
    return Thread.getAllStackTraces().keySet().stream().filter(Thread::isAlive).map(Thread::getName)
        .filter(n -> n.startsWith("slipstream-request-")).toList();
  }

  /** No request thread and no connection at the link once the client is closed (a loser's body aborted). */
  private static void assertNothingLeft(LinkShaper shaper) throws InterruptedException {
    long deadline = System.nanoTime() + 10_000_000_000L;
    while (System.nanoTime() < deadline && (!requestThreads().isEmpty() || shaper.activeRequests() > 0)) {
      Thread.sleep(20);
    }
    assertThat(requestThreads()).as("request threads").isEmpty();
    assertThat(shaper.activeRequests()).as("requests still open at the link").isZero();
  }
}
