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
 * The footer is the plan: the exact requests, read off the wire, for what Parquet readers do on a file
 * whose columns have dictionary pages and whose footer names page indexes, as pyarrow and parquet-java
 * write them ({@link ParquetTestFiles}).
 *
 * <ul>
 *   <li>Parquet 1.17 (Spark 4.2 and later): one stream with the {@code parquet} read policy reads the
 *       footer, then each row group's dictionary page header through Thrift, a field at a time (1, 1, 2,
 *       4, 8 bytes...), then the page, then the row groups' column chunks as vectored reads.</li>
 *   <li>Parquet 1.15 (Spark 4.0): the footer is read by one stream; a second {@code open(path)} with no
 *       read policy then reads the column chunks with plain reads, the first one near the file's start.</li>
 * </ul>
 */
@Timeout(120)
class ParquetPlanRequestsTest {
  @RegisterExtension static final S3ServerExtension S3 = new S3ServerExtension();
  static final String BUCKET = "parquet-plans";
  static final int GROUPS = 2;
  static final int COLUMNS = 4;
  static final int CHUNK = 200_000;
  /** Where the dictionary page of an even column ends and its data pages start. */
  static final int DICTIONARY = 5_000;
  static final int INDEXES = 30_000;
  static LinkShaper shaper;
  static Slipstream client;
  /** Dictionary pages, no page indexes: as pyarrow writes by default. */
  static byte[] data;
  /** The same, with a column index and an offset index for every chunk: as parquet-java writes. */
  static byte[] indexed;
  static byte[] wide;
  static final int TABLE_FILES = 7;
  static final byte[][] table = new byte[TABLE_FILES][];

  @BeforeAll
  static void setUp() throws IOException {
    S3.server().createBucket(BUCKET);
    data = ParquetTestFiles.file(GROUPS, COLUMNS, CHUNK, DICTIONARY, 0, 1);
    S3.server().putObject(BUCKET, "t.parquet", data);
    indexed = ParquetTestFiles.file(GROUPS, COLUMNS, CHUNK, DICTIONARY, INDEXES, 2);
    S3.server().putObject(BUCKET, "indexed.parquet", indexed);
    // 3 row groups of 300 columns of 1,000 bytes: a footer of about 40 KB, larger than the 8 KiB tail
    wide = ParquetTestFiles.file(3, 300, 1_000, DICTIONARY, 0, 3);
    S3.server().putObject(BUCKET, "wide.parquet", wide);
    S3.server().putObject(BUCKET, "plain", Arrays.copyOf(data, data.length - 1)); // not Parquet
    for (int i = 0; i < TABLE_FILES; i++) { // a table: files of one schema
      table[i] = ParquetTestFiles.file(GROUPS, COLUMNS, CHUNK, DICTIONARY, 0, 10 + i);
      S3.server().putObject(BUCKET, "table/" + i + ".parquet", table[i]);
    }
    shaper = LinkShaper.start(S3.server().endpoint(), LinkProfile.LOOPBACK, 3);
    client = newClient();
  }

  static Slipstream newClient() {
    return Slipstream.builder().isolatedResources()
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

  @Test
  void aDictionaryPageReadFieldByFieldCostsOneGetOfItsChunkAndTheVectoredReadTakesItFromMemory() throws Exception {
    try (Slipstream c = newClient(); SlipstreamInputStream in = open(c, "t.parquet", data.length, ReadPolicy.RANDOM)) {
      readFooter(in, data);
      for (int g = 0; g < GROUPS; g++) {
        // the dictionary filter, row group by row group
        readDictionaryPage(in, data, chunkStart(g, 2), DICTIONARY - 31);
      }
      for (int g = 0; g < GROUPS; g++) {
        readVectored(in, chunkStart(g, 1), 2 * CHUNK); // columns 1 and 2, as one range
      }
      assertThat(gets("t.parquet")).containsExactlyInAnyOrder(
          range(data.length - tail(data.length), data.length - 1),
          chunk(0, 2), chunk(1, 2), // whole, at the first byte of their dictionary page header
          chunk(0, 1), chunk(1, 1)); // what the held chunks lack: column 1 (row group 1's ahead of its read)
      ReadStatistics s = in.statistics();
      assertThat(s.get(Counter.PARQUET_FOOTERS_PARSED)).isEqualTo(1);
      assertThat(s.get(Counter.BYTES_FETCHED)).isEqualTo(tail(data.length) + 4L * CHUNK);
    }
  }

  @Test
  void aSecondOpenWithNoPolicyReadsItsChunksAsRangesByThePlanOfTheFirst() throws Exception {
    try (Slipstream c = newClient()) {
      try (SlipstreamInputStream footer = c.open(location("t.parquet"))) { // open(path): a HEAD
        readFooter(footer, data);
      }
      shaper.clearRequestLog();
      try (SlipstreamInputStream in = c.open(location("t.parquet"))) {
        for (int g = 0; g < GROUPS; g++) {
          readAt(in, data, chunkStart(g, 0), 2 * CHUNK); // plain reads of columns 0 and 1, the first at byte 4
        }
        // Not a sequential read from the start: no block, no prefetch, the chunks and nothing else.
        assertThat(gets("t.parquet")).containsExactly(
            range(chunkStart(0, 0), chunkStart(0, 2) - 1), range(chunkStart(1, 0), chunkStart(1, 2) - 1));
        assertThat(in.statistics().get(Counter.PARQUET_PLANS_REUSED)).isEqualTo(1);
        assertThat(in.statistics().get(Counter.PREFETCH_USED) + in.statistics().get(Counter.PREFETCH_WASTED)).isZero();
      }
    }
  }

  @Test
  void withoutAPlanTheSameSecondOpenReadsBlocks() throws Exception {
    // What the plan changes: a new client knows no footer, and takes a first read near the start as the
    // start of a sequential read (the behaviour for files that are not Parquet).
    try (Slipstream c = newClient(); SlipstreamInputStream in = c.open(location("t.parquet"))) {
      readAt(in, data, chunkStart(0, 0), 2 * CHUNK);
      assertThat(gets("t.parquet")).contains(range(0, (1 << 20) - 1));
    }
  }

  @Test
  void theFirstReadOfAnIndexFetchesEveryIndexInOneGet() throws Exception {
    long indexStart = (long) GROUPS * COLUMNS * CHUNK + 4;
    try (Slipstream c = newClient();
        SlipstreamInputStream in = open(c, "indexed.parquet", indexed.length, ReadPolicy.RANDOM)) {
      readFooter(in, indexed);
      shaper.clearRequestLog();
      // A column index read through Thrift in the middle of the region, then an offset index before it.
      readAt(in, indexed, indexStart + 12_000, 1);
      readAt(in, indexed, indexStart + 12_001, 2);
      readAt(in, indexed, indexStart + 12_003, 300);
      readAt(in, indexed, indexStart + 100, 500);
      // The indexes are 30,000 bytes, and the stream holds the tail after them: the GET is the indexes.
      assertThat(gets("indexed.parquet")).containsExactly(range(indexStart, indexStart + INDEXES - 1));
    }
  }

  @Test
  void aDictionaryPageReadInAChunkWithAnOffsetIndexFetchesTheDictionaryPageNotTheChunk() throws Exception {
    // A reader that filters pages by the column index reads the dictionary, then only the pages it
    // selected: the chunk is not fetched whole, only its dictionary page, at least 64 KiB.
    try (Slipstream c = newClient();
        SlipstreamInputStream in = open(c, "indexed.parquet", indexed.length, ReadPolicy.RANDOM)) {
      readFooter(in, indexed);
      shaper.clearRequestLog();
      readDictionaryPage(in, indexed, chunkStart(0, 2), DICTIONARY - 31);
      assertThat(gets("indexed.parquet")).containsExactly(range(chunkStart(0, 2), chunkStart(0, 2) + 65_536 - 1));
    }
  }

  @Test
  void aFooterLargerThanTheTailIsParsedFromTheReadOfItAndPlansTheChunks() throws Exception {
    try (Slipstream c = newClient(); SlipstreamInputStream in = open(c, "wide.parquet", wide.length, ReadPolicy.RANDOM)) {
      int footerLength = readFooter(in, wide);
      assertThat(footerLength).isGreaterThan((int) tail(wide.length));
      assertThat(in.statistics().get(Counter.PARQUET_FOOTERS_PARSED)).isEqualTo(1);
      shaper.clearRequestLog();
      long at = 4 + 1_000L * 10; // column 10 of row group 0, with a dictionary page
      readDictionaryPage(in, wide, at, 200);
      // Chunks of 1,000 bytes: the 64 KiB floor, not the chunk, bounds this GET.
      assertThat(gets("wide.parquet")).containsExactly(range(at, at + 64 * 1024 - 1));
    }
  }

  @Test
  void theTailAFooterReadFetchedIsLetGoOnceTheFooterIsParsed() throws Exception {
    try (Slipstream c = newClient()) {
      try (SlipstreamInputStream in = open(c, "t.parquet", data.length, ReadPolicy.RANDOM)) {
        readAt(in, data, data.length - 8, 8); // fetches the tail, handed up to the footer and held
        assertThat(in.statistics().get(Counter.PARQUET_FOOTERS_PARSED)).isEqualTo(1);
      }
      assertThat(c.memoryInUse()).isZero(); // the tail's buffer, pinned for the footer, went back
    }
  }

  @Test
  void aRangeInAKnownChunkIsFetchedExactlyAsThePagesAColumnIndexSelected() throws Exception {
    // A reader filtering pages reads the ranges the offset index names: no floor, nothing around them.
    try (Slipstream c = newClient();
        SlipstreamInputStream in = open(c, "indexed.parquet", indexed.length, ReadPolicy.RANDOM)) {
      readFooter(in, indexed);
      shaper.clearRequestLog();
      readAt(in, indexed, chunkStart(0, 1), 15_000); // a page at the start of a chunk of plain pages
      readAt(in, indexed, chunkStart(1, 3) + 120_000, 9_000); // a page in the middle of another
      assertThat(gets("indexed.parquet")).containsExactly(range(chunkStart(0, 1), chunkStart(0, 1) + 15_000 - 1),
          range(chunkStart(1, 3) + 120_000, chunkStart(1, 3) + 129_000 - 1));
    }
  }

  @Test
  void smallRangeReadsInNoKnownChunkFetchAtLeast64KiB() throws Exception {
    int length = data.length - 1;
    try (Slipstream c = newClient(); SlipstreamInputStream in = open(c, "plain", length, ReadPolicy.RANDOM)) {
      long at = 300_000;
      readAt(in, data, at, 1);
      readAt(in, data, at + 1, 1);
      readAt(in, data, at + 2, 2);
      readAt(in, data, at + 4, 4_000);
      assertThat(gets("plain")).containsExactly(range(at, at + 64 * 1024 - 1));
      assertThat(in.statistics().get(Counter.PARQUET_FOOTERS_PARSED)).isZero();
    }
  }

  @Test
  void plansAreKeptPerVersionAndANewVersionGetsNone() throws Exception {
    try (Slipstream c = newClient()) {
      try (SlipstreamInputStream in = open(c, "t.parquet", data.length, ReadPolicy.RANDOM)) {
        readFooter(in, data);
      }
      // The same key, another ETag (as after an overwrite): the plan is not that version's.
      try (SlipstreamInputStream in = c.open(location("t.parquet"),
          OpenOptions.known(data.length, "\"0123456789abcdef0123456789abcdef\""))) {
        assertThat(in.statistics().get(Counter.PARQUET_PLANS_REUSED)).isZero();
      }
    }
  }

  // ---- helpers -------------------------------------------------------------------------------------

  /** As Parquet reads a footer: its length and magic in the last 8 bytes, then the footer; its length. */
  @Test
  void afterTwoFilesReadAColumnWholeTheNextFileFetchesItsChunksAtItsFirstTouch() throws Exception {
    try (Slipstream c = newClient()) {
      for (int i = 0; i < 2; i++) {
        ReadStatistics s = readTableFile(c, i, GROUPS);
        assertThat(s.get(Counter.PREDICTED_COLUMN_BYTES)).as("file %d: nothing predicted yet", i).isZero();
      }
      shaper.clearRequestLog();
      ReadStatistics s = readTableFile(c, 2, GROUPS);
      // The first dictionary read fetches column 2 in both row groups at once (the second dictionary read
      // is then in memory), the first vectored read column 1 in both: no read fetches on its own.
      assertThat(gets("table/2.parquet")).containsExactlyInAnyOrder(
          range(table[2].length - tail(table[2].length), table[2].length - 1),
          chunk(0, 2), chunk(1, 2), chunk(0, 1), chunk(1, 1));
      assertThat(s.get(Counter.PREDICTED_COLUMN_BYTES)).isEqualTo(GROUPS * 2L * CHUNK);
      assertThat(s.get(Counter.PREDICTED_COLUMN_BYTES_UNREAD)).isZero();
      assertThat(s.get(Counter.EXTENDED_READS) + s.get(Counter.ROW_GROUP_AHEAD_STARTED)).isZero();
      assertThat(s.get(Counter.BYTES_FETCHED)).isEqualTo(tail(table[2].length) + GROUPS * 2L * CHUNK);
    }
  }

  /**
   * A file read after another of the same table on the same thread, whose first touch of a predicted
   * column (column 2's dictionary page) is of a column that file read too: the other predicted column
   * that file read (column 1) comes in the same wave, adjacent chunks in one GET, before the reader asks
   * for it; no read fetches on its own, and nothing more is fetched than the reader reads.
   */
  @Test
  void aFileReadAfterAnotherOfTheTableFetchesItsColumnsInOneWaveAtTheFirstTouch() throws Exception {
    try (Slipstream c = newClient()) {
      for (int i = 0; i < 3; i++) {
        readTableFile(c, i, GROUPS); // columns 1 and 2, predicted from file 2 on
      }
      shaper.clearRequestLog();
      byte[] file = table[3];
      SlipstreamInputStream in = open(c, "table/3.parquet", file.length, ReadPolicy.RANDOM);
      List<String> wave = List.of(range(file.length - tail(file.length), file.length - 1),
          range(chunkStart(0, 1), chunkStart(0, 3) - 1), range(chunkStart(1, 1), chunkStart(1, 3) - 1));
      try (in) {
        readFooter(in, file);
        readDictionaryPage(in, file, chunkStart(0, 2), DICTIONARY - 31);
        long deadline = System.nanoTime() + 20_000_000_000L; // the other GETs of the wave are on their way
        while (gets("table/3.parquet").size() < wave.size() && System.nanoTime() < deadline) {
          Thread.sleep(10);
        }
        assertThat(gets("table/3.parquet")).as("at the first touch").containsExactlyInAnyOrderElementsOf(wave);
        readDictionaryPage(in, file, chunkStart(1, 2), DICTIONARY - 31);
        for (int g = 0; g < GROUPS; g++) {
          readVectored(in, file, chunkStart(g, 1), 2 * CHUNK);
        }
      }
      assertThat(gets("table/3.parquet")).containsExactlyInAnyOrderElementsOf(wave);
      assertThat(in.statistics().get(Counter.PREDICTED_COLUMN_BYTES)).isEqualTo(GROUPS * 2L * CHUNK);
      assertThat(in.statistics().get(Counter.PREDICTED_COLUMN_BYTES_UNREAD)).isZero();
    }
  }

  /**
   * A query that starts with a predicted column the file before did not read (column 3, after a file that
   * read columns 1 and 2): it reads another query's way, and gets none of that file's columns.
   */
  @Test
  void aFileWhoseFirstTouchIsOfAColumnTheFileBeforeDidNotReadGetsNoneOfItsColumns() throws Exception {
    try (Slipstream c = newClient()) {
      for (int i = 0; i < 2; i++) { // columns 1, 2 and 3 read whole: all three predicted
        byte[] file = table[i];
        try (SlipstreamInputStream in = open(c, "table/" + i + ".parquet", file.length, ReadPolicy.RANDOM)) {
          readFooter(in, file);
          for (int g = 0; g < GROUPS; g++) {
            readVectored(in, file, chunkStart(g, 1), 3 * CHUNK);
          }
        }
      }
      readTableFile(c, 2, GROUPS); // columns 1 and 2 only
      shaper.clearRequestLog();
      byte[] file = table[3];
      try (SlipstreamInputStream in = open(c, "table/3.parquet", file.length, ReadPolicy.RANDOM)) {
        readFooter(in, file);
        for (int g = 0; g < GROUPS; g++) {
          readVectored(in, file, chunkStart(g, 3), CHUNK);
        }
      }
      BitSetBytes fetched = BitSetBytes.of(gets("table/3.parquet"));
      for (int g = 0; g < GROUPS; g++) {
        for (int col = 1; col <= 2; col++) {
          assertThat(fetched.any(chunkStart(g, col), chunkStart(g, col) + CHUNK)).as("column %d of row group %d", col, g)
              .isFalse();
        }
      }
    }
  }

  /** A file of another table read after one of this table: none of that one's columns come before they are touched. */
  @Test
  void aFileReadAfterOneOfAnotherTableGetsNoneOfItsColumnsAtItsFirstTouch() throws Exception {
    S3.server().putObject(BUCKET, "another-table/dt=1/0.parquet", table[3]);
    try (Slipstream c = newClient()) {
      for (int i = 0; i < 3; i++) {
        readTableFile(c, i, GROUPS);
      }
      shaper.clearRequestLog();
      byte[] file = table[3];
      SlipstreamInputStream in = open(c, "another-table/dt=1/0.parquet", file.length, ReadPolicy.RANDOM);
      String logged = "another-table/dt%3D1/0.parquet"; // as the request names it
      try (in) {
        readFooter(in, file);
        readDictionaryPage(in, file, chunkStart(0, 2), DICTIONARY - 31);
        long deadline = System.nanoTime() + 20_000_000_000L; // row group 1's chunk is on its way
        while (gets(logged).size() < 3 && System.nanoTime() < deadline) {
          Thread.sleep(10);
        }
        assertThat(gets(logged)).as("at the first touch: column 2 alone").containsExactlyInAnyOrder(
            range(file.length - tail(file.length), file.length - 1), chunk(0, 2), chunk(1, 2));
      }
    }
  }

  /** The bytes of ranges ("bytes=a-b") a link carried. */
  record BitSetBytes(java.util.BitSet bits) {
    static BitSetBytes of(List<String> ranges) {
      java.util.BitSet b = new java.util.BitSet();
      for (String r : ranges) {
        String[] ab = r.substring("bytes=".length()).split("-");
        b.set(Integer.parseInt(ab[0]), Integer.parseInt(ab[1]) + 1);
      }
      return new BitSetBytes(b);
    }

    /** Whether any byte of {@code [from, to)} was carried. */
    boolean any(long from, long to) {
      int next = bits.nextSetBit((int) from);
      return next >= 0 && next < to;
    }
  }

  /**
   * Predicted chunks larger than a piece (700 KB, pieces of 448 KiB at the build's -Xmx2g) are held in
   * pieces G1 does not make humongous, yet each is fetched in one GET, as one buffer would be: not a GET
   * a piece.
   */
  @Test
  void aPredictedChunkLargerThanAPieceIsFetchedInOneGet() throws Exception {
    int chunk = 700_000;
    assertThat(HeapRegions.current().largestOrdinary(1 << 20)).as("pieces below a chunk").isLessThan(chunk);
    byte[][] files = new byte[3][];
    for (int i = 0; i < files.length; i++) {
      files[i] = ParquetTestFiles.file(GROUPS, COLUMNS, chunk, DICTIONARY, 0, 40 + i);
      S3.server().putObject(BUCKET, "large-chunks/" + i + ".parquet", files[i]);
    }
    try (Slipstream c = newClient()) {
      ReadStatistics s = null;
      for (int i = 0; i < files.length; i++) { // column 1 of every row group, whole: predicted in file 2
        shaper.clearRequestLog();
        SlipstreamInputStream in = open(c, "large-chunks/" + i + ".parquet", files[i].length, ReadPolicy.RANDOM);
        try (in) {
          readFooter(in, files[i]);
          for (int g = 0; g < GROUPS; g++) {
            readVectored(in, files[i], 4 + ((long) g * COLUMNS + 1) * chunk, chunk);
          }
        }
        s = in.statistics();
      }
      long length = files[2].length;
      List<String> expected = new java.util.ArrayList<>(List.of(range(length - tail(length), length - 1)));
      for (int g = 0; g < GROUPS; g++) {
        long start = 4 + ((long) g * COLUMNS + 1) * chunk;
        expected.add(range(start, start + chunk - 1));
      }
      assertThat(gets("large-chunks/2.parquet")).containsExactlyInAnyOrderElementsOf(expected);
      assertThat(s.get(Counter.PREDICTED_COLUMN_BYTES)).isEqualTo(GROUPS * (long) chunk);
      assertThat(s.get(Counter.PREDICTED_COLUMN_BYTES_UNREAD)).isZero();
    }
  }

  /**
   * A split that ends before row group 1's midpoint (a Spark task given row group 0 of the file): the
   * predicted columns are fetched for row group 0 only; row group 1 is the next task's.
   */
  @Test
  void predictedColumnsStopAtTheLastRowGroupOfTheSplit() throws Exception {
    try (Slipstream c = newClient()) {
      readTableFile(c, 0, GROUPS);
      readTableFile(c, 1, GROUPS);
      shaper.clearRequestLog();
      byte[] file = table[2];
      long splitEnd = chunkStart(1, 0) + 1; // row group 1's midpoint lies past it
      SlipstreamInputStream in = c.open(location("table/2.parquet"),
          OpenOptions.length(file.length).withPolicy(ReadPolicy.RANDOM).withSplitEnd(splitEnd));
      try (in) {
        readFooter(in, file);
        readDictionaryPage(in, file, chunkStart(0, 2), DICTIONARY - 31);
        readVectored(in, file, chunkStart(0, 1), 2 * CHUNK);
      }
      assertThat(gets("table/2.parquet")).containsExactlyInAnyOrder(
          range(file.length - tail(file.length), file.length - 1), chunk(0, 2), chunk(0, 1));
      assertThat(in.statistics().get(Counter.PREDICTED_COLUMN_BYTES)).isEqualTo(2L * CHUNK);
    }
  }

  @Test
  void aQueryOfOtherColumnsGetsNoPrediction() throws Exception {
    try (Slipstream c = newClient()) {
      readTableFile(c, 0, GROUPS);
      readTableFile(c, 1, GROUPS);
      shaper.clearRequestLog();
      byte[] file = table[2];
      SlipstreamInputStream in = open(c, "table/2.parquet", file.length, ReadPolicy.RANDOM);
      try (in) {
        readFooter(in, file);
        for (int g = 0; g < GROUPS; g++) {
          readVectored(in, file, chunkStart(g, 3), CHUNK); // column 3 only: never read before
        }
      }
      assertThat(in.statistics().get(Counter.PREDICTED_COLUMN_BYTES)).isZero();
      long tailStart = file.length - tail(file.length); // the last chunk's end is in the tail
      assertThat(gets("table/2.parquet")).containsExactlyInAnyOrder(
          range(tailStart, file.length - 1), chunk(0, 3), range(chunkStart(1, 3), tailStart - 1));
    }
  }

  @Test
  void aSecondOpenWithNoPolicyFetchesThePredictedColumnsAtItsFirstRead() throws Exception {
    try (Slipstream c = newClient()) {
      readTableFile(c, 0, GROUPS);
      readTableFile(c, 1, GROUPS);
      try (SlipstreamInputStream footer = c.open(location("table/3.parquet"))) { // as Spark 4.0: footer first
        readFooter(footer, table[3]);
        assertThat(footer.statistics().get(Counter.PREDICTED_COLUMN_BYTES)).as("no column read: nothing predicted").isZero();
      }
      shaper.clearRequestLog();
      try (SlipstreamInputStream in = c.open(location("table/3.parquet"))) {
        for (int g = 0; g < GROUPS; g++) {
          readAt(in, table[3], chunkStart(g, 1), 2 * CHUNK); // plain reads of columns 1 and 2
        }
        assertThat(gets("table/3.parquet")).containsExactlyInAnyOrder(
            range(chunkStart(0, 1), chunkStart(0, 3) - 1), range(chunkStart(1, 1), chunkStart(1, 3) - 1));
      }
    }
  }

  @Test
  void predictionsOfASchemaStopWhenAQuarterOfTheirBytesGoUnread() throws Exception {
    try (Slipstream c = newClient()) {
      readTableFile(c, 0, GROUPS);
      readTableFile(c, 1, GROUPS);
      // The same columns, of the first row group only (the second skipped by its statistics, say): half
      // of what is predicted goes unread, and after four such files, nothing more is predicted.
      for (int i = 2; i < 2 + 4; i++) {
        ReadStatistics s = readTableFile(c, i, 1);
        assertThat(s.get(Counter.PREDICTED_COLUMN_BYTES)).as("file %d", i).isEqualTo(GROUPS * 2L * CHUNK);
        assertThat(s.get(Counter.PREDICTED_COLUMN_BYTES_UNREAD)).as("file %d", i).isEqualTo(2L * CHUNK);
      }
      shaper.clearRequestLog();
      ReadStatistics s = readTableFile(c, 6, 1);
      assertThat(s.get(Counter.PREDICTED_COLUMN_BYTES)).isZero();
      // As with no prediction: the dictionary read fetches its chunk, not the run of columns 1 and 2.
      assertThat(gets("table/6.parquet")).contains(chunk(0, 2))
          .doesNotContain(range(chunkStart(0, 1), chunkStart(0, 3) - 1));
    }
  }

  /**
   * A Parquet 1.17 reader's reads of columns 1 and 2 from the first {@code groups} row groups of table
   * file {@code i}: the footer, column 2's dictionary page in each, then the two chunks of each as one
   * vectored range. The stream's statistics, once closed.
   */
  static ReadStatistics readTableFile(Slipstream c, int i, int groups) throws Exception {
    byte[] file = table[i];
    SlipstreamInputStream in = open(c, "table/" + i + ".parquet", file.length, ReadPolicy.RANDOM);
    try (in) {
      readFooter(in, file);
      for (int g = 0; g < groups; g++) {
        readDictionaryPage(in, file, chunkStart(g, 2), DICTIONARY - 31);
      }
      for (int g = 0; g < groups; g++) {
        readVectored(in, file, chunkStart(g, 1), 2 * CHUNK);
      }
    }
    return in.statistics();
  }

  static int readFooter(SlipstreamInputStream in, byte[] file) throws IOException {
    byte[] last = readAt(in, file, file.length - 8, 8);
    int footerLength = (last[0] & 0xff) | (last[1] & 0xff) << 8 | (last[2] & 0xff) << 16 | (last[3] & 0xff) << 24;
    readAt(in, file, file.length - 8 - footerLength, footerLength);
    return footerLength;
  }

  /**
   * A dictionary page's header read through Thrift a field at a time (31 bytes), then {@code page} bytes
   * of the page: stream reads of {@code file} at {@code at}.
   */
  static void readDictionaryPage(SlipstreamInputStream in, byte[] file, long at, int page) throws IOException {
    long p = at;
    for (int n : new int[] {1, 1, 2, 4, 8, 15}) {
      readAt(in, file, p, n);
      p += n;
    }
    readAt(in, file, p, page);
  }

  static byte[] readAt(SlipstreamInputStream in, byte[] file, long at, int len) throws IOException {
    in.seek(at);
    byte[] b = new byte[len];
    assertThat(in.readNBytes(b, 0, len)).isEqualTo(len);
    assertThat(b).as("bytes %d-%d", at, at + len - 1).isEqualTo(Arrays.copyOfRange(file, (int) at, (int) at + len));
    return b;
  }

  static void readVectored(SlipstreamInputStream in, long at, int len) throws Exception {
    readVectored(in, data, at, len);
  }

  static void readVectored(SlipstreamInputStream in, byte[] file, long at, int len) throws Exception {
    byte[] b = new byte[len];
    in.readFullyAsync(at, b, 0, len).get();
    assertThat(b).as("bytes %d-%d", at, at + len - 1).isEqualTo(Arrays.copyOfRange(file, (int) at, (int) at + len));
  }

  static SlipstreamInputStream open(Slipstream c, String key, long length, ReadPolicy policy) throws IOException {
    return c.open(location(key), OpenOptions.length(length).withPolicy(policy));
  }

  static S3Location location(String key) {
    return S3Location.parse("s3://" + BUCKET + "/" + key);
  }

  static long chunkStart(int group, int column) {
    return 4 + ((long) group * COLUMNS + column) * CHUNK;
  }

  static String chunk(int group, int column) {
    return range(chunkStart(group, column), chunkStart(group, column) + CHUNK - 1);
  }

  static long tail(long size) {
    return Math.min(size, Math.max(8 * 1024, Math.min(size / 512, (1 << 20) / 4)));
  }

  static List<String> gets(String key) {
    return shaper.requestLog().stream().filter(r -> r.isGet() && r.path().endsWith("/" + key))
        .map(RequestInfo::range).toList();
  }

  static String range(long first, long last) {
    return "bytes=" + first + "-" + last;
  }
}
