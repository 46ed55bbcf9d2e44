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
 * The ORC tail is the plan: the requests, read off the wire, of a reader that opens an ORC file again
 * after a first stream read its tail, as Spark (the schema first) and Hive (the tail carried by the
 * split) do. The record reader's first read is a stripe's footer; then the streams of its columns.
 */
@Timeout(120)
class OrcPlanRequestsTest {
  @RegisterExtension static final S3ServerExtension S3 = new S3ServerExtension();
  static final String BUCKET = "orc-plans";
  static final int STRIPES = 5;
  static final int DATA = 300_000;
  /** The tail orc-core reads first: the last 16 KiB. */
  static final int TAIL_READ = 16 * 1024;
  static LinkShaper shaper;
  static OrcTailTest.OrcFileBytes orc;

  @BeforeAll
  static void setUp() throws IOException {
    S3.server().createBucket(BUCKET);
    orc = new OrcTailTest.OrcFileBytes(2, STRIPES, DATA); // Snappy, as pyarrow writes
    S3.server().putObject(BUCKET, "t.orc", orc.file);
    shaper = LinkShaper.start(S3.server().endpoint(), LinkProfile.LOOPBACK, 3);
  }

  /** A client of 4 MiB blocks: the file (1.5 MB) is one block, as a 6 MB file is of the default 8 MiB. */
  static Slipstream newClient() {
    return Slipstream.builder().isolatedResources()
        .config(TestClients.config(shaper.endpoint()).set("block.size", "4M").set("memory.max", "32M").build())
        .build();
  }

  @AfterAll
  static void tearDown() {
    shaper.close();
  }

  @BeforeEach
  void forget() {
    shaper.clearRequestLog();
  }

  @Test
  void aSecondOpenWhoseFirstReadIsAStripeFooterReadsRangesByThePlanOfTheFirst() throws Exception {
    try (Slipstream c = newClient()) {
      try (SlipstreamInputStream tail = c.open(location())) {
        readAt(tail, orc.file.length - TAIL_READ, TAIL_READ);
        assertThat(tail.statistics().get(Counter.ORC_TAILS_PARSED)).isEqualTo(1);
      }
      shaper.clearRequestLog();
      try (SlipstreamInputStream in = c.open(location())) {
        for (int s = 0; s < 2; s++) {
          readAt(in, footerStart(s), orc.stripeFooterLengths.get(s).intValue());
          readAt(in, columnStart(s, 2), DATA / 3); // column 2's streams
        }
        List<String> gets = gets();
        // Every stripe's footer at the first one's read (OrcStripesAheadTest: those of the stripes not
        // read yet may still be on their way), the last in the range the tail was read as; then the
        // streams of each stripe read, and from the second stripe on, the next one's.
        assertThat(gets).as("GETs").hasSizeBetween(4, STRIPES + 3)
            .contains(range(footerStart(0), footerStart(0) + orc.stripeFooterLengths.get(0) - 1),
                range(footerStart(1), footerStart(1) + orc.stripeFooterLengths.get(1) - 1))
            .allSatisfy(r -> assertThat(length(r)).isLessThanOrEqualTo(DATA / 3));
        // The streams of a stripe whose footer was read are fetched as asked, no more.
        assertThat(gets).contains(range(columnStart(0, 2), columnStart(0, 2) + DATA / 3 - 1),
            range(columnStart(1, 2), columnStart(1, 2) + DATA / 3 - 1));
        assertThat(in.statistics().get(Counter.ORC_PLANS_REUSED)).isEqualTo(1);
        assertThat(in.statistics().get(Counter.PREFETCH_USED) + in.statistics().get(Counter.PREFETCH_WASTED)).isZero();
      }
    }
  }

  @Test
  void withoutAPlanTheSameSecondOpenReadsTheWholeFile() throws Exception {
    // What the plan changes: a new client knows no tail, and takes the stripe footer read as a jump into
    // an object of one block, fetched whole (the behaviour for files that are not columnar).
    try (Slipstream c = newClient(); SlipstreamInputStream in = c.open(location())) {
      readAt(in, footerStart(0), orc.stripeFooterLengths.get(0).intValue());
      assertThat(gets()).containsExactly(range(0, orc.file.length - 1));
    }
  }

  @Test
  void aStripeFooterReadTeachesThePlanTheStreamsOfItsStripeForLaterStreams() throws Exception {
    try (Slipstream c = newClient()) {
      try (SlipstreamInputStream first = c.open(location())) {
        readAt(first, orc.file.length - TAIL_READ, TAIL_READ);
        readAt(first, footerStart(3), orc.stripeFooterLengths.get(3).intValue());
      }
      shaper.clearRequestLog();
      try (SlipstreamInputStream in = c.open(location())) {
        readAt(in, columnStart(3, 1), 5_000); // a range in a known stream after a jump: as asked
        // ... and perhaps (if it was sent before the close) the last stripe's footer, ahead of the reader,
        // in the range the tail was read as.
        assertThat(gets()).contains(range(columnStart(3, 1), columnStart(3, 1) + 5_000 - 1))
            .isSubsetOf(range(columnStart(3, 1), columnStart(3, 1) + 5_000 - 1),
                range(orc.file.length - TAIL_READ, orc.file.length - 1));
      }
    }
  }

  static long footerStart(int stripe) {
    return orc.stripeOffsets.get(stripe) + OrcTailTest.INDEX + DATA;
  }

  /** Where column {@code c}'s streams (PRESENT, then DATA) start in {@code stripe}: after the columns before it. */
  static long columnStart(int stripe, int c) {
    return orc.stripeOffsets.get(stripe) + OrcTailTest.INDEX + (long) (c - 1) * (DATA / 3);
  }

  static void readAt(SlipstreamInputStream in, long position, int len) throws IOException {
    byte[] b = new byte[len];
    in.readFully(position, b, 0, len);
    assertThat(b).isEqualTo(Arrays.copyOfRange(orc.file, (int) position, (int) position + len));
  }

  static S3Location location() {
    return S3Location.parse("s3://" + BUCKET + "/t.orc");
  }

  static List<String> gets() {
    return shaper.requestLog().stream().filter(r -> r.isGet() && r.path().endsWith("/t.orc"))
        .map(RequestInfo::range).toList();
  }

  static long length(String range) {
    String[] ends = range.substring("bytes=".length()).split("-");
    return Long.parseLong(ends[1]) - Long.parseLong(ends[0]) + 1;
  }

  static String range(long first, long last) {
    return "bytes=" + first + "-" + last;
  }
}
