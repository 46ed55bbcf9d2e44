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
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/** After close: no request in flight, every buffer back in the pool, no thread but the shared executor's. */
@Timeout(120)
class LeakTest {
  @RegisterExtension static final S3ServerExtension S3 = new S3ServerExtension();
  static final String BUCKET = "leaks";
  static final long SIZE = 32L << 20;

  @BeforeAll
  static void setUp() {
    S3.server().createBucket(BUCKET);
    S3.server().putGenerated(BUCKET, "big", 5, SIZE);
  }

  /** Waits until {@code condition} holds; the deadline only turns a hang into a failure. */
  static void eventually(String what, BooleanSupplier condition) throws InterruptedException {
    long deadline = System.nanoTime() + 30_000_000_000L;
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("not reached within 30 s: " + what);
      }
      Thread.sleep(10);
    }
  }

  static long fetchThreads() {
    return Thread.getAllStackTraces().keySet().stream()
        .filter(t -> t.getName().startsWith("slipstream-fetch-") && t.isAlive()).count();
  }

  @Test
  void closeAbortsInFlightGetsWithoutDrainingAndReturnsEveryBuffer() throws Exception {
    // A slow link: each 256 KiB block takes about half a second to arrive, so at close the prefetched
    // blocks are mid-body.
    LinkProfile slow = LinkProfile.S3_LIKE.withBandwidth(512_000, 8_000_000);
    long threadsBefore = fetchThreads();
    try (LinkShaper shaper = LinkShaper.start(S3.server().endpoint(), slow, 3)) {
      SlipstreamConfig config = TestClients.config(shaper.endpoint())
          .set("block.size", "256K").set("memory.max", "16M").set("prefetch.blocks", "8").build();
      try (Slipstream client = Slipstream.builder().config(config).isolatedResources().build()) {
        SlipstreamInputStream in = client.open("s3://" + BUCKET + "/big");
        byte[] buf = new byte[300 * 1024]; // crosses into block 1, so prefetch is running at full depth
        int n = in.readNBytes(buf, 0, buf.length);
        assertThat(TestData.firstMismatch(5, 0, buf, 0, n)).isEqualTo(-1);
        eventually("prefetches in flight", () -> shaper.activeRequests() >= 2);
        in.close();
        assertThat(client.memoryInUse()).isZero();
        eventually("no request in flight at the server side of the link", () -> shaper.activeRequests() == 0);
        // Drained bodies would have delivered every block that reached the server in full.
        assertThat(shaper.bytesSent()).isLessThan(shaper.requests("GET") * 256 * 1024);
        assertThat(in.statistics().get(Counter.PREFETCH_WASTED)).isPositive();
      }
    }
    eventually("the isolated client's fetch threads ended", () -> fetchThreads() <= threadsBefore);
  }

  @Test
  void sharedResourcesLeaveOnlyTheSharedExecutorsThreads() throws Exception {
    SlipstreamConfig config = TestClients.config(S3.server()).set("block.size", "1M").build();
    try (Slipstream client = Slipstream.create(config)) {
      for (int i = 0; i < 5; i++) {
        try (SlipstreamInputStream in = client.open("s3://" + BUCKET + "/big")) {
          in.seek(i * (1L << 20));
          in.readNBytes(4 << 20);
        }
      }
      assertThat(client.memoryInUse()).isZero();
    }
    eventually("only slipstream-fetch threads remain of Slipstream's", () ->
        Thread.getAllStackTraces().keySet().stream()
            .filter(t -> t.getName().toLowerCase().contains("slipstream"))
            .allMatch(t -> t.getName().startsWith("slipstream-fetch-")));
  }

  @Test
  void closingMidReadFromPositionalThreadsReturnsEverything() throws Exception {
    SlipstreamConfig config = TestClients.config(S3.server()).set("block.size", "512K").set("memory.max", "8M").build();
    try (Slipstream client = Slipstream.builder().config(config).isolatedResources().build()) {
      SlipstreamInputStream in = client.open("s3://" + BUCKET + "/big");
      Thread[] threads = new Thread[8];
      for (int t = 0; t < threads.length; t++) {
        final int id = t;
        threads[t] = new Thread(() -> {
          byte[] buf = new byte[700 * 1024];
          try {
            for (int i = 0; ; i++) {
              long at = ((long) id * 3_000_000 + (long) i * 1_000_003) % (SIZE - buf.length);
              in.readFully(at, buf);
              if (TestData.firstMismatch(5, at, buf, 0, buf.length) >= 0) {
                throw new AssertionError("wrong bytes at " + at);
              }
            }
          } catch (IOException expected) {
            // closed under us
          }
        });
        threads[t].start();
      }
      Thread.sleep(200);
      in.close();
      for (Thread t : threads) {
        t.join(30_000);
        assertThat(t.isAlive()).isFalse();
      }
      assertThat(client.memoryInUse()).isZero();
    }
  }
}
