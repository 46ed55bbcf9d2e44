/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.read;

import static org.assertj.core.api.Assertions.assertThat;

import dev.slipstream.Counter;
import dev.slipstream.OpenOptions;
import dev.slipstream.ReadStatistics;
import dev.slipstream.S3Location;
import dev.slipstream.Slipstream;
import dev.slipstream.SlipstreamInputStream;
import dev.slipstream.TestClients;
import dev.slipstream.internal.ahead.AheadBudget;
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
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * One store for the bytes a stream fetches ahead, under one budget: whichever part fetched a span ahead
 * (predicted columns, row groups read ahead), every kind of read finds it there (a vectored read, a read at
 * a jump, a read in order) and sends no GET of its own for it; and together the parts hold no more than
 * {@code prefetch.blocks} blocks ahead. On objects laid out as Parquet files ({@link ParquetTestFiles}),
 * the GETs seen on the wire through a loopback link.
 */
@Timeout(120)
class AheadStoreTest {
  @RegisterExtension static final S3ServerExtension S3 = new S3ServerExtension();
  static final String BUCKET = "ahead-store";
  static final int GROUPS = 6;
  static final int COLUMNS = 4;
  static LinkShaper shaper;

  @BeforeAll
  static void setUp() {
    S3.server().createBucket(BUCKET);
    shaper = LinkShaper.start(S3.server().endpoint(), LinkProfile.LOOPBACK, 17);
  }

  @AfterAll
  static void stopTheLink() {
    shaper.close();
  }

  static Slipstream client(String blockSize, int prefetchBlocks) {
    return Slipstream.builder().isolatedResources().config(TestClients.config(shaper.endpoint())
        .set("block.size", blockSize).set("prefetch.blocks", String.valueOf(prefetchBlocks))
        .set("memory.max", "64M").build()).build();
  }

  static long chunkStart(int chunk, int group, int column) {
    return 4 + ((long) group * COLUMNS + column) * chunk;
  }

  /** Opens {@code key} and reads its footer as Parquet does: the last 8 bytes, which fetch the tail. */
  static ObjectReader openAfterFooter(Slipstream c, String key, long length) throws IOException {
    SlipstreamInputStream in = c.open(S3Location.parse("s3://" + BUCKET + "/" + key), OpenOptions.length(length));
    in.seek(length - 8);
    in.readNBytes(8);
    return (ObjectReader) in;
  }

  /** Columns {@code first..last} of row group {@code g}, as one vectored range, their bytes checked. */
  static void readColumns(SlipstreamInputStream in, byte[] file, int chunk, int g, int first, int last)
      throws Exception {
    long start = chunkStart(chunk, g, first);
    byte[] b = new byte[(last - first + 1) * chunk];
    in.readFullyAsync(start, b, 0, b.length).get();
    assertThat(b).as("row group %d", g).isEqualTo(Arrays.copyOfRange(file, (int) start, (int) start + b.length));
  }

  /** The bytes of the GETs sent for {@code key} that end before {@code before} (the footer's tail left out). */
  static long bytesOfGets(String key, long before) {
    return shaper.requestLog().stream().filter(RequestInfo::isGet).filter(r -> r.range() != null)
        .filter(r -> r.path().endsWith("/" + key))
        .map(RequestInfo::range).map(r -> r.substring("bytes=".length()).split("-"))
        .mapToLong(p -> Long.parseLong(p[1]) < before ? Long.parseLong(p[1]) - Long.parseLong(p[0]) + 1 : 0)
        .sum();
  }

  /**
   * Predicted columns and row groups read ahead both want bytes of one stream, more than its bound
   * together (column 0 of every row group predicted, 768 KiB of buffers, and column 1 of the later row
   * groups read ahead, 640 KiB, against four blocks of 256 KiB): what the stream holds ahead never passes
   * the bound, both parts fetch within it, every byte comes once (the vectored reads take column 0 from the
   * spans prediction fetched), and everything taken is given back at close.
   */
  @Test
  void predictedColumnsAndRowGroupsAheadHoldAtMostOneBoundTogether() throws Exception {
    int chunk = 100_000;
    int block = 256 << 10;
    int depth = 4;
    byte[][] files = new byte[3][];
    for (int i = 0; i < files.length; i++) { // a table: files of one schema
      files[i] = ParquetTestFiles.file(GROUPS, COLUMNS, chunk, 0, 0, 60 + i);
      S3.server().putObject(BUCKET, "table/" + i + ".parquet", files[i]);
    }
    try (Slipstream c = client(String.valueOf(block), depth)) {
      for (int i = 0; i < 2; i++) { // two files read column 0 whole: the third's is predicted
        try (ObjectReader in = openAfterFooter(c, "table/" + i + ".parquet", files[i].length)) {
          for (int g = 0; g < GROUPS; g++) {
            readColumns(in, files[i], chunk, g, 0, 0);
          }
        }
      }
      shaper.clearRequestLog();
      ObjectReader in = openAfterFooter(c, "table/2.parquet", files[2].length);
      AheadBudget budget = in.aheadBudget();
      ReadStatistics stats = in.statistics();
      try (in) {
        assertThat(budget.bound()).isEqualTo((long) depth * block);
        for (int g = 0; g < GROUPS; g++) {
          readColumns(in, files[2], chunk, g, 0, 1); // columns 0 and 1: column 1 is no prediction
          assertThat(budget.held()).as("held ahead after row group %d", g).isLessThanOrEqualTo(budget.bound());
        }
      }
      assertThat(stats.get(Counter.PREDICTED_COLUMN_BYTES)).as("prediction fetched").isEqualTo(GROUPS * (long) chunk);
      assertThat(stats.get(Counter.ROW_GROUP_AHEAD_STARTED)).as("row groups read ahead").isPositive();
      assertThat(stats.get(Counter.ROW_GROUP_AHEAD_WASTED)).isZero();
      assertThat(budget.mostHeld()).as("the most held ahead at once").isPositive()
          .isLessThanOrEqualTo(budget.bound());
      assertThat(budget.held()).as("all given back at close").isZero();
      assertThat(bytesOfGets("table/2.parquet", chunkStart(chunk, GROUPS, 0))).as("each byte once")
          .isEqualTo(GROUPS * 2L * chunk);
    }
  }

  /**
   * Row groups read ahead after two vectored reads in a row are in the stream's one store: a positional
   * read at a jump of a later row group's columns, and a read in order in another, copy them (waiting for
   * them if they are still on their way) and send no GET of their own; a vectored read of the next does
   * too; nothing fetched ahead is wasted and every byte comes once.
   */
  @Test
  void aReadAtAJumpAndAReadInOrderFindTheRowGroupsAVectoredReadFetchedAhead() throws Exception {
    int chunk = 300_000;
    shaper.clearRequestLog();
    byte[] file = ParquetTestFiles.file(GROUPS, COLUMNS, chunk, 100, 0, 70);
    S3.server().putObject(BUCKET, "groups.parquet", file);
    try (Slipstream c = client("4M", 16);
        ObjectReader in = openAfterFooter(c, "groups.parquet", file.length)) {
      readColumns(in, file, chunk, 0, 1, 2);
      readColumns(in, file, chunk, 1, 1, 2); // two in a row: row groups 2 to 5 are fetched ahead
      assertThat(in.statistics().get(Counter.ROW_GROUP_AHEAD_STARTED)).isPositive();

      long at = chunkStart(chunk, 2, 1);
      byte[] jump = new byte[2 * chunk];
      in.readFully(at, jump); // a positional read at a jump
      assertThat(jump).isEqualTo(Arrays.copyOfRange(file, (int) at, (int) at + jump.length));

      long inOrder = chunkStart(chunk, 3, 1) + 10;
      in.seek(inOrder);
      byte[] seq = in.readNBytes(1000); // a read in order, of the stream's position
      assertThat(seq).isEqualTo(Arrays.copyOfRange(file, (int) inOrder, (int) inOrder + seq.length));
      long rest = chunkStart(chunk, 3, 1);
      in.readFully(rest, jump); // and the rest of that row group's pieces, positionally: none wasted
      assertThat(jump).isEqualTo(Arrays.copyOfRange(file, (int) rest, (int) rest + jump.length));

      readColumns(in, file, chunk, 4, 1, 2); // and vectored reads of the last two
      readColumns(in, file, chunk, 5, 1, 2);
      assertThat(in.statistics().get(Counter.ROW_GROUP_AHEAD_USED)).isPositive();
      assertThat(in.statistics().get(Counter.ROW_GROUP_AHEAD_WASTED)).isZero();
    }
    assertThat(bytesOfGets("groups.parquet", chunkStart(chunk, GROUPS, 0))).as("each byte once")
        .isEqualTo(GROUPS * 2L * chunk);
  }
}
