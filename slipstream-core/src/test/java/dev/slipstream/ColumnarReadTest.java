/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.slipstream.testkit.S3ServerExtension;
import dev.slipstream.testkit.TestData;
import java.io.EOFException;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * What columnar access patterns cost, counted: footer reads, tiny reads after a jump, objects smaller
 * than a block, and asynchronous (vectored) range reads.
 */
@Timeout(120)
class ColumnarReadTest {
  @RegisterExtension static final S3ServerExtension S3 = new S3ServerExtension();
  static final String BUCKET = "columnar";
  static final int BLOCK = 1 << 20;
  static final long SIZE = 12L * BLOCK + 4321;
  static final int SMALL = 300 * 1024 + 7;
  /** The tail a first read at the end fetches: 1/512 of the object (at least 8 KiB, at most a quarter block). */
  static final int TAIL = (int) Math.max(8 << 10, Math.min(SIZE / 512, BLOCK / 4));
  static final int READAHEAD = 64 * 1024;
  static Slipstream client;

  @BeforeAll
  static void setUp() {
    S3.server().createBucket(BUCKET);
    S3.server().putGenerated(BUCKET, "table.parquet", 21, SIZE);
    S3.server().putGenerated(BUCKET, "small", 22, SMALL);
    client = Slipstream.builder().isolatedResources()
        .config(TestClients.config(S3.server()).set("block.size", "1M").set("memory.max", "32M").build())
        .build();
  }

  @AfterAll
  static void tearDown() {
    client.close();
  }

  private SlipstreamInputStream open(String key, long length) throws IOException {
    return client.open(S3Location.parse("s3://" + BUCKET + "/" + key), OpenOptions.length(length));
  }

  private static void check(long seed, long at, byte[] b) {
    assertThat(TestData.firstMismatch(seed, at, b, 0, b.length)).as("bytes at %d", at).isEqualTo(-1);
  }

  @Test
  void footerReadsAtTheEndCostOneRequestForATailSizedFromTheLength() throws IOException {
    try (SlipstreamInputStream in = open("table.parquet", SIZE)) {
      // As Parquet does: the footer length and magic in the last 8 bytes, then the footer before them.
      in.seek(SIZE - 8);
      byte[] len = in.readNBytes(4);
      byte[] magic = in.readNBytes(4);
      check(21, SIZE - 8, len);
      check(21, SIZE - 4, magic);
      int footer = 20_000;
      in.seek(SIZE - 8 - footer);
      byte[] meta = in.readNBytes(footer);
      check(21, SIZE - 8 - footer, meta);
      ReadStatistics s = in.statistics();
      assertThat(s.get(Counter.GET_REQUESTS)).isEqualTo(1);
      assertThat(s.get(Counter.BYTES_FETCHED)).isEqualTo(TAIL);
      assertThat(s.get(Counter.PREFETCH_USED) + s.get(Counter.PREFETCH_WASTED)).isZero();
    }
  }

  @Test
  void tinyReadsAfterAJumpDoNotPullBlocksBehindThem() throws IOException {
    long at = 5L * BLOCK + 123;
    try (SlipstreamInputStream in = open("table.parquet", SIZE)) {
      in.seek(at);
      long p = at;
      for (int i = 0; i < 200; i++) { // 200 record headers of 10 bytes: 2,000 bytes in order
        byte[] b = in.readNBytes(10);
        check(21, p, b);
        p += 10;
      }
      ReadStatistics s = in.statistics();
      // One request (a hedge, sent when the machine is slow, repeats it: not another request)
      assertThat(s.get(Counter.GET_REQUESTS) - s.get(Counter.HEDGED_REQUESTS)).isEqualTo(1);
      assertThat(s.get(Counter.BYTES_FETCHED)).isEqualTo(10 + READAHEAD);
    }
  }

  @Test
  void readingOnPastTheReadaheadBecomesASequentialRun() throws IOException {
    long at = 3L * BLOCK + 999;
    try (SlipstreamInputStream in = open("table.parquet", SIZE)) {
      in.seek(at);
      byte[] first = in.readNBytes(100);
      check(21, at, first);
      byte[] rest = in.readNBytes(3 * BLOCK);
      check(21, at + 100, rest);
      assertThat(in.statistics().get(Counter.PREFETCH_USED)).isPositive();
    }
  }

  @Test
  void anObjectSmallerThanABlockReadFromItsStartIsFetchedWholeInOneRequest() throws IOException {
    try (SlipstreamInputStream in = open("small", SMALL)) {
      check(22, 0, in.readNBytes(100));
      byte[] a = new byte[100];
      in.readFully(200_000, a, 0, a.length);
      check(22, 200_000, a);
      in.seek(17);
      check(22, 17, in.readNBytes(5000));
      in.seek(SMALL - 8);
      check(22, SMALL - 8, in.readNBytes(8));
      assertThat(in.statistics().get(Counter.GET_REQUESTS)).isEqualTo(1);
      assertThat(in.statistics().get(Counter.BYTES_FETCHED)).isEqualTo(SMALL);
    }
  }

  @Test
  void anObjectSmallerThanABlockReadFooterFirstFetchesItsTailThenRangesOfAtLeast64KiB() throws IOException {
    try (SlipstreamInputStream in = open("small", SMALL)) {
      in.seek(SMALL - 8);
      check(22, SMALL - 8, in.readNBytes(8));
      in.seek(SMALL - 8 - 6_000); // the footer, inside the tail already fetched
      check(22, SMALL - 8 - 6_000, in.readNBytes(6_000));
      byte[] chunk = new byte[20_000]; // two column chunks, each read in one call as Parquet does
      in.seek(1000);
      in.readNBytes(chunk, 0, chunk.length);
      check(22, 1000, chunk);
      chunk = new byte[50_000];
      in.seek(100_000);
      in.readNBytes(chunk, 0, chunk.length);
      check(22, 100_000, chunk);
      ReadStatistics s = in.statistics();
      assertThat(s.get(Counter.GET_REQUESTS)).isEqualTo(3);
      // No GET under 64 KiB (a round trip costs more), none of a block.
      assertThat(s.get(Counter.BYTES_FETCHED)).isEqualTo(8 * 1024 + 2 * 64 * 1024);
    }
  }

  @Test
  void asyncRangeReadsFetchExactlyTheirBytesInParallelParts() throws Exception {
    long[] at = {100_000, 4L * BLOCK + 5, 8L * BLOCK + 77};
    int[] len = {BLOCK + BLOCK / 2, 10_000, 3 * BLOCK};
    try (SlipstreamInputStream in = open("table.parquet", SIZE)) {
      List<CompletableFuture<Void>> futures = new ArrayList<>();
      List<byte[]> buffers = new ArrayList<>();
      for (int i = 0; i < at.length; i++) {
        byte[] b = new byte[len[i] + 10];
        buffers.add(b);
        futures.add(in.readFullyAsync(at[i], b, 10, len[i]));
      }
      for (int i = 0; i < at.length; i++) {
        futures.get(i).get();
        assertThat(TestData.firstMismatch(21, at[i], buffers.get(i), 10, len[i])).isEqualTo(-1);
      }
      ReadStatistics s = in.statistics();
      // Ranges of up to 1 MiB per part: 2 + 1 + 3 GETs, and not a byte more than asked for.
      assertThat(s.get(Counter.GET_REQUESTS)).isEqualTo(6);
      assertThat(s.get(Counter.BYTES_FETCHED)).isEqualTo((long) len[0] + len[1] + len[2]);
      assertThat(s.get(Counter.BYTES_READ)).isEqualTo((long) len[0] + len[1] + len[2]);
    }
  }

  @Test
  void asyncRangeReadsTakeBlocksAlreadyInMemory() throws Exception {
    try (SlipstreamInputStream in = client.open(S3Location.parse("s3://" + BUCKET + "/table.parquet"),
        OpenOptions.length(SIZE).withPolicy(ReadPolicy.SEQUENTIAL))) {
      check(21, 0, in.readNBytes(1000)); // block 0 is in memory now
      long gets = in.statistics().get(Counter.GET_REQUESTS);
      long fromMemory = in.statistics().get(Counter.BYTES_FROM_MEMORY);
      byte[] b = new byte[50_000];
      in.readFullyAsync(2000, b, 0, b.length).get();
      check(21, 2000, b);
      assertThat(in.statistics().get(Counter.BYTES_FROM_MEMORY) - fromMemory).isEqualTo(b.length);
      // Prefetches may have started meanwhile, but the range itself asked for nothing.
      assertThat(in.statistics().get(Counter.DIRECT_READS)).isZero();
      assertThat(in.statistics().get(Counter.GET_REQUESTS)).isGreaterThanOrEqualTo(gets);
    }
  }

  @Test
  void asyncRangeReadsPastTheEndFailWithEof() throws IOException {
    try (SlipstreamInputStream in = open("table.parquet", SIZE)) {
      CompletableFuture<Void> f = in.readFullyAsync(SIZE - 10, new byte[20], 0, 20);
      assertThatThrownBy(f::get).isInstanceOf(ExecutionException.class).hasCauseInstanceOf(EOFException.class)
          .hasMessageContaining("past the end");
    }
  }
}
