/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream;

import static org.assertj.core.api.Assertions.assertThat;

import dev.slipstream.internal.block.HeapRegions;
import dev.slipstream.internal.parquet.ParquetTestFiles;
import dev.slipstream.testkit.LinkProfile;
import dev.slipstream.testkit.LinkShaper;
import dev.slipstream.testkit.RequestInfo;
import dev.slipstream.testkit.S3ServerExtension;
import java.io.IOException;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The rest of a projection fetched at once, as Arrow's pre-buffer does: once a stream knows the columns
 * its reader takes, the same columns' chunks of every later row group are requested together, within the
 * stream's bound, and none past the caller's split. On an object laid out as a Parquet file ({@link
 * ParquetTestFiles}), read as parquet-java reads 2 of 4 columns (one vectored range a row group), the GETs
 * seen on the wire through a loopback link.
 */
@Timeout(120)
class ProjectionAheadTest {
  @RegisterExtension static final S3ServerExtension S3 = new S3ServerExtension();
  static final String BUCKET = "projection";
  static final int GROUPS = 6;
  static final int COLUMNS = 4;
  static final int CHUNK = 300_000;
  static final int BLOCK = 4 << 20;
  static byte[] data;
  static LinkShaper shaper;

  @BeforeAll
  static void setUp() throws IOException {
    S3.server().createBucket(BUCKET);
    data = ParquetTestFiles.file(GROUPS, COLUMNS, CHUNK, 100, 0, 11);
    S3.server().putObject(BUCKET, "t.parquet", data);
    shaper = LinkShaper.start(S3.server().endpoint(), LinkProfile.LOOPBACK, 5);
  }

  @AfterAll
  static void tearDown() {
    shaper.close();
  }

  @BeforeEach
  void forget() {
    shaper.clearRequestLog();
  }

  static Slipstream newClient() {
    return Slipstream.builder().isolatedResources().config(TestClients.config(shaper.endpoint())
        .set("block.size", String.valueOf(BLOCK)).set("memory.max", "64M").build()).build();
  }

  static long chunkStart(int group, int column) {
    return 4 + ((long) group * COLUMNS + column) * CHUNK;
  }

  /** Pieces of a run of columns 1 and 2 of one row group (in pieces G1 does not make humongous). */
  static long piecesOfARun() {
    int piece = HeapRegions.current().largestOrdinary(BLOCK);
    return (2L * CHUNK + piece - 1) / piece;
  }

  static SlipstreamInputStream openAfterFooter(Slipstream c, OpenOptions options) throws IOException {
    SlipstreamInputStream in = c.open(S3Location.parse("s3://" + BUCKET + "/t.parquet"), options);
    in.seek(data.length - 8);
    in.readNBytes(8);
    return in;
  }

  /** Row group {@code g}'s chunks of columns 1 and 2, as one vectored range, its bytes checked. */
  static void readColumns(SlipstreamInputStream in, int g) throws Exception {
    long start = chunkStart(g, 1);
    byte[] b = new byte[2 * CHUNK];
    in.readFullyAsync(start, b, 0, b.length).get();
    assertThat(b).as("row group %d", g).isEqualTo(Arrays.copyOfRange(data, (int) start, (int) start + b.length));
  }

  /** The GETs sent for the object, as {@code [first, last]} byte pairs, the footer's tail left out. */
  static List<long[]> chunkGets() {
    long tailStart = chunkStart(GROUPS, 0);
    return shaper.requestLog().stream().filter(RequestInfo::isGet).map(RequestInfo::range)
        .map(r -> r.substring("bytes=".length()).split("-"))
        .map(p -> new long[] {Long.parseLong(p[0]), Long.parseLong(p[1])})
        .filter(r -> r[1] < tailStart).toList();
  }

  /** The row group whose chunks of columns 1 and 2 hold all of {@code get}; -1 if none does. */
  static int groupOfColumns(long[] get) {
    for (int g = 0; g < GROUPS; g++) {
      if (get[0] >= chunkStart(g, 1) && get[1] < chunkStart(g, 3)) {
        return g;
      }
    }
    return -1;
  }

  /**
   * parquet-java through a split whose end is given (Spark's task, {@code fs.option.openfile.split.end}):
   * at its first vectored read every later row group of the split is requested, and nothing of a row
   * group whose midpoint lies past the split's end, the next task's.
   */
  @Test
  void withASplitEndTheFirstVectoredReadRequestsTheRestOfTheSplitAndNothingPastIt() throws Exception {
    // Row group 3's midpoint lies just before the end: the split reads row groups 0 to 3.
    long splitEnd = chunkStart(3, 0) + 2L * CHUNK + 1;
    try (Slipstream c = newClient();
        SlipstreamInputStream in = openAfterFooter(c, OpenOptions.length(data.length).withSplitEnd(splitEnd))) {
      readColumns(in, 0);
      assertThat(in.statistics().get(Counter.ROW_GROUP_AHEAD_STARTED))
          .as("row groups 1 to 3 planned at the first read").isEqualTo(3 * piecesOfARun());
      for (int g = 1; g <= 3; g++) {
        readColumns(in, g);
      }
      assertThat(in.statistics().get(Counter.ROW_GROUP_AHEAD_USED)).isEqualTo(3 * piecesOfARun());
      assertThat(in.statistics().get(Counter.ROW_GROUP_AHEAD_WASTED)).isZero();
    }
    List<long[]> gets = chunkGets();
    assertThat(gets).as("every GET within columns 1 and 2 of row groups 0 to 3")
        .allSatisfy(get -> assertThat(groupOfColumns(get)).isBetween(0, 3));
    assertThat(gets.stream().mapToLong(get -> get[1] - get[0] + 1).sum()).as("each byte once")
        .isEqualTo(4 * 2L * CHUNK);
  }

  /**
   * Without a split end, once two row groups were read in a row, the columns' chunks of every later row
   * group are requested at once (not one row group ahead), each byte once, nothing of the other columns.
   */
  @Test
  void withoutASplitTwoRowGroupsInARowRequestTheColumnsOfEveryLaterRowGroup() throws Exception {
    try (Slipstream c = newClient(); SlipstreamInputStream in = openAfterFooter(c, OpenOptions.length(data.length))) {
      readColumns(in, 0);
      assertThat(in.statistics().get(Counter.ROW_GROUP_AHEAD_STARTED)).as("row group 1, unproven")
          .isEqualTo(piecesOfARun());
      readColumns(in, 1);
      assertThat(in.statistics().get(Counter.ROW_GROUP_AHEAD_STARTED)).as("then row groups 2 to 5 at once")
          .isEqualTo((GROUPS - 1) * piecesOfARun());
      for (int g = 2; g < GROUPS; g++) {
        readColumns(in, g);
      }
      assertThat(in.statistics().get(Counter.ROW_GROUP_AHEAD_WASTED)).isZero();
    }
    List<long[]> gets = chunkGets();
    assertThat(gets).allSatisfy(get -> assertThat(groupOfColumns(get)).isNotNegative());
    assertThat(gets.stream().mapToLong(get -> get[1] - get[0] + 1).sum()).as("each byte once")
        .isEqualTo(GROUPS * 2L * CHUNK);
  }

  /**
   * Within the stream's bound ({@code prefetch.blocks} blocks): with two small blocks, no more than two
   * blocks' worth of later row groups is requested ahead at the read that plans them; the rest follows as
   * reads free memory, and every byte comes once.
   */
  @Test
  void theRestIsRequestedWithinTheStreamsBound() throws Exception {
    int small = 256 << 10;
    try (Slipstream c = Slipstream.builder().isolatedResources().config(TestClients.config(shaper.endpoint())
        .set("block.size", String.valueOf(small)).set("memory.max", "64M").set("prefetch.blocks", "2")
        .build()).build();
        SlipstreamInputStream in = openAfterFooter(c, OpenOptions.length(data.length).withSplitEnd(data.length))) {
      readColumns(in, 0);
      int piece = HeapRegions.current().largestOrdinary(small);
      assertThat(in.statistics().get(Counter.ROW_GROUP_AHEAD_STARTED) * piece).as("bytes ahead at most the bound")
          .isLessThanOrEqualTo(2L * small);
      for (int g = 1; g < GROUPS; g++) {
        readColumns(in, g);
      }
    }
    assertThat(chunkGets().stream().mapToLong(get -> get[1] - get[0] + 1).sum()).as("each byte once")
        .isEqualTo(GROUPS * 2L * CHUNK);
  }
}
