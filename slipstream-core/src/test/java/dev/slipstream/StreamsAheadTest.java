/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream;

import static dev.slipstream.ParquetPlanRequestsTest.CHUNK;
import static dev.slipstream.ParquetPlanRequestsTest.DICTIONARY;
import static dev.slipstream.ParquetPlanRequestsTest.GROUPS;
import static dev.slipstream.ParquetPlanRequestsTest.COLUMNS;
import static dev.slipstream.ParquetPlanRequestsTest.chunk;
import static dev.slipstream.ParquetPlanRequestsTest.chunkStart;
import static dev.slipstream.ParquetPlanRequestsTest.range;
import static dev.slipstream.ParquetPlanRequestsTest.readAt;
import static dev.slipstream.ParquetPlanRequestsTest.readDictionaryPage;
import static dev.slipstream.ParquetPlanRequestsTest.readFooter;
import static dev.slipstream.ParquetPlanRequestsTest.readVectored;
import static dev.slipstream.ParquetPlanRequestsTest.tail;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.slipstream.internal.parquet.ParquetTestFiles;
import dev.slipstream.testkit.LinkProfile;
import dev.slipstream.testkit.LinkShaper;
import dev.slipstream.testkit.RequestInfo;
import dev.slipstream.testkit.S3ServerExtension;
import java.io.IOException;
import java.util.BitSet;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Streams opened ahead for readers that start at the footer ({@code StreamsAhead}), over the Parquet-like
 * table of {@link ParquetPlanRequestsTest} (files of one schema; its readers read columns 1 and 2): a
 * footer's stream kept for the open of the same file that follows (Spark's footer, then its data), and the
 * next files opened ahead with their tails. The GETs on the wire are the same as a stream opened at the
 * caller's open makes, each byte once; only when they go out changes.
 */
@Timeout(120)
class StreamsAheadTest {
  @RegisterExtension static final S3ServerExtension S3 = new S3ServerExtension();
  static final String BUCKET = "streams-ahead";
  static final int FILES = 7;
  static final byte[][] table = new byte[FILES][];
  static LinkShaper shaper;

  @BeforeAll
  static void setUp() throws IOException {
    S3.server().createBucket(BUCKET);
    for (int i = 0; i < FILES; i++) { // a table: files of one schema
      table[i] = ParquetTestFiles.file(GROUPS, COLUMNS, CHUNK, DICTIONARY, 0, 40 + i);
      S3.server().putObject(BUCKET, "table/" + i + ".parquet", table[i]);
    }
    shaper = LinkShaper.start(S3.server().endpoint(), LinkProfile.LOOPBACK, 3);
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
    return Slipstream.builder().isolatedResources()
        .config(TestClients.config(shaper.endpoint()).set("block.size", "1M").set("memory.max", "32M").build())
        .build();
  }

  /** A client that learnt, from two files read, that this schema's readers read columns 1 and 2 whole. */
  static Slipstream learnedClient() throws Exception {
    Slipstream c = newClient();
    for (int i = 0; i < 2; i++) {
      try (SlipstreamInputStream in = c.open(location("table/" + i + ".parquet"), options(i))) {
        readFooter(in, table[i]);
        readColumns(in, i);
      }
    }
    shaper.clearRequestLog();
    return c;
  }

  static S3Location location(String key) {
    return S3Location.parse("s3://" + BUCKET + "/" + key);
  }

  static List<String> gets(String key) {
    return shaper.requestLog().stream().filter(r -> r.isGet() && r.path().endsWith("/" + key))
        .map(RequestInfo::range).toList();
  }

  static String etag(int i) {
    return S3.server().etag(BUCKET, "table/" + i + ".parquet");
  }

  static OpenOptions options(int i) {
    return OpenOptions.length(table[i].length).withEtag(etag(i)).withPolicy(ReadPolicy.RANDOM);
  }

  /** Columns 1 and 2 of every row group, as {@link ParquetPlanRequestsTest#readTableFile} reads them after the footer. */
  static void readColumns(SlipstreamInputStream in, int i) throws Exception {
    for (int g = 0; g < GROUPS; g++) {
      readDictionaryPage(in, table[i], chunkStart(g, 2), DICTIONARY - 31);
    }
    for (int g = 0; g < GROUPS; g++) {
      readVectored(in, table[i], chunkStart(g, 1), 2 * CHUNK);
    }
  }

  /** Opens table file {@code i} as its footer's reader does, reads the footer, and hands the stream back for a reopen. */
  static SlipstreamInputStream keptFooterStream(Slipstream c, int i) throws IOException {
    SlipstreamInputStream footer = c.open(location("table/" + i + ".parquet"), options(i));
    readFooter(footer, table[i]);
    c.closeForReopen(footer);
    return footer;
  }

  /** The GETs of a file read as a stream opened at the caller's open reads it: each byte once. */
  static List<String> eachByteOnce(int i) {
    return List.of(range(table[i].length - tail(table[i].length), table[i].length - 1),
        chunk(0, 2), chunk(1, 2), chunk(0, 1), chunk(1, 1));
  }

  @Test
  void aFooterStreamClosedForReopenIsTheNextOpensStreamWithTheSameGets() throws Exception {
    try (Slipstream c = learnedClient()) {
      SlipstreamInputStream footer = keptFooterStream(c, 2);
      try (SlipstreamInputStream in = c.open(location("table/2.parquet"), options(2))) {
        assertThat(in).as("the kept stream").isSameAs(footer);
        assertThat(in.getPos()).isZero();
        readColumns(in, 2);
      }
      assertThat(gets("table/2.parquet")).containsExactlyInAnyOrderElementsOf(eachByteOnce(2));
      ReadStatistics s = c.statistics();
      assertThat(s.get(Counter.OPEN_AHEAD_STREAMS_USED)).isEqualTo(1);
      assertThat(s.get(Counter.OPEN_AHEAD_STREAMS_WASTED)).isZero();
      assertThat(footer.statistics().get(Counter.PREDICTED_COLUMN_BYTES)).isEqualTo(GROUPS * 2L * CHUNK);
      assertThat(footer.statistics().get(Counter.PREDICTED_COLUMN_BYTES_UNREAD)).isZero();
    }
  }

  @Test
  void theNextFilesHintedFromTheEndAreOpenedWithTheirTailsAndTheSameGets() throws Exception {
    try (Slipstream c = learnedClient()) {
      c.hintNextFromTheEnd(List.of(new ObjectRef(location("table/3.parquet"), table[3].length, etag(3)),
          new ObjectRef(location("table/4.parquet"), table[4].length, etag(4))), ReadPolicy.RANDOM);
      for (int i = 3; i <= 4; i++) {
        try (SlipstreamInputStream in = c.open(location("table/" + i + ".parquet"), options(i))) {
          readFooter(in, table[i]);
          readColumns(in, i);
        }
      }
      assertThat(gets("table/3.parquet")).containsExactlyInAnyOrderElementsOf(eachByteOnce(3));
      // File 4 is read after file 3 on this thread: its two columns in one wave, adjacent chunks in one GET.
      assertThat(gets("table/4.parquet")).containsExactlyInAnyOrder(
          range(table[4].length - tail(table[4].length), table[4].length - 1),
          range(chunkStart(0, 1), chunkStart(0, 3) - 1), range(chunkStart(1, 1), chunkStart(1, 3) - 1));
      ReadStatistics s = c.statistics();
      assertThat(s.get(Counter.OPEN_AHEAD_STREAMS_STARTED)).isEqualTo(2);
      assertThat(s.get(Counter.OPEN_AHEAD_STREAMS_USED)).isEqualTo(2);
      assertThat(s.get(Counter.OPEN_AHEAD_STREAMS_WASTED)).isZero();
    }
  }

  static ObjectRef ref(int i) {
    return new ObjectRef(location("table/" + i + ".parquet"), table[i].length, etag(i));
  }

  /** The bytes of {@code ranges} ("bytes=a-b"), each counted once however many GETs carried it. */
  static BitSet bytes(List<String> ranges) {
    BitSet b = new BitSet();
    for (String r : ranges) {
      String[] ab = r.substring("bytes=".length()).split("-");
      b.set(Integer.parseInt(ab[0]), Integer.parseInt(ab[1]) + 1);
    }
    return b;
  }

  /** The sum of the lengths of {@code ranges}: more than {@link #bytes}' count if a byte came twice. */
  static long carried(List<String> ranges) {
    long n = 0;
    for (String r : ranges) {
      String[] ab = r.substring("bytes=".length()).split("-");
      n += Long.parseLong(ab[1]) - Long.parseLong(ab[0]) + 1;
    }
    return n;
  }

  /** Table file {@code i}'s tail and, for each row group, the chunks of {@code columns}. */
  static BitSet tailAnd(int i, int... columns) {
    BitSet b = new BitSet();
    b.set((int) (table[i].length - tail(table[i].length)), table[i].length);
    for (int g = 0; g < GROUPS; g++) {
      for (int col : columns) {
        b.set((int) chunkStart(g, col), (int) chunkStart(g, col) + CHUNK);
      }
    }
    return b;
  }

  /** Waits, at most 20 s, until the link carried {@code expected} of table file {@code i}; its GETs then. */
  static List<String> awaitBytes(int i, BitSet expected) throws InterruptedException {
    long deadline = System.nanoTime() + 20_000_000_000L;
    List<String> g = gets("table/" + i + ".parquet");
    while (!bytes(g).equals(expected) && System.nanoTime() < deadline) {
      Thread.sleep(10);
      g = gets("table/" + i + ".parquet");
    }
    return g;
  }

  /**
   * A file hinted as the next one follows the stream read now: the predicted columns that stream touches
   * are fetched for the next file before it is opened, once each, and its reader then finds them with no GET
   * of its own. Only the nearest file follows; the one after it follows that one once it is opened.
   */
  @Test
  void theNextFileFetchesTheColumnsTheCurrentStreamTouchesAndItsReaderMakesNoGetOfItsOwn() throws Exception {
    try (Slipstream c = learnedClient()) {
      try (SlipstreamInputStream in = c.open(location("table/2.parquet"), options(2))) {
        readFooter(in, table[2]);
        c.hintNextFromTheEnd(List.of(ref(3), ref(4)), ReadPolicy.RANDOM, in);
        readColumns(in, 2);
        List<String> three = awaitBytes(3, tailAnd(3, 1, 2));
        assertThat(bytes(three)).as("file 3 before its open: its tail and columns 1 and 2").isEqualTo(tailAnd(3, 1, 2));
        assertThat(carried(three)).as("each byte once").isEqualTo(tailAnd(3, 1, 2).cardinality());
      }
      assertThat(bytes(gets("table/4.parquet"))).as("file 4, not the nearest: its tail").isEqualTo(tailAnd(4));
      List<String> before = gets("table/3.parquet");
      try (SlipstreamInputStream in = c.open(location("table/3.parquet"), options(3))) {
        readFooter(in, table[3]);
        c.hintNextFromTheEnd(List.of(ref(4), ref(5)), ReadPolicy.RANDOM, in);
        readColumns(in, 3);
      }
      assertThat(gets("table/3.parquet")).as("no GET of file 3's reader").isEqualTo(before);
      // File 4, now the nearest, followed file 3 once hinted again: 3's columns at once.
      List<String> four = awaitBytes(4, tailAnd(4, 1, 2));
      try (SlipstreamInputStream in = c.open(location("table/4.parquet"), options(4))) {
        readFooter(in, table[4]);
        readColumns(in, 4);
      }
      assertThat(gets("table/4.parquet")).as("no GET of file 4's reader").isEqualTo(four);
      assertThat(bytes(four)).isEqualTo(tailAnd(4, 1, 2));
      assertThat(carried(four)).as("each byte once").isEqualTo(tailAnd(4, 1, 2).cardinality());
      ReadStatistics s = c.statistics();
      assertThat(s.get(Counter.OPEN_AHEAD_STREAMS_USED)).isEqualTo(2);
      assertThat(s.get(Counter.PREDICTED_COLUMN_BYTES_UNREAD)).as("every column fetched ahead was read").isZero();
    }
  }

  /**
   * A query that reads fewer columns than the last one: the next file fetches only those the stream read now
   * touches (column 2), not every column predicted for the schema (1 and 2).
   */
  @Test
  void aNextFileFetchesOnlyTheColumnsTheStreamReadNowTouched() throws Exception {
    try (Slipstream c = learnedClient()) {
      try (SlipstreamInputStream in = c.open(location("table/2.parquet"), options(2))) {
        readFooter(in, table[2]);
        c.hintNextFromTheEnd(List.of(ref(3)), ReadPolicy.RANDOM, in);
        for (int g = 0; g < GROUPS; g++) {
          readAt(in, table[2], chunkStart(g, 2), CHUNK);
        }
        List<String> three = awaitBytes(3, tailAnd(3, 2));
        assertThat(bytes(three)).as("file 3: its tail and column 2").isEqualTo(tailAnd(3, 2));
      }
      try (SlipstreamInputStream in = c.open(location("table/3.parquet"), options(3))) {
        readFooter(in, table[3]);
        for (int g = 0; g < GROUPS; g++) {
          readAt(in, table[3], chunkStart(g, 2), CHUNK);
        }
      }
      assertThat(bytes(gets("table/3.parquet"))).as("nothing of column 1").isEqualTo(tailAnd(3, 2));
    }
  }

  /**
   * A file of another schema, for which the client predicts the same column numbers, follows the stream
   * read now but fetches none of its columns: a column number means another column there.
   */
  @Test
  void aNextFileOfAnotherSchemaFetchesNoColumns() throws Exception {
    int width = COLUMNS + 1;
    byte[][] other = new byte[3][];
    for (int i = 0; i < other.length; i++) {
      other[i] = ParquetTestFiles.file(GROUPS, width, CHUNK, DICTIONARY, 0, 90 + i);
      S3.server().putObject(BUCKET, "other/" + i + ".parquet", other[i]);
    }
    try (Slipstream c = learnedClient()) {
      for (int i = 0; i < 2; i++) { // columns 1 and 2 of this schema predicted too
        try (SlipstreamInputStream in = c.open(location("other/" + i + ".parquet"), OpenOptions.length(other[i].length)
            .withEtag(S3.server().etag(BUCKET, "other/" + i + ".parquet")).withPolicy(ReadPolicy.RANDOM))) {
          readFooter(in, other[i]);
          for (int g = 0; g < GROUPS; g++) {
            readVectored(in, other[i], 4 + ((long) g * width + 1) * CHUNK, 2 * CHUNK);
          }
        }
      }
      shaper.clearRequestLog();
      ObjectRef ref = new ObjectRef(location("other/2.parquet"), other[2].length, S3.server().etag(BUCKET, "other/2.parquet"));
      String tailOnly = range(other[2].length - tail(other[2].length), other[2].length - 1);
      try (SlipstreamInputStream in = c.open(location("table/2.parquet"), options(2))) {
        readFooter(in, table[2]);
        c.hintNextFromTheEnd(List.of(ref), ReadPolicy.RANDOM, in);
        long deadline = System.nanoTime() + 20_000_000_000L;
        while (gets("other/2.parquet").isEmpty() && System.nanoTime() < deadline) {
          Thread.sleep(10);
        }
        readColumns(in, 2);
      }
      Thread.sleep(500); // what it would fetch starts at the touch itself
      assertThat(gets("other/2.parquet")).as("its tail only").containsExactly(tailOnly);
      assertThat(bytes(gets("table/2.parquet"))).isEqualTo(tailAnd(2, 1, 2));
    }
  }

  /**
   * With {@code openahead.files} streams prepared, a hint's nearest file pushes out the oldest, but a
   * farther one pushes out none: with many threads reading at once, the oldest is most often another
   * thread's nearest, about to be taken.
   */
  @Test
  void aFartherGuessPushesOutNoPreparedStream() throws Exception {
    try (Slipstream c = Slipstream.builder().isolatedResources().config(TestClients.config(shaper.endpoint())
        .set("block.size", "1M").set("memory.max", "32M").set("openahead.files", "2").build()).build()) {
      c.hintNextFromTheEnd(List.of(ref(3), ref(4)), ReadPolicy.RANDOM);
      c.hintNextFromTheEnd(List.of(ref(5), ref(6)), ReadPolicy.RANDOM);
      ReadStatistics s = c.statistics();
      assertThat(s.get(Counter.OPEN_AHEAD_STREAMS_STARTED)).as("3, 4, then 5 in place of 3; not 6").isEqualTo(3);
      assertThat(s.get(Counter.OPEN_AHEAD_STREAMS_WASTED)).as("3, pushed out").isEqualTo(1);
      for (int i : new int[] {4, 5}) {
        try (SlipstreamInputStream in = c.open(location("table/" + i + ".parquet"), options(i))) {
          readFooter(in, table[i]);
        }
      }
      assertThat(s.get(Counter.OPEN_AHEAD_STREAMS_USED)).isEqualTo(2);
    }
  }

  @Test
  void anOpenOfAnotherVersionOrPolicyGetsAStreamOfItsOwnAndTheKeptOneIsClosed() throws Exception {
    try (Slipstream c = learnedClient()) {
      SlipstreamInputStream footer = keptFooterStream(c, 5);
      try (SlipstreamInputStream in = c.open(location("table/5.parquet"), options(5).withPolicy(ReadPolicy.SEQUENTIAL))) {
        assertThat(in).isNotSameAs(footer);
      }
      assertThatThrownBy(() -> footer.read()).isInstanceOf(IOException.class);
      SlipstreamInputStream again = keptFooterStream(c, 5);
      try (SlipstreamInputStream in = c.open(location("table/5.parquet"), options(5).withEtag("\"another\""))) {
        assertThat(in).isNotSameAs(again);
      }
      assertThatThrownBy(() -> again.read()).isInstanceOf(IOException.class);
      assertThat(c.statistics().get(Counter.OPEN_AHEAD_STREAMS_WASTED)).isEqualTo(2);
      assertThat(c.statistics().get(Counter.OPEN_AHEAD_STREAMS_USED)).isZero();
    }
  }

  @Test
  void aStreamKeptForAReopenThatNeverComesIsClosedWithTheClientCountedWastedAndItsMemoryBack() throws Exception {
    SlipstreamInputStream footer;
    ReadStatistics s;
    try (Slipstream c = learnedClient()) {
      footer = keptFooterStream(c, 6);
      assertThat(c.memoryInUse()).as("the kept stream's tail and columns").isPositive();
      s = c.statistics();
      c.close();
      assertThat(c.memoryInUse()).as("once the client closed").isZero();
    }
    assertThatThrownBy(() -> footer.read()).isInstanceOf(IOException.class);
    assertThat(s.get(Counter.OPEN_AHEAD_STREAMS_WASTED)).isEqualTo(1);
    assertThat(s.get(Counter.OPEN_AHEAD_STREAMS_USED)).isZero();
  }

  /**
   * Wrong guesses: hinted files never opened as hinted (here, named by an ETag S3 does not have, so each
   * prepared stream's first read fails too) are closed as newer hints push them out, counted wasted, and
   * once most of the last 16 or more were wasted, it switches itself off: later hints open nothing.
   */
  @Test
  void wrongGuessesAreClosedCountedAndSwitchItOff() throws Exception {
    try (Slipstream c = learnedClient()) {
      for (int n = 0; n < 40 && c.statistics().get(Counter.OPEN_AHEAD_DISABLED) == 0; n++) {
        c.hintNextFromTheEnd(List.of(new ObjectRef(location("table/" + (2 + n % 5) + ".parquet"),
            table[2 + n % 5].length, "\"not-" + n + "\"")), ReadPolicy.RANDOM);
      }
      ReadStatistics s = c.statistics();
      assertThat(s.get(Counter.OPEN_AHEAD_DISABLED)).isEqualTo(1);
      assertThat(s.get(Counter.OPEN_AHEAD_STREAMS_WASTED)).isGreaterThanOrEqualTo(16);
      long started = s.get(Counter.OPEN_AHEAD_STREAMS_STARTED);
      c.hintNextFromTheEnd(List.of(new ObjectRef(location("table/2.parquet"), table[2].length, etag(2))),
          ReadPolicy.RANDOM);
      assertThat(s.get(Counter.OPEN_AHEAD_STREAMS_STARTED)).as("nothing after it switched off").isEqualTo(started);
      try (SlipstreamInputStream in = c.open(location("table/2.parquet"), options(2))) {
        readFooter(in, table[2]);
        readColumns(in, 2);
      }
      assertThat(s.get(Counter.OPEN_AHEAD_STREAMS_USED)).isZero();
    }
  }

  @Test
  void aStreamOfAnotherClientIsClosedNotKept() throws Exception {
    try (Slipstream c = learnedClient(); Slipstream other = newClient()) {
      SlipstreamInputStream footer = other.open(location("table/2.parquet"), options(2));
      readFooter(footer, table[2]);
      c.closeForReopen(footer);
      assertThatThrownBy(() -> footer.read()).isInstanceOf(IOException.class);
      assertThat(c.statistics().get(Counter.OPEN_AHEAD_STREAMS_STARTED)).isZero();
    }
  }
}
