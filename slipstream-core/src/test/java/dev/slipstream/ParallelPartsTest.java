/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.slipstream.testkit.FaultKind;
import dev.slipstream.testkit.LinkProfile;
import dev.slipstream.testkit.LinkShaper;
import dev.slipstream.testkit.RequestInfo;
import dev.slipstream.testkit.S3ServerExtension;
import dev.slipstream.testkit.TestData;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A block fetched from S3 while fewer blocks are being read than there are fetch threads comes in parallel
 * parts of at least 2 MiB: every byte right and fetched once, each part retried on its own, a part failing
 * for good failing the read with its error, and nothing left running or held when a read ends or its
 * stream closes.
 */
@Timeout(120)
class ParallelPartsTest {
  @RegisterExtension static final S3ServerExtension S3 = new S3ServerExtension();
  static final String BUCKET = "parts";
  static final int MIB = 1024 * 1024;
  /** Three blocks of 8 MiB and a short fourth, too short to split. */
  static final long SIZE = 24L * MIB + 12_345;

  LinkShaper shaper;

  @BeforeAll
  static void setUp() {
    S3.server().createBucket(BUCKET);
    S3.server().putGenerated(BUCKET, "data", 11, SIZE);
  }

  @AfterEach
  void stopShaper() {
    if (shaper != null) {
      shaper.close();
    }
  }

  private Slipstream client(LinkProfile profile, String... extra) {
    shaper = LinkShaper.start(S3.server().endpoint(), profile, 5);
    SlipstreamConfig.Builder b = TestClients.config(shaper.endpoint()).set("block.size", "8M")
        .set("memory.max", "64M").set("retry.interval", "10ms").set("retry.interval.max", "50ms");
    for (int i = 0; i < extra.length; i += 2) {
      b.set(extra[i], extra[i + 1]);
    }
    return Slipstream.builder().config(b.build()).isolatedResources().build();
  }

  private static void readAllAndVerify(SlipstreamInputStream in) throws IOException {
    byte[] all = in.readAllBytes();
    assertThat(all.length).isEqualTo((int) SIZE);
    assertThat(TestData.firstMismatch(11, 0, all, 0, all.length)).as("first wrong byte").isEqualTo(-1);
  }

  /** The GETs' ranges as {start, end} pairs, in the order of their starts. */
  private List<long[]> getRanges() {
    List<long[]> ranges = new ArrayList<>();
    for (RequestInfo r : shaper.requestLog()) {
      if (r.isGet()) {
        String[] se = r.range().substring("bytes=".length()).split("-");
        ranges.add(new long[] {Long.parseLong(se[0]), Long.parseLong(se[1]) + 1});
      }
    }
    ranges.sort((a, b) -> Long.compare(a[0], b[0]));
    return ranges;
  }

  private static Predicate<RequestInfo> getFrom(long start) {
    return r -> r.isGet() && r.range() != null && r.range().startsWith("bytes=" + start + "-");
  }

  @Test
  void aFreshClientsFirstBlockComesInFourPartsAndEveryByteOnce() throws IOException {
    try (Slipstream client = client(LinkProfile.LOOPBACK)) {
      try (SlipstreamInputStream in = client.open("s3://" + BUCKET + "/data")) {
        readAllAndVerify(in);
        // 16 fetch threads, at most two blocks being read: the first block's GET is four GETs of 2 MiB
        List<long[]> ranges = getRanges();
        assertThat(ranges.subList(0, 4)).extracting(r -> r[0] + "-" + r[1])
            .containsExactly("0-2097152", "2097152-4194304", "4194304-6291456", "6291456-8388608");
        // the parts tile the object: no byte asked for twice, none left out
        long next = 0;
        for (long[] r : ranges) {
          assertThat(r[0]).as("start of a GET").isEqualTo(next);
          next = r[1];
        }
        assertThat(next).isEqualTo(SIZE);
        assertThat(in.statistics().get(Counter.BLOCKS_IN_PARTS)).isBetween(1L, 3L);
        assertThat(in.statistics().get(Counter.GET_REQUESTS)).isEqualTo(ranges.size())
            .isEqualTo(shaper.requests("GET"));
        assertThat(in.statistics().get(Counter.BYTES_FETCHED)).isEqualTo(SIZE);
      }
      assertThat(client.memoryInUse()).isZero();
    }
  }

  @Test
  void aDeclaredSequentialReadWhoseWindowFillsTheThreadsFetchesEveryBlockWhole() throws IOException {
    // prefetch.blocks 4: a window of four blocks, the object's four, fills the threads as the cap says; the
    // block the reader waits for comes whole as well: in parts, it would only keep the last blocks queued
    try (Slipstream client = client(LinkProfile.LOOPBACK, "prefetch.blocks", "4")) {
      try (SlipstreamInputStream in = client.open(S3Location.parse("s3://" + BUCKET + "/data"),
          OpenOptions.NONE.withPolicy(ReadPolicy.SEQUENTIAL))) {
        readAllAndVerify(in);
        // (opened with no length, a sequential read learns it from a GET of its first MiB, then drops it)
        assertThat(getRanges()).extracting(r -> r[0] + "-" + r[1]).containsExactly("0-1048576", "0-8388608",
            "8388608-16777216", "16777216-25165824", "25165824-" + SIZE);
        assertThat(in.statistics().get(Counter.BLOCKS_IN_PARTS)).isZero();
      }
    }
  }

  @Test
  void aDeclaredSequentialReadWhoseWindowIsShortOfTheThreadsFetchesTheBlockItWaitsForInParts() throws IOException {
    // prefetch.blocks 8 (the default threads being more): the object's four blocks cannot fill the threads
    try (Slipstream client = client(LinkProfile.LOOPBACK, "prefetch.blocks", "8")) {
      try (SlipstreamInputStream in = client.open(S3Location.parse("s3://" + BUCKET + "/data"),
          OpenOptions.NONE.withPolicy(ReadPolicy.SEQUENTIAL))) {
        readAllAndVerify(in);
        assertThat(getRanges()).extracting(r -> r[0] + "-" + r[1]).startsWith("0-1048576", "0-2097152");
        assertThat(in.statistics().get(Counter.BLOCKS_IN_PARTS)).isPositive();
      }
    }
  }

  /** One fetch thread has no other to run a part; parts of at least a block are the block. */
  @ParameterizedTest(name = "{0}={1}")
  @CsvSource({"fetch.threads, 1", "fetch.part.min, 8M"})
  void everyBlockIsOneGetWithOneFetchThreadOrPartsOfABlock(String key, String value) throws IOException {
    try (Slipstream client = client(LinkProfile.LOOPBACK, key, value)) {
      try (SlipstreamInputStream in = client.open("s3://" + BUCKET + "/data")) {
        readAllAndVerify(in);
        assertThat(in.statistics().get(Counter.BLOCKS_IN_PARTS)).isZero();
        assertThat(getRanges()).extracting(r -> r[0]).containsExactly(0L, 8L * MIB, 16L * MIB, 24L * MIB);
      }
    }
  }

  @Test
  void partsAreNeverSmallerThanFetchPartMin() throws IOException {
    try (Slipstream client = client(LinkProfile.LOOPBACK, "fetch.part.min", "4M")) {
      try (SlipstreamInputStream in = client.open("s3://" + BUCKET + "/data")) {
        readAllAndVerify(in);
        List<long[]> ranges = getRanges();
        assertThat(ranges.subList(0, 2)).extracting(r -> r[0] + "-" + r[1])
            .containsExactly("0-4194304", "4194304-8388608");
        // a GET shorter than 4 MiB is a whole block: the object's short last one
        assertThat(ranges).filteredOn(r -> r[1] - r[0] < 4 * MIB).extracting(r -> r[0] + "-" + r[1])
            .containsExactly((SIZE / (8 * MIB) * 8 * MIB) + "-" + SIZE);
      }
    }
  }

  @Test
  void aReaderAheadOfTheLinkGetsWholeBlocks() throws Exception {
    // 24 blocks of 4 MiB; a reader that takes a while over each block finds the next ones there: once a
    // whole window was there, blocks fetched ahead are one GET each, even where the window reaches the end
    long size = 24L * 4 * MIB;
    S3.server().putGenerated(BUCKET, "slow-reader", 12, size);
    try (Slipstream client = client(LinkProfile.LOOPBACK, "block.size", "4M", "prefetch.blocks", "4")) {
      try (SlipstreamInputStream in = client.open("s3://" + BUCKET + "/slow-reader")) {
        byte[] block = new byte[4 * MIB];
        for (long at = 0; at < size; at += block.length) {
          in.readNBytes(block, 0, block.length);
          assertThat(TestData.firstMismatch(12, at, block, 0, block.length)).as("first wrong byte").isEqualTo(-1);
          Thread.sleep(50); // decoding, say: the link is faster
        }
        List<long[]> ranges = getRanges();
        // the first block, which the reader waits for, and the two fetched ahead while the depth is 2, below
        // the cap: two parts each
        assertThat(ranges.subList(0, 6)).extracting(r -> r[1] - r[0]).containsOnly(2L * MIB);
        assertThat(ranges.subList(6, ranges.size())).as("blocks 3 to 23").extracting(r -> r[1] - r[0])
            .containsOnly(4L * MIB).hasSize(21);
        assertThat(in.statistics().get(Counter.BLOCKS_IN_PARTS)).isEqualTo(3);
      }
    }
  }

  @Test
  void aPartCutMidBodyIsRetriedAloneForItsMissingBytes() throws IOException {
    try (Slipstream client = client(LinkProfile.LOOPBACK)) {
      shaper.injectNext(FaultKind.TRUNCATE, getFrom(4L * MIB));
      try (SlipstreamInputStream in = client.open("s3://" + BUCKET + "/data")) {
        readAllAndVerify(in);
        assertThat(in.statistics().get(Counter.RETRIES)).isEqualTo(1);
        assertThat(in.statistics().get(Counter.BYTES_FETCHED)).isEqualTo(SIZE);
      }
      assertThat(shaper.faultsInjected(FaultKind.TRUNCATE)).isEqualTo(1);
    }
  }

  /** The first part (read by the block's own thread) or the last (by another) fails; the others stop. */
  @ParameterizedTest
  @ValueSource(ints = {0, 3})
  void aPartThatFailsForGoodFailsTheReadWithItsErrorAndLeavesNothingRunning(int part) throws Exception {
    long from = part * 2L * MIB;
    try (Slipstream client = client(LinkProfile.LOOPBACK, "retry.max", "1")) {
      shaper.injectNext(FaultKind.STATUS_503, getFrom(from));
      shaper.injectNext(FaultKind.STATUS_503, getFrom(from));
      try (SlipstreamInputStream in = client.open("s3://" + BUCKET + "/data")) {
        assertThatThrownBy(() -> in.readNBytes(8 * MIB)).isInstanceOf(IOException.class)
            .hasMessageContaining("s3://" + BUCKET + "/data")
            .hasMessageContaining("bytes " + from + "-" + (from + 2 * MIB - 1)).hasMessageContaining("2 attempts");
      }
      assertThat(client.memoryInUse()).isZero();
      LeakTest.eventually("no request in flight", () -> shaper.activeRequests() == 0);
    }
  }

  @Test
  void closingAStreamStopsEveryPartInFlight() throws Exception {
    // 2 MiB at 512 KB/s a connection: each part takes four seconds, so at close all are mid-body
    LinkProfile slow = LinkProfile.S3_LIKE.withBandwidth(512_000, 16_000_000);
    long threadsBefore = LeakTest.fetchThreads();
    try (Slipstream client = client(slow)) {
      SlipstreamInputStream in = client.open("s3://" + BUCKET + "/data");
      AtomicReference<Throwable> ended = new AtomicReference<>();
      Thread reader = new Thread(() -> {
        try {
          in.read();
          ended.set(new AssertionError("the read returned although its stream was closed"));
        } catch (Throwable t) {
          ended.set(t);
        }
      });
      reader.start();
      // four parts of each of the first two blocks (and, once the JVM knows fast latencies, their hedges)
      LeakTest.eventually("both blocks' parts in flight", () -> shaper.activeRequests() >= 8);
      in.close();
      reader.join(30_000);
      assertThat(reader.isAlive()).isFalse();
      assertThat(ended.get()).isInstanceOf(IOException.class).hasMessageContaining("s3://" + BUCKET + "/data");
      assertThat(client.memoryInUse()).isZero();
      LeakTest.eventually("no request in flight", () -> shaper.activeRequests() == 0);
      assertThat(shaper.bytesSent()).as("bodies aborted, not drained").isLessThan(16L * MIB);
    }
    LeakTest.eventually("the client's fetch threads ended", () -> LeakTest.fetchThreads() <= threadsBefore);
  }
}
