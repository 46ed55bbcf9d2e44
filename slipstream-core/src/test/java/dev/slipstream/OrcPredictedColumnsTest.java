/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream;

import static org.assertj.core.api.Assertions.assertThat;

import dev.slipstream.internal.orc.OrcTailTest;
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
 * The columns an ORC reader reads, predicted across the files of one schema, read off the wire: a client
 * whose readers read 2 of the 3 columns of two files of a schema fetches those columns' streams of a third
 * file's first stripe ahead, at once, at its first stripe; not of a file of another schema; and not once
 * the schema's predicted bytes went unread.
 */
@Timeout(120)
class OrcPredictedColumnsTest {
  @RegisterExtension static final S3ServerExtension S3 = new S3ServerExtension();
  static final String BUCKET = "orc-predicted";
  static final int STRIPES = 5;
  static final int DATA = 300_000;
  /** Columns 1 and 2 (of 3), adjacent: their data streams in a stripe. */
  static final int TWO_COLUMNS = 2 * (DATA / 3);
  /** The tail orc-core reads first: the last 16 KiB. */
  static final int TAIL_READ = 16 * 1024;
  static LinkShaper shaper;
  static OrcTailTest.OrcFileBytes orc;
  static OrcTailTest.OrcFileBytes other;

  @BeforeAll
  static void setUp() throws IOException {
    S3.server().createBucket(BUCKET);
    orc = new OrcTailTest.OrcFileBytes(2, STRIPES, DATA);
    other = new OrcTailTest.OrcFileBytes(2, STRIPES, DATA, "other_");
    for (int i = 0; i < 10; i++) {
      S3.server().putObject(BUCKET, "t" + i + ".orc", orc.file);
    }
    S3.server().putObject(BUCKET, "u.orc", other.file);
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
        .config(TestClients.config(shaper.endpoint()).set("block.size", "4M").set("memory.max", "32M")
            .set("cache.memory", "true").build())
        .build();
  }

  @Test
  void aThirdFileOfTheSchemaHasItsFirstStripesColumnsFetchedAheadAtOnce() throws Exception {
    try (Slipstream c = newClient()) {
      readFile(c, "t0.orc", orc);
      readFile(c, "t1.orc", orc);
      shaper.clearRequestLog();
      long[] third = readFile(c, "t2.orc", orc);
      List<String> gets = gets("t2.orc");
      // Stripe 0's two columns in one request, fetched ahead: not the reader's two requests, one a column.
      assertThat(gets).as("stripe 0's columns as one request").containsOnlyOnce(columnsRange(orc, 0))
          .doesNotContain(columnRange(orc, 0, 1), columnRange(orc, 0, 2));
      for (int s = 0; s < STRIPES; s++) {
        assertThat(gets).as("stripe %d's columns", s).containsOnlyOnce(columnsRange(orc, s));
      }
      // Every stripe's two columns came ahead of the reader, and it read every byte of them.
      assertThat(third[0]).as("bytes ahead").isEqualTo((long) STRIPES * TWO_COLUMNS);
      assertThat(third[1]).as("unread").isZero();
    }
  }

  @Test
  void aFileOfAnotherSchemaGetsNoPrediction() throws Exception {
    try (Slipstream c = newClient()) {
      readFile(c, "t3.orc", orc);
      readFile(c, "t4.orc", orc);
      shaper.clearRequestLog();
      long[] u = readFile(c, "u.orc", other);
      // Learnt from its own first stripe, as without predictions: the reader asks for stripe 0's columns.
      assertThat(gets("u.orc")).contains(columnRange(other, 0, 1), columnRange(other, 0, 2))
          .doesNotContain(columnsRange(other, 0));
      assertThat(u[0]).as("bytes ahead: stripes 1 on").isEqualTo((long) (STRIPES - 1) * TWO_COLUMNS);
    }
  }

  @Test
  void aSchemaWhosePredictedBytesGoUnreadIsSwitchedOff() throws Exception {
    try (Slipstream c = newClient()) {
      readFile(c, "t5.orc", orc);
      readFile(c, "t6.orc", orc);
      // Readers that read stripe 0's footer and its first column, then stop (a filter dropped the rest):
      // stripe 0's second column and stripe 1's columns, predicted, go unread. Judged over the schema's
      // files with bytes fetched ahead (at least 4; the two above fetched stripes 1 to 4 ahead and read them),
      // more than a quarter unread switches the schema off: by the third such reader.
      for (int i = 0; i < 4; i++) {
        readTail(c, "t" + (7 + i % 3) + ".orc", orc);
        try (SlipstreamInputStream in = c.open(location("t" + (7 + i % 3) + ".orc"))) {
          readAt(in, orc, footerStart(orc, 0), footerLength(orc, 0));
          readAt(in, orc, columnStart(orc, 0, 1), DATA / 3);
          if (i == 0) {
            assertThat(in.statistics().get(Counter.ORC_STRIPE_AHEAD_BYTES)).as("predicted at first")
                .isGreaterThanOrEqualTo(TWO_COLUMNS);
          }
        }
      }
      readTail(c, "t9.orc", orc);
      try (SlipstreamInputStream in = c.open(location("t9.orc"))) {
        readAt(in, orc, footerStart(orc, 0), footerLength(orc, 0));
        readAt(in, orc, columnStart(orc, 0, 1), DATA / 3);
        assertThat(in.statistics().get(Counter.ORC_STRIPE_AHEAD_BYTES)).as("switched off").isZero();
      }
    }
  }

  /**
   * Reads {@code key} as orc-core does, after a first stream read the tail: each stripe's footer, then
   * columns 1 and 2's streams, one read a column. The stream's bytes fetched ahead and of them unread.
   */
  static long[] readFile(Slipstream c, String key, OrcTailTest.OrcFileBytes f) throws IOException {
    readTail(c, key, f);
    SlipstreamInputStream in = c.open(location(key));
    try (in) {
      for (int s = 0; s < STRIPES; s++) {
        readAt(in, f, footerStart(f, s), footerLength(f, s));
        readAt(in, f, columnStart(f, s, 1), DATA / 3);
        readAt(in, f, columnStart(f, s, 2), DATA / 3);
      }
    }
    return new long[] {in.statistics().get(Counter.ORC_STRIPE_AHEAD_BYTES),
        in.statistics().get(Counter.ORC_STRIPE_AHEAD_BYTES_UNREAD)};
  }

  /** The first reader (the split computation, the schema): the last 16 KiB, as orc-core reads them. */
  static void readTail(Slipstream c, String key, OrcTailTest.OrcFileBytes f) throws IOException {
    try (SlipstreamInputStream tail = c.open(location(key))) {
      readAt(tail, f, f.file.length - TAIL_READ, TAIL_READ);
    }
  }

  static long footerStart(OrcTailTest.OrcFileBytes f, int stripe) {
    return f.stripeOffsets.get(stripe) + OrcTailTest.INDEX + DATA;
  }

  static int footerLength(OrcTailTest.OrcFileBytes f, int stripe) {
    return f.stripeFooterLengths.get(stripe).intValue();
  }

  /** Where column {@code c}'s streams (PRESENT, then DATA) start in {@code stripe}. */
  static long columnStart(OrcTailTest.OrcFileBytes f, int stripe, int c) {
    return f.stripeOffsets.get(stripe) + OrcTailTest.INDEX + (long) (c - 1) * (DATA / 3);
  }

  static String columnRange(OrcTailTest.OrcFileBytes f, int stripe, int c) {
    return range(columnStart(f, stripe, c), columnStart(f, stripe, c) + DATA / 3 - 1);
  }

  /** Columns 1 and 2's streams of {@code stripe}, as one range. */
  static String columnsRange(OrcTailTest.OrcFileBytes f, int stripe) {
    return range(columnStart(f, stripe, 1), columnStart(f, stripe, 1) + TWO_COLUMNS - 1);
  }

  static void readAt(SlipstreamInputStream in, OrcTailTest.OrcFileBytes f, long position, int len) throws IOException {
    byte[] b = new byte[len];
    in.readFully(position, b, 0, len);
    assertThat(b).isEqualTo(Arrays.copyOfRange(f.file, (int) position, (int) position + len));
  }

  static S3Location location(String key) {
    return S3Location.parse("s3://" + BUCKET + "/" + key);
  }

  static List<String> gets(String key) {
    return shaper.requestLog().stream().filter(r -> r.isGet() && r.path().endsWith("/" + key))
        .map(RequestInfo::range).toList();
  }

  static String range(long first, long last) {
    return "bytes=" + first + "-" + last;
  }
}
