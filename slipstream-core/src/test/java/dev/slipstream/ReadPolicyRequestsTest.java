/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream;

import static org.assertj.core.api.Assertions.assertThat;

import dev.slipstream.testkit.LinkProfile;
import dev.slipstream.testkit.LinkShaper;
import dev.slipstream.testkit.RequestInfo;
import dev.slipstream.testkit.S3ServerExtension;
import dev.slipstream.testkit.TestData;
import java.io.IOException;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The exact requests each read policy makes for what a Parquet reader does: the footer (its length
 * and magic in the last 8 bytes, then the footer before them), then two column chunks. Requests are
 * read off the wire, from a link shaper between the client and the server.
 */
@Timeout(120)
class ReadPolicyRequestsTest {
  @RegisterExtension static final S3ServerExtension S3 = new S3ServerExtension();
  static final String BUCKET = "policies";
  static final int BLOCK = 1 << 20;
  /** Six blocks and a bit. */
  static final long BIG = 6L * BLOCK + 777;
  /** Less than a block. */
  static final long ONE = 700 * 1024 + 3;
  static final int FOOTER = 6_000;
  static LinkShaper shaper;
  static Slipstream client;

  @BeforeAll
  static void setUp() {
    S3.server().createBucket(BUCKET);
    S3.server().putGenerated(BUCKET, "big.parquet", 41, BIG);
    S3.server().putGenerated(BUCKET, "one.parquet", 42, ONE);
    shaper = LinkShaper.start(S3.server().endpoint(), LinkProfile.LOOPBACK, 3);
    client = Slipstream.builder().isolatedResources()
        .config(TestClients.config(shaper.endpoint()).set("block.size", "1M").set("memory.max", "32M").build())
        .build();
  }

  @AfterAll
  static void tearDown() {
    client.close();
    shaper.close();
  }

  @BeforeEach
  void forget() {
    shaper.clearRequestLog();
  }

  /** Footer, then a chunk of 300,000 bytes at 1,000,000 and one of 1.5 MiB at 3 MiB + 5. */
  private List<String> parquetReads(String key, long size, long seed, ReadPolicy policy) throws IOException {
    long a = 1_000_000;
    int aLen = 300_000;
    long b = 3L * BLOCK + 5;
    int bLen = BLOCK + BLOCK / 2;
    try (SlipstreamInputStream in = open(key, size, policy)) {
      for (int i = 0; i < 4; i++) {
        readAt(in, seed, size - 8 + i, 1); // the footer's length, a byte at a time
      }
      readAt(in, seed, size - 4, 4); // the magic
      readAt(in, seed, size - 8 - FOOTER, FOOTER);
      if (size > b + bLen) {
        readAt(in, seed, a, aLen);
        readAt(in, seed, b, bLen);
      } else {
        readAt(in, seed, 1000, 20_000);
        readAt(in, seed, 300_000, 100_000);
      }
    }
    return ranges(key);
  }

  @Test
  void aColumnarPolicyFetchesTheTailThenExactlyTheChunks() throws IOException {
    long b = 3L * BLOCK + 5;
    int half = (BLOCK + BLOCK / 2) / 2; // a range over 1 MiB goes in two parallel parts
    assertThat(parquetReads("big.parquet", BIG, 41, ReadPolicy.RANDOM)).containsExactlyInAnyOrder(
        range(BIG - tail(BIG), BIG - 1),
        range(1_000_000, 1_000_000 + 300_000 - 1),
        range(b, b + half - 1),
        range(b + half, b + 2L * half - 1));
  }

  @Test
  void noPolicyAndAFirstReadAtTheTailReadsAsColumnar() throws IOException {
    List<String> adaptive = parquetReads("big.parquet", BIG, 41, ReadPolicy.ADAPTIVE);
    forget();
    List<String> columnar = parquetReads("big.parquet", BIG, 41, ReadPolicy.RANDOM);
    assertThat(adaptive).hasSize(4).containsExactlyInAnyOrderElementsOf(columnar);
  }

  @Test
  void aColumnarReadOfAnObjectOfOneBlockIsNotAWholeObjectFetch() throws IOException {
    for (ReadPolicy policy : new ReadPolicy[] {ReadPolicy.RANDOM, ReadPolicy.ADAPTIVE}) {
      forget();
      assertThat(parquetReads("one.parquet", ONE, 42, policy)).as("%s", policy).containsExactly(
          range(ONE - tail(ONE), ONE - 1),
          range(1000, 1000 + 64 * 1024 - 1), // a read of 20,000 bytes: no GET under 64 KiB
          range(300_000, 300_000 + 100_000 - 1));
    }
  }

  @Test
  void theSequentialPolicyKeepsReadingBlocks() throws IOException {
    // Not ranges: a small read after a jump fetches its bytes and 64 KiB more; a large one the blocks it
    // spans. (Its full prefetch depth from the first byte is ReadPatternTest's.)
    long b = 3L * BLOCK + 5;
    assertThat(parquetReads("big.parquet", BIG, 41, ReadPolicy.SEQUENTIAL)).containsExactlyInAnyOrder(
        range(BIG - tail(BIG), BIG - 1),
        range(1_000_000, 1_000_000 + 300_000 + 64 * 1024 - 1),
        range(3L * BLOCK, 4L * BLOCK - 1),
        range(4L * BLOCK, 5L * BLOCK - 1));
  }

  @Test
  void aColumnarStreamWhoseReadsProveSequentialStartsPrefetchingAndCountsTheSwitch() throws IOException {
    int read = 64 * 1024;
    long switches = client.statistics().get(Counter.SEQUENTIAL_SWITCHES);
    try (SlipstreamInputStream in = open("big.parquet", BIG, ReadPolicy.RANDOM)) {
      for (long p = 0; p < 3L * BLOCK; p += read) {
        readAt(in, 41, p, read);
      }
      assertThat(in.statistics().get(Counter.SEQUENTIAL_SWITCHES)).isEqualTo(1);
      assertThat(in.statistics().get(Counter.PREFETCH_USED)).isPositive();
    }
    assertThat(client.statistics().get(Counter.SEQUENTIAL_SWITCHES) - switches).isEqualTo(1);
    // Two exact reads (128 KiB: an eighth of a block) proved it; then whole blocks from the one being read.
    List<String> ranges = ranges("big.parquet");
    assertThat(ranges.subList(0, 2)).containsExactly(range(0, read - 1), range(read, 2L * read - 1));
    assertThat(ranges).contains(range(0, BLOCK - 1), range(BLOCK, 2L * BLOCK - 1));
  }

  @Test
  void aColumnarRangeReadInSmallPiecesCostsAFewRequestsAndAtMostTwiceItsBytes() throws IOException {
    try (SlipstreamInputStream in = open("big.parquet", BIG, ReadPolicy.RANDOM)) {
      in.seek(300_000);
      check(41, 300_000, in.readNBytes(100_000)); // in reads of 8 KiB
      ReadStatistics s = in.statistics();
      // 64 KiB (no GET is smaller), then as much again as the run has read: 64 KiB.
      assertThat(s.get(Counter.GET_REQUESTS)).isEqualTo(2);
      assertThat(s.get(Counter.BYTES_FETCHED)).isEqualTo(128 * 1024).isLessThan(2 * 100_000);
    }
  }

  /** One read call of {@code len} bytes at {@code at} through the stream, as Parquet's readFully makes. */
  private static void readAt(SlipstreamInputStream in, long seed, long at, int len) throws IOException {
    in.seek(at);
    byte[] b = new byte[len];
    assertThat(in.readNBytes(b, 0, len)).isEqualTo(len);
    check(seed, at, b);
  }

  private SlipstreamInputStream open(String key, long size, ReadPolicy policy) throws IOException {
    return client.open(S3Location.parse("s3://" + BUCKET + "/" + key), OpenOptions.length(size).withPolicy(policy));
  }

  /** The Range headers of the GETs of {@code key} since the last {@link #forget()}, in order. */
  private static List<String> ranges(String key) {
    return shaper.requestLog().stream()
        .filter(r -> r.isGet() && r.path().endsWith("/" + key))
        .map(RequestInfo::range)
        .toList();
  }

  /** The tail a first read at the end fetches: 1/512 of the object, 8 KiB to a quarter block. */
  private static long tail(long size) {
    return Math.min(size, Math.max(8 * 1024, Math.min(size / 512, BLOCK / 4)));
  }

  private static String range(long first, long last) {
    return "bytes=" + first + "-" + last;
  }

  private static void check(long seed, long at, byte[] b) {
    assertThat(TestData.firstMismatch(seed, at, b, 0, b.length)).as("bytes at %d", at).isEqualTo(-1);
  }
}
