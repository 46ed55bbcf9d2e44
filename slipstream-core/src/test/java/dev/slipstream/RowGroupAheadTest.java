/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream;

import static org.assertj.core.api.Assertions.assertThat;

import dev.slipstream.internal.block.HeapRegions;
import dev.slipstream.internal.parquet.ParquetTestFiles;
import dev.slipstream.internal.source.RangeThrough;
import dev.slipstream.testkit.S3ServerExtension;
import java.io.IOException;
import java.util.Arrays;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Parquet row groups read ahead, on an object laid out as a Parquet file ({@link ParquetTestFiles}: row
 * groups of column chunks, then a footer written field by field, its length and {@code PAR1}).
 */
@Timeout(120)
class RowGroupAheadTest {
  @RegisterExtension static final S3ServerExtension S3 = new S3ServerExtension();
  static final String BUCKET = "row-groups";
  static final int GROUPS = 5;
  static final int COLUMNS = 4;
  static final int CHUNK = 300_000;
  static byte[] data;
  static Slipstream client;

  @BeforeAll
  static void setUp() throws IOException {
    S3.server().createBucket(BUCKET);
    data = ParquetTestFiles.file(GROUPS, COLUMNS, CHUNK, 100, 0, 9);
    S3.server().putObject(BUCKET, "t.parquet", data);
    S3.server().putObject(BUCKET, "not-parquet", Arrays.copyOf(data, data.length - 1));
    client = Slipstream.builder().isolatedResources().config(TestClients.config(S3.server())
        .set("block.size", "4M").set("memory.max", "64M").build()).build();
  }

  @AfterAll
  static void tearDown() {
    client.close();
  }

  static long chunkStart(int group, int column) {
    return 4 + ((long) group * COLUMNS + column) * CHUNK;
  }

  /** The footer's tail a stream fetches first: 1/512 of the object, at least 8 KiB. */
  static long tail() {
    return Math.min(data.length, Math.max(8 << 10, data.length / 512));
  }

  /** A stream of {@code t.parquet} that has read the footer's length and magic, as a Parquet reader does. */
  static SlipstreamInputStream openAfterFooter(Slipstream c) throws IOException {
    SlipstreamInputStream in = c.open(S3Location.parse("s3://" + BUCKET + "/t.parquet"),
        OpenOptions.length(data.length));
    in.seek(data.length - 8);
    in.readNBytes(8);
    return in;
  }

  /** An asynchronous read of {@code [start, start + len)}, its bytes checked. */
  static void readChecked(SlipstreamInputStream in, long start, int len) throws Exception {
    byte[] b = new byte[len];
    in.readFullyAsync(start, b, 0, len).get();
    assertThat(b).as("bytes %d-%d", start, start + len - 1)
        .isEqualTo(Arrays.copyOfRange(data, (int) start, (int) start + len));
  }

  /** What a Parquet reader does: read the footer, then per row group the chunks of columns 1 and 2. */
  @Test
  void theNextRowGroupsChunksAreFetchedWhileOneIsReadAndEveryByteIsRight() throws Exception {
    try (SlipstreamInputStream in = openAfterFooter(client)) {
      for (int g = 0; g < GROUPS; g++) {
        readChecked(in, chunkStart(g, 1), 2 * CHUNK);
      }
      ReadStatistics s = in.statistics();
      // Each row group's two chunks ahead, in pieces G1 does not make humongous (one at regions of 2 MiB on).
      int piece = HeapRegions.current().largestOrdinary(4 << 20);
      long pieces = (GROUPS - 1) * ((2L * CHUNK + piece - 1) / piece);
      assertThat(s.get(Counter.ROW_GROUP_AHEAD_STARTED)).isEqualTo(pieces);
      assertThat(s.get(Counter.ROW_GROUP_AHEAD_USED)).isEqualTo(pieces);
      // The footer's tail, then each row group's two chunks once: nothing fetched twice.
      assertThat(s.get(Counter.BYTES_FETCHED)).isEqualTo(tail() + (long) GROUPS * 2 * CHUNK);
    }
    assertThat(client.memoryInUse()).isZero();
  }

  /**
   * A full scan's row group ahead (1.2 MB) is held in pieces below half a G1 region (448 KiB at the
   * build's -Xmx2g), yet fetched with the GETs of one range of its length (the parts of {@link
   * RangeThrough#PART}), not one GET a piece.
   */
  @Test
  void aRowGroupAheadInSmallPiecesCostsTheGetsOfOneRange() throws Exception {
    int group = COLUMNS * CHUNK;
    int piece = HeapRegions.current().largestOrdinary(4 << 20);
    assertThat(piece).as("this JVM's heap cuts a row group into several pieces").isLessThan(group);
    // A client of its own: what it learns of this schema (every column read) is no other test's.
    try (Slipstream own = Slipstream.builder().isolatedResources().config(TestClients.config(S3.server())
            .set("block.size", "4M").set("memory.max", "64M").build()).build();
        SlipstreamInputStream in = openAfterFooter(own)) {
      for (int g = 0; g < GROUPS; g++) {
        readChecked(in, chunkStart(g, 0), group);
      }
      ReadStatistics s = in.statistics();
      assertThat(s.get(Counter.ROW_GROUP_AHEAD_STARTED)).isEqualTo((GROUPS - 1) * ((group + piece - 1) / piece));
      assertThat(s.get(Counter.ROW_GROUP_AHEAD_USED)).isEqualTo(s.get(Counter.ROW_GROUP_AHEAD_STARTED));
      // The footer's tail, then each row group in the parts of one range, whether the reader or the
      // read-ahead fetched it.
      int parts = (group + RangeThrough.PART - 1) / RangeThrough.PART;
      assertThat(s.get(Counter.GET_REQUESTS)).isEqualTo(1 + (long) GROUPS * parts);
      // Every byte but the leading magic, once (the tail holds the end of the last row group).
      assertThat(s.get(Counter.BYTES_FETCHED)).isEqualTo(data.length - 4);
    }
  }

  @Test
  void aReaderThatGoesElsewhereWastesAtMostOneRowGroupAndGivesTheMemoryBack() throws Exception {
    try (SlipstreamInputStream in = openAfterFooter(client)) {
      readChecked(in, chunkStart(0, 3), CHUNK); // column 3 of row group 0
      readChecked(in, chunkStart(3, 0), CHUNK); // then elsewhere: row group 3, column 0
      assertThat(in.statistics().get(Counter.ROW_GROUP_AHEAD_WASTED)).isEqualTo(1);
      assertThat(in.statistics().get(Counter.ROW_GROUP_AHEAD_USED)).isZero();
    }
    assertThat(client.memoryInUse()).isZero();
  }

  /**
   * A full scan asks for each row group whole, in one range (1.2 MB here, 20 blocks' worth of 4 MiB at
   * full size): the next row group is fetched ahead in pieces of a block, and each read copies them.
   */
  @Test
  void aRowGroupLargerThanABlockIsFetchedAheadInBlockPiecesAndNothingTwice() throws Exception {
    try (Slipstream small = smallBlocks("16")) {
      ReadStatistics s = readWholeRowGroups(small);
      // Row group 1: two pieces, planned while only row group 0 was read; then whole row groups.
      int pieces = (COLUMNS * CHUNK + SMALL_BLOCK - 1) / SMALL_BLOCK;
      assertThat(s.get(Counter.ROW_GROUP_AHEAD_STARTED)).isEqualTo(2 + (GROUPS - 2) * pieces);
      assertThat(s.get(Counter.ROW_GROUP_AHEAD_USED)).isEqualTo(2 + (GROUPS - 2) * pieces);
      assertThat(s.get(Counter.ROW_GROUP_AHEAD_WASTED)).isZero();
      assertThat(small.memoryInUse()).isZero();
    }
  }

  /**
   * Two blocks ahead at most (prefetch.blocks=2) and row groups of five: the reader copies what came
   * ahead and fetches the rest itself, each byte once; the plan goes on as copied pieces free memory.
   */
  @Test
  void aBoundBelowARowGroupFetchesPartAheadAndTheReaderTheRestEachByteOnce() throws Exception {
    try (Slipstream small = smallBlocks("2")) {
      ReadStatistics s = readWholeRowGroups(small);
      assertThat(s.get(Counter.ROW_GROUP_AHEAD_STARTED)).isPositive();
      assertThat(s.get(Counter.ROW_GROUP_AHEAD_SKIPPED)).isPositive();
      assertThat(s.get(Counter.ROW_GROUP_AHEAD_WASTED)).isZero();
      assertThat(small.memoryInUse()).isZero();
    }
  }

  /**
   * A Spark task often gets one row group of a file: it reads the footer and that row group, and what
   * was fetched of the next would be wasted, so nothing is (but for row group 0, see below).
   */
  @Test
  void aStreamThatReadsOneRowGroupFetchesNothingAhead() throws Exception {
    try (SlipstreamInputStream in = openAfterFooter(client)) {
      readChecked(in, chunkStart(2, 0), COLUMNS * CHUNK);
      assertThat(in.statistics().get(Counter.ROW_GROUP_AHEAD_STARTED)).isZero();
      assertThat(in.statistics().get(Counter.BYTES_FETCHED)).isEqualTo(tail() + COLUMNS * CHUNK);
    }
  }

  /** Row group 0 alone, whole: two blocks of row group 1 ahead, no more, given back at close. */
  @Test
  void theFirstRowGroupAlonePlansTwoBlocksOfTheNext() throws Exception {
    try (Slipstream small = smallBlocks("16")) {
      try (SlipstreamInputStream in = openAfterFooter(small)) {
        readChecked(in, chunkStart(0, 0), COLUMNS * CHUNK);
        assertThat(in.statistics().get(Counter.ROW_GROUP_AHEAD_STARTED)).isEqualTo(2);
      }
      assertThat(small.memoryInUse()).isZero();
    }
  }

  /**
   * What row groups fetched ahead hold is memory the pool may take back. One thread reads a file's row
   * groups, under a budget that its pieces ahead and its tail fill to less than a block; then it opens
   * another object and reads it from the start, which needs a block buffer only the pool can give. Held
   * for good, the pieces would make it wait for memory that only this thread's later reads would free.
   */
  @Test
  void piecesAheadAreMemoryThePoolTakesBackSoAnotherStreamOnTheSameThreadProceeds() {
    // The tail (64 KiB), four pieces of a block (the bound: prefetch.blocks=4), and 128 KiB to spare.
    try (Slipstream tight = Slipstream.builder().isolatedResources().config(TestClients.config(S3.server())
        .set("block.size", String.valueOf(SMALL_BLOCK)).set("memory.max", String.valueOf((64 + 4 * 256 + 128) << 10))
        .set("prefetch.blocks", "4").set("cache.memory", "false").build()).build()) {
      org.junit.jupiter.api.Assertions.assertTimeoutPreemptively(java.time.Duration.ofSeconds(60), () -> {
        try (SlipstreamInputStream a = openAfterFooter(tight)) {
          readChecked(a, chunkStart(0, 0), COLUMNS * CHUNK);
          readChecked(a, chunkStart(1, 0), COLUMNS * CHUNK); // in a row: row group 2 is fetched ahead
          assertThat(a.statistics().get(Counter.ROW_GROUP_AHEAD_STARTED)).as("pieces fetched ahead")
              .isEqualTo(2 + 4);
          try (SlipstreamInputStream c = tight.open(S3Location.parse("s3://" + BUCKET + "/t.parquet"),
              OpenOptions.length(data.length))) {
            byte[] first = c.readNBytes(SMALL_BLOCK + 1000);
            assertThat(first).isEqualTo(Arrays.copyOf(data, first.length));
          }
          for (int g = 2; g < GROUPS; g++) { // what the pool took back is fetched again: every byte right
            readChecked(a, chunkStart(g, 0), COLUMNS * CHUNK);
          }
        }
      });
      assertThat(tight.memoryInUse()).isZero();
    }
  }

  @Test
  void noPrefetchMeansNoRowGroupAhead() throws Exception {
    try (Slipstream small = smallBlocks("0")) {
      ReadStatistics s = readWholeRowGroups(small);
      assertThat(s.get(Counter.ROW_GROUP_AHEAD_STARTED)).isZero();
    }
  }

  static final int SMALL_BLOCK = 256 << 10;

  static Slipstream smallBlocks(String prefetchBlocks) {
    return Slipstream.builder().isolatedResources().config(TestClients.config(S3.server())
        .set("block.size", String.valueOf(SMALL_BLOCK)).set("memory.max", "64M")
        .set("prefetch.blocks", prefetchBlocks).build()).build();
  }

  /**
   * Reads the footer, then every row group whole as one range, checking every byte and that nothing was
   * fetched twice; the stream's statistics.
   */
  static ReadStatistics readWholeRowGroups(Slipstream c) throws Exception {
    try (SlipstreamInputStream in = openAfterFooter(c)) {
      for (int g = 0; g < GROUPS; g++) {
        readChecked(in, chunkStart(g, 0), COLUMNS * CHUNK);
      }
      ReadStatistics s = in.statistics();
      // Every byte from the first chunk to the end, once: the tail's part of the last chunk is copied from it.
      assertThat(s.get(Counter.BYTES_FETCHED)).isEqualTo(data.length - 4);
      return s;
    }
  }

  @Test
  void anObjectThatIsNotParquetGetsNoGuesses() throws Exception {
    int length = data.length - 1;
    try (SlipstreamInputStream in = client.open(S3Location.parse("s3://" + BUCKET + "/not-parquet"),
        OpenOptions.length(length))) {
      in.seek(length - 8);
      in.readNBytes(8);
      byte[] b = new byte[2 * CHUNK];
      for (int g = 0; g < 3; g++) {
        in.readFullyAsync(chunkStart(g, 1), b, 0, b.length).get();
      }
      assertThat(in.statistics().get(Counter.ROW_GROUP_AHEAD_STARTED)).isZero();
    }
  }
}
