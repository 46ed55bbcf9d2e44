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
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * What an ORC reader's stream fetches ahead of it: the requests, read off the wire, of a record reader
 * that reads the file as orc-core's does (each stripe's footer, then its columns' streams), opened after
 * a first stream read the tail (the split computation, the schema). At the first stripe footer read,
 * every stripe footer of the split is fetched at once, so each later stripe costs one round trip (its
 * streams), not two; the last stripe's footer, which lies in the tail the first stream read, is not
 * fetched again; and once the reader moves on from its first stripe, the next stripes' streams of the
 * columns it read there are fetched ahead of it.
 */
@Timeout(120)
class OrcStripesAheadTest {
  @RegisterExtension static final S3ServerExtension S3 = new S3ServerExtension();
  static final String BUCKET = "orc-footers";
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

  /**
   * A client of 4 MiB blocks: the file (1.5 MB) is one block, as a 6 MB file is of the default 8 MiB; with
   * the memory cache, as by default.
   */
  static Slipstream newClient() {
    return Slipstream.builder().isolatedResources()
        .config(TestClients.config(shaper.endpoint()).set("block.size", "4M").set("memory.max", "32M")
            .set("cache.memory", "true").build())
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
  void theFirstStripeFooterReadFetchesEveryStripeFooterAtOnceAndEachStripeThenCostsOneRequest() throws Exception {
    try (Slipstream c = newClient()) {
      readTail(c);
      try (SlipstreamInputStream in = c.open(location())) {
        List<List<String>> before = new ArrayList<>(); // the GETs made before each stripe's streams are read
        List<String> footers = new ArrayList<>(); // every stripe footer but the last, held with the tail
        for (int s = 0; s < STRIPES - 1; s++) {
          footers.add(range(footerStart(s), footerStart(s) + footerLength(s) - 1));
        }
        for (int s = 0; s < STRIPES; s++) {
          readAt(in, footerStart(s), footerLength(s));
          if (s == 1) {
            awaitGets(footers); // the footers fetched ahead reach the server from fetch threads, in any order
          }
          before.add(gets());
          readAt(in, columnStart(s, 2), DATA / 3); // column 2's streams, planned from the footer
        }
        // Before the second stripe's streams are read, every stripe footer has been asked for, without the
        // reader asking: the last one from the tail the first stream read, kept by the client (no request),
        // the others each by a request of exactly its bytes.
        assertThat(before.get(1)).containsAll(footers);
        List<String> gets = gets();
        assertThat(gets).as("no GET of the last stripe's footer, which the tail held")
            .noneMatch(r -> first(r) <= footerStart(STRIPES - 1) && footerStart(STRIPES - 1) <= last(r));
        // Then each stripe costs one request: its streams, as asked (or fetched ahead as the reader asks).
        assertThat(gets).hasSize(STRIPES - 1 + STRIPES);
        for (int s = 0; s < STRIPES; s++) {
          assertThat(gets).contains(range(columnStart(s, 2), columnStart(s, 2) + DATA / 3 - 1));
        }
        assertThat(in.statistics().get(Counter.ORC_STRIPE_FOOTERS_FETCHED)).isEqualTo(STRIPES);
      }
    }
  }

  @Test
  void theWaveStopsAtTheSplitsEnd() throws Exception {
    try (Slipstream c = newClient()) {
      String etag = readTail(c);
      // A split that holds the starts of stripes 0 and 1: stripes 2 to 4 are another task's.
      long splitEnd = orc.stripeOffsets.get(2) - 1;
      try (SlipstreamInputStream in = c.open(location(), OpenOptions.known(orc.file.length, etag).withSplitEnd(splitEnd))) {
        readAt(in, footerStart(0), footerLength(0));
        readAt(in, footerStart(1), footerLength(1)); // in the wave: waited for, not fetched again
        List<String> gets = gets();
        assertThat(gets).containsExactlyInAnyOrder(range(footerStart(0), footerStart(0) + footerLength(0) - 1),
            range(footerStart(1), footerStart(1) + footerLength(1) - 1));
        assertThat(in.statistics().get(Counter.ORC_STRIPE_FOOTERS_FETCHED)).isEqualTo(2);
      }
    }
  }

  @Test
  void theFootersTeachThePlanTheirStripesStreamsForLaterStreams() throws Exception {
    try (Slipstream c = newClient()) {
      readTail(c);
      try (SlipstreamInputStream in = c.open(location())) {
        readAt(in, footerStart(0), footerLength(0)); // the wave: every footer
        // A byte of stripe 2's footer (not the footer, so not a footer read the plan learns from): it waits
        // for the footer's span, which taught the plan before the byte was copied.
        readAt(in, footerStart(2) + 1, 1);
      }
      shaper.clearRequestLog();
      try (SlipstreamInputStream in = c.open(location())) {
        // A range in stripe 2, whose footer no reader read, but the wave fetched: a known stream after a
        // jump, fetched as asked (with no plan for it, at least 64 KiB). Its own wave asks for the next
        // stripes' footers: stripe 3's (too small to be kept by the client) and the tail (kept).
        readAt(in, columnStart(2, 1), 5_000);
        assertThat(gets()).contains(range(columnStart(2, 1), columnStart(2, 1) + 5_000 - 1))
            .isSubsetOf(range(columnStart(2, 1), columnStart(2, 1) + 5_000 - 1),
                range(footerStart(3), footerStart(3) + footerLength(3) - 1));
      }
    }
  }

  @Test
  void onceTheReaderMovesOnFromItsFirstStripeTheNextStripesStreamsOfItsColumnsComeAhead() throws Exception {
    try (Slipstream c = newClient()) {
      readTail(c);
      SlipstreamInputStream in = c.open(location());
      try (in) {
        for (int s = 0; s < STRIPES; s++) {
          readAt(in, footerStart(s), footerLength(s));
          // No split declared: from the reader's second stripe on, that stripe's streams and the next one's
          // (started at its footer's read, before the reader asks for them).
          // The next stripe's streams go once its footer is in (fetched with the others at stripe 0).
          long ahead = s == 0 ? 0 : Math.min(s + 1, STRIPES - 1) * (long) (DATA / 3);
          LeakTest.eventually("stripe " + s + "'s streams ahead",
              () -> in.statistics().get(Counter.ORC_STRIPE_AHEAD_BYTES) >= ahead);
          assertThat(in.statistics().get(Counter.ORC_STRIPE_AHEAD_BYTES)).as("ahead at stripe %d's footer", s)
              .isEqualTo(ahead);
          readAt(in, columnStart(s, 2), DATA / 3);
        }
        List<String> gets = gets();
        assertThat(gets).as("each stream once").hasSize(STRIPES - 1 + STRIPES);
        for (int s = 0; s < STRIPES; s++) {
          assertThat(gets).containsOnlyOnce(columnRange(s));
        }
      }
      assertThat(in.statistics().get(Counter.ORC_STRIPE_AHEAD_BYTES_UNREAD)).as("unread").isZero();
    }
  }

  @Test
  void withTheSplitsEndKnownEveryStripeOfTheSplitComesAheadAndNoneBeyond() throws Exception {
    try (Slipstream c = newClient()) {
      String etag = readTail(c);
      long splitEnd = orc.stripeOffsets.get(3) - 1; // stripes 0 to 2
      try (SlipstreamInputStream in = c.open(location(), OpenOptions.known(orc.file.length, etag).withSplitEnd(splitEnd))) {
        readAt(in, footerStart(0), footerLength(0));
        readAt(in, columnStart(0, 2), DATA / 3);
        readAt(in, footerStart(1), footerLength(1));
        // Stripe 2's streams go once its footer is in (fetched with the others at stripe 0).
        LeakTest.eventually("stripes 1 and 2 ahead",
            () -> in.statistics().get(Counter.ORC_STRIPE_AHEAD_BYTES) >= 2 * (DATA / 3));
        assertThat(in.statistics().get(Counter.ORC_STRIPE_AHEAD_BYTES)).as("stripes 1 and 2 at once")
            .isEqualTo(2 * (DATA / 3));
        readAt(in, columnStart(1, 2), DATA / 3);
        readAt(in, footerStart(2), footerLength(2));
        readAt(in, columnStart(2, 2), DATA / 3);
        assertThat(gets()).as("nothing of stripes 3 and 4, another task's")
            .allSatisfy(r -> assertThat(first(r)).isLessThan(orc.stripeOffsets.get(3)))
            .hasSize(3 + 3).contains(columnRange(1), columnRange(2));
        assertThat(in.statistics().get(Counter.ORC_STRIPE_AHEAD_BYTES)).isEqualTo(2 * (DATA / 3));
      }
    }
  }

  @Test
  void aColumnTheReaderReadOnlyPartOfInItsFirstStripeIsNotFetchedAhead() throws Exception {
    try (Slipstream c = newClient()) {
      readTail(c);
      try (SlipstreamInputStream in = c.open(location())) {
        readAt(in, footerStart(0), footerLength(0));
        readAt(in, columnStart(0, 2), DATA / 6); // half the column: a filter skipped row groups
        readAt(in, footerStart(1), footerLength(1));
        readAt(in, footerStart(2), footerLength(2));
        assertThat(gets()).noneMatch(r -> r.equals(columnRange(1)) || r.equals(columnRange(2)));
        assertThat(in.statistics().get(Counter.ORC_STRIPE_AHEAD_BYTES)).isZero();
      }
    }
  }

  /** Column 2's streams of {@code stripe}, as one range. */
  static String columnRange(int stripe) {
    return range(columnStart(stripe, 2), columnStart(stripe, 2) + DATA / 3 - 1);
  }

  /** The first reader (the split computation, the schema): the last 16 KiB, as orc-core reads them; then gone. */
  static String readTail(Slipstream c) throws IOException {
    try (SlipstreamInputStream tail = c.open(location())) {
      readAt(tail, orc.file.length - TAIL_READ, TAIL_READ);
      assertThat(tail.statistics().get(Counter.ORC_TAILS_PARSED)).isEqualTo(1);
      shaper.clearRequestLog();
      return tail.etag();
    }
  }

  static long footerStart(int stripe) {
    return orc.stripeOffsets.get(stripe) + OrcTailTest.INDEX + DATA;
  }

  static int footerLength(int stripe) {
    return orc.stripeFooterLengths.get(stripe).intValue();
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

  /**
   * Waits (at most 10 s) until the server has seen a GET of each of {@code ranges}: requests started ahead
   * are sent from fetch threads and may still be on their way when the reader's own read returns.
   */
  static void awaitGets(List<String> ranges) throws InterruptedException {
    long deadline = System.nanoTime() + 10_000_000_000L;
    while (!gets().containsAll(ranges) && System.nanoTime() < deadline) {
      Thread.sleep(10);
    }
  }

  static long first(String range) {
    return Long.parseLong(range.substring("bytes=".length()).split("-")[0]);
  }

  static long last(String range) {
    return Long.parseLong(range.substring("bytes=".length()).split("-")[1]);
  }

  static String range(long first, long last) {
    return "bytes=" + first + "-" + last;
  }
}
