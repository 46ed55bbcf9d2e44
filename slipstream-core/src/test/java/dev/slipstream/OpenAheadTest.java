/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream;

import static dev.slipstream.LeakTest.eventually;
import static dev.slipstream.LeakTest.fetchThreads;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import dev.slipstream.testkit.FaultKind;
import dev.slipstream.testkit.LinkProfile;
import dev.slipstream.testkit.LinkShaper;
import dev.slipstream.testkit.S3ServerExtension;
import dev.slipstream.testkit.TestData;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Open-ahead against a real server, through the link shaper (which counts the requests): prepared first
 * blocks are used, wrong guesses are dropped and counted and give their memory back, and no stream ever
 * gets bytes of a version other than the one it opened.
 */
@Timeout(180)
class OpenAheadTest {
  @RegisterExtension static final S3ServerExtension S3 = new S3ServerExtension();
  static final String BUCKET = "openahead";
  static final int BLOCK = 256 * 1024;
  static final int FILES = 24;

  LinkShaper shaper;

  @BeforeAll
  static void setUp() {
    S3.server().createBucket(BUCKET);
    for (int i = 0; i < FILES; i++) {
      S3.server().putGenerated(BUCKET, key(i), seed(i), size(i));
    }
  }

  @AfterEach
  void stopShaper() {
    if (shaper != null) {
      shaper.close();
    }
  }

  static String key(int i) {
    return "small/part-" + i;
  }

  static long seed(int i) {
    return 1000 + i;
  }

  /** Sizes from 1 byte to exactly one block, most of them under a block. */
  static int size(int i) {
    return i == 0 ? 1 : i == 1 ? BLOCK : 1 + (int) ((i * 40_503L) % BLOCK);
  }

  static ObjectRef ref(String key, long size) {
    return new ObjectRef(new S3Location(BUCKET, key), size, S3.server().etag(BUCKET, key));
  }

  static List<ObjectRef> refs(int from, int to) {
    List<ObjectRef> refs = new ArrayList<>();
    for (int i = from; i < to; i++) {
      refs.add(ref(key(i), size(i)));
    }
    return refs;
  }

  private Slipstream client(LinkProfile profile, String... extra) {
    shaper = LinkShaper.start(S3.server().endpoint(), profile, 11);
    SlipstreamConfig.Builder b = TestClients.config(shaper.endpoint())
        .set("block.size", "256K").set("memory.max", "16M").set("openahead.files", "4")
        .set("retry.interval", "10ms").set("retry.interval.max", "50ms");
    for (int i = 0; i < extra.length; i += 2) {
      b.set(extra[i], extra[i + 1]);
    }
    return Slipstream.builder().config(b.build()).isolatedResources().build();
  }

  private static byte[] readAll(Slipstream client, ObjectRef ref) throws IOException {
    try (SlipstreamInputStream in = client.open(ref.location(), ref.openOptions())) {
      return in.readAllBytes();
    }
  }

  private static void assertBytes(byte[] actual, long seed, long size) {
    assertThat(actual.length).isEqualTo((int) size);
    long bad = TestData.firstMismatch(seed, 0, actual, 0, actual.length);
    if (bad >= 0) {
      fail("wrong byte at " + bad);
    }
  }

  private static long count(Slipstream client, Counter c) {
    return client.statistics().get(c);
  }

  @Test
  void readingInOrderFetchesEachFileOnceFromPreparedBlocks() throws Exception {
    try (Slipstream client = client(LinkProfile.LOOPBACK)) {
      List<ObjectRef> files = refs(0, FILES);
      try (ReadingOrder order = client.readingInOrder(files)) {
        for (int i = 0; i < FILES; i++) {
          assertBytes(readAll(client, files.get(i)), seed(i), size(i));
        }
      }
      assertThat(shaper.requests("GET")).as("one GET per file").isEqualTo(FILES);
      assertThat(shaper.requests("HEAD")).isZero();
      assertThat(count(client, Counter.GET_REQUESTS)).isEqualTo(FILES);
      assertThat(count(client, Counter.OPEN_AHEAD_STARTED)).isEqualTo(FILES);
      assertThat(count(client, Counter.OPEN_AHEAD_USED)).isEqualTo(FILES);
      assertThat(count(client, Counter.OPEN_AHEAD_WASTED)).isZero();
      assertThat(count(client, Counter.OPEN_AHEAD_SKIPPED_MEMORY)).isZero();
      eventually("every buffer back", () -> client.memoryInUse() == 0);
    }
  }

  @Test
  void explicitHintsAreUsedAndBoundedByOpenaheadFiles() throws Exception {
    try (Slipstream client = client(LinkProfile.LOOPBACK)) {
      client.hintNext(refs(2, 12)); // ten named, only the nearest four are fetched
      assertThat(count(client, Counter.OPEN_AHEAD_STARTED)).isEqualTo(4);
      for (int i = 2; i < 6; i++) {
        assertBytes(readAll(client, ref(key(i), size(i))), seed(i), size(i));
      }
      assertThat(count(client, Counter.OPEN_AHEAD_USED)).isEqualTo(4);
      assertThat(shaper.requests("GET")).isEqualTo(4);
      // Not hinted: read as usual.
      assertBytes(readAll(client, ref(key(7), size(7))), seed(7), size(7));
      assertThat(shaper.requests("GET")).isEqualTo(5);
    }
  }

  @Test
  void wrongGuessesAreDroppedCountedAndGiveBackAllMemory() throws Exception {
    Slipstream client = client(LinkProfile.LOOPBACK);
    try {
      client.hintNext(refs(0, 4));
      client.hintNext(refs(4, 8)); // pushes the first four out
      assertThat(count(client, Counter.OPEN_AHEAD_STARTED)).isEqualTo(8);
      assertThat(count(client, Counter.OPEN_AHEAD_WASTED)).isEqualTo(4);
      // One of them is opened after all: read normally, right bytes.
      assertBytes(readAll(client, ref(key(1), size(1))), seed(1), size(1));
      assertThat(count(client, Counter.OPEN_AHEAD_USED)).isZero();
      assertThat(client.memoryInUse()).as("the four prepared blocks, no more").isPositive()
          .isLessThanOrEqualTo(4L * BLOCK);
    } finally {
      client.close();
    }
    assertThat(count(client, Counter.OPEN_AHEAD_WASTED)).isEqualTo(8);
    assertThat(client.openAhead().preparedCount()).isZero();
    assertThat(client.openAhead().fetchesInFlight()).isZero();
    assertThat(client.memoryInUse()).isZero();
  }

  /**
   * A write through this client while a prepared block's GET is still in flight: that GET was sent before
   * the write and may answer with the version replaced, so the block is not handed to the next open.
   */
  @Test
  void aBlockStillInFlightWhenThisClientWritesTheObjectIsNotHandedOver() throws Exception {
    try (Slipstream client = client(LinkProfile.LOOPBACK.withLatency(2000, 2000))) {
      List<ObjectRef> files = refs(0, 2);
      try (ReadingOrder order = client.readingInOrder(files)) {
        client.changed(files.get(0).location()); // what a write through this client says
        assertBytes(readAll(client, files.get(0)), seed(0), size(0));
        assertThat(count(client, Counter.OPEN_AHEAD_USED)).as("handed over after the write").isZero();
      }
      eventually("every buffer back", () -> client.memoryInUse() == 0);
    }
  }

  @Test
  void closingAReadingOrderDropsWhatWasFetchedForIt() throws Exception {
    try (Slipstream client = client(LinkProfile.LOOPBACK)) {
      List<ObjectRef> files = refs(0, 10);
      ReadingOrder order = client.readingInOrder(files);
      assertBytes(readAll(client, files.get(0)), seed(0), size(0));
      order.close();
      assertThat(client.openAhead().preparedCount()).isZero();
      assertThat(count(client, Counter.OPEN_AHEAD_USED)).isEqualTo(1);
      assertThat(count(client, Counter.OPEN_AHEAD_WASTED)).isEqualTo(count(client, Counter.OPEN_AHEAD_STARTED) - 1);
      assertBytes(readAll(client, files.get(1)), seed(1), size(1)); // no longer hinted: read as usual
      eventually("every buffer back", () -> client.memoryInUse() == 0);
    }
  }

  @Test
  void whenMemoryIsShortHintsAreSkippedAndCounted() throws Exception {
    // A 1 MiB budget: open-ahead may hold a quarter of it, one 256 KiB buffer.
    try (Slipstream client = client(LinkProfile.LOOPBACK, "memory.max", "1M")) {
      List<ObjectRef> files = new ArrayList<>();
      for (int i = 0; i < 4; i++) {
        S3.server().putGenerated(BUCKET, "mem/" + i, 50 + i, 200_000); // a 256 KiB buffer each
        files.add(ref("mem/" + i, 200_000));
      }
      client.hintNext(files);
      assertThat(count(client, Counter.OPEN_AHEAD_STARTED)).isEqualTo(1);
      assertThat(count(client, Counter.OPEN_AHEAD_SKIPPED_MEMORY)).isEqualTo(3);
      for (int i = 0; i < files.size(); i++) {
        assertBytes(readAll(client, files.get(i)), 50 + i, 200_000);
      }
      assertThat(count(client, Counter.OPEN_AHEAD_USED)).isEqualTo(1);
      eventually("every buffer back", () -> client.memoryInUse() == 0);
    }
  }

  @Test
  void aFailedPreparedFetchIsNotServedAndTheStreamFetchesAgain() throws Exception {
    try (Slipstream client = client(LinkProfile.LOOPBACK, "retry.max", "0")) {
      ObjectRef f = ref(key(5), size(5));
      shaper.injectNext(FaultKind.STATUS_500, r -> r.isGet() && r.path().endsWith("/" + key(5)));
      client.hintNext(List.of(f));
      eventually("the prepared fetch ended", () -> client.openAhead().fetchesInFlight() == 0);
      assertThat(shaper.faultsInjected(FaultKind.STATUS_500)).isEqualTo(1);
      assertBytes(readAll(client, f), seed(5), size(5));
      assertThat(count(client, Counter.OPEN_AHEAD_USED)).isZero();
      assertThat(count(client, Counter.OPEN_AHEAD_WASTED)).isEqualTo(1);
      eventually("every buffer back", () -> client.memoryInUse() == 0);
    }
  }

  // ---- the object changes between the listing and the read -----------------------------------

  /** A fresh object of {@code size} bytes, version A (seed 1), and its listing entry. */
  private static ObjectRef versionA(String key, long size) {
    S3.server().putGenerated(BUCKET, key, 1, size);
    return ref(key, size);
  }

  @Test
  void overwrittenAfterThePreparedFetchASmallObjectReadsTheListedVersionInFull() throws Exception {
    try (Slipstream client = client(LinkProfile.LOOPBACK)) {
      ObjectRef a = versionA("changing/small", 100_000);
      client.hintNext(List.of(a));
      eventually("the prepared fetch ended", () -> client.openAhead().fetchesInFlight() == 0);
      S3.server().putGenerated(BUCKET, "changing/small", 2, 100_000);
      // Opened as listed (version A): A's bytes, consistently, from the block fetched under If-Match A.
      assertBytes(readAll(client, a), 1, 100_000);
      assertThat(count(client, Counter.OPEN_AHEAD_USED)).isEqualTo(1);
    }
  }

  @Test
  void anObjectLargerThanABlockIsNotPrepared() throws Exception {
    long size = 2L * BLOCK + 5000;
    try (Slipstream client = client(LinkProfile.LOOPBACK)) {
      ObjectRef a = versionA("large/one", size);
      client.hintNext(List.of(a));
      assertThat(client.openAhead().preparedCount()).isZero();
      try (SlipstreamInputStream in = client.open(a.location(), a.openOptions())) {
        byte[] all = in.readAllBytes();
        assertThat(TestData.firstMismatch(1, 0, all, 0, all.length)).isEqualTo(-1);
      }
      assertThat(count(client, Counter.OPEN_AHEAD_STARTED)).isZero();
      assertThat(count(client, Counter.OPEN_AHEAD_WASTED)).isZero();
    }
  }

  @Test
  void openAheadThatGoesUnusedSwitchesItselfOffAndCountsIt() throws Exception {
    try (Slipstream client = client(LinkProfile.LOOPBACK)) {
      List<ObjectRef> never = new java.util.ArrayList<>();
      for (int i = 0; i < 20; i++) {
        never.add(versionA("unused/f" + i, 10_000));
      }
      // Hinted, never opened: each pushed out by the next hints, wasted.
      for (int i = 0; i < never.size(); i += 2) {
        client.hintNext(never.subList(i, i + 2));
      }
      eventually("switched off", () -> client.openAhead().disabled());
      assertThat(count(client, Counter.OPEN_AHEAD_DISABLED)).isEqualTo(1);
      long started = count(client, Counter.OPEN_AHEAD_STARTED);
      client.hintNext(List.of(versionA("unused/later", 10_000)));
      assertThat(count(client, Counter.OPEN_AHEAD_STARTED)).isEqualTo(started);
      assertThat(client.openAhead().preparedCount()).isZero();
      eventually("nothing in flight", () -> client.openAhead().fetchesInFlight() == 0);
    }
  }

  @Test
  void overwrittenBeforeThePreparedFetchFailsClearly() throws Exception {
    try (Slipstream client = client(LinkProfile.LOOPBACK)) {
      ObjectRef a = versionA("changing/early", 100_000);
      // The overwrite lands just before the prepared GET reaches the server.
      shaper.onRequest(r -> r.isGet() && r.path().endsWith("/changing/early"),
          () -> S3.server().putGenerated(BUCKET, "changing/early", 2, 100_000));
      client.hintNext(List.of(a));
      try (SlipstreamInputStream in = client.open(a.location(), a.openOptions())) {
        byte[] all = in.readAllBytes();
        // Only if the listed version were still there; it is not.
        fail("read " + all.length + " bytes of an object that changed before any byte was read");
      } catch (ObjectChangedException e) {
        assertThat(e).hasMessageContaining("s3://" + BUCKET + "/changing/early");
      }
    }
  }

  @Test
  void openedAsTheNewVersionAfterAnOverwriteReadsTheNewVersion() throws Exception {
    try (Slipstream client = client(LinkProfile.LOOPBACK)) {
      ObjectRef a = versionA("changing/new", 100_000);
      client.hintNext(List.of(a));
      eventually("the prepared fetch ended", () -> client.openAhead().fetchesInFlight() == 0);
      S3.server().putGenerated(BUCKET, "changing/new", 2, 100_000);
      // A listing (or a HEAD) names the new ETag: the block of version A is not served.
      try (SlipstreamInputStream in = client.open(a.location(),
          OpenOptions.known(100_000, S3.server().etag(BUCKET, "changing/new")))) {
        assertBytes(in.readAllBytes(), 2, 100_000);
      }
      assertThat(count(client, Counter.OPEN_AHEAD_USED)).isZero();
      assertThat(count(client, Counter.OPEN_AHEAD_WASTED)).isEqualTo(1);

      // With a length only, no ETag to check the block against: not served either.
      client.hintNext(List.of(a));
      eventually("the prepared fetch ended", () -> client.openAhead().fetchesInFlight() == 0);
      try (SlipstreamInputStream in = client.open(a.location(), OpenOptions.length(100_000))) {
        assertBytes(in.readAllBytes(), 2, 100_000);
      }
      assertThat(count(client, Counter.OPEN_AHEAD_USED)).isZero();
      assertThat(count(client, Counter.OPEN_AHEAD_WASTED)).isEqualTo(2);
    }
  }

  @Test
  void aHintWithoutEtagIsServedOnlyForTheVersionItFetched() throws Exception {
    try (Slipstream client = client(LinkProfile.LOOPBACK)) {
      ObjectRef a = versionA("changing/noetag", 100_000);
      String etagA = a.etag();
      client.hintNext(List.of(new ObjectRef(a.location(), a.length(), null)));
      eventually("the prepared fetch ended", () -> client.openAhead().fetchesInFlight() == 0);
      S3.server().putGenerated(BUCKET, "changing/noetag", 2, 100_000);
      String etagB = S3.server().etag(BUCKET, "changing/noetag");
      // Opened as the new version: the prepared block holds version A, so it is dropped.
      try (SlipstreamInputStream in = client.open(a.location(), OpenOptions.known(100_000, etagB))) {
        assertBytes(in.readAllBytes(), 2, 100_000);
      }
      assertThat(count(client, Counter.OPEN_AHEAD_USED)).isZero();

      // Prepared again (now version B, learnt from the response), opened as listed before (version A):
      // dropped; the stream's own GET carries If-Match A and fails.
      client.hintNext(List.of(new ObjectRef(a.location(), a.length(), null)));
      eventually("the prepared fetch ended", () -> client.openAhead().fetchesInFlight() == 0);
      try (SlipstreamInputStream in = client.open(a.location(), OpenOptions.known(100_000, etagA))) {
        in.readAllBytes();
        fail("read an object opened as a version that no longer exists");
      } catch (ObjectChangedException expected) {
        // right
      }
      assertThat(count(client, Counter.OPEN_AHEAD_USED)).isZero();

      // Prepared as B, opened as B: served.
      client.hintNext(List.of(new ObjectRef(a.location(), a.length(), null)));
      eventually("the prepared fetch ended", () -> client.openAhead().fetchesInFlight() == 0);
      try (SlipstreamInputStream in = client.open(a.location(), OpenOptions.known(100_000, etagB))) {
        assertBytes(in.readAllBytes(), 2, 100_000);
      }
      assertThat(count(client, Counter.OPEN_AHEAD_USED)).isEqualTo(1);
    }
  }

  @Test
  void aHintOfAnotherLengthIsNotServed() throws Exception {
    try (Slipstream client = client(LinkProfile.LOOPBACK)) {
      ObjectRef f = ref(key(9), size(9));
      client.hintNext(List.of(new ObjectRef(f.location(), f.length() - 1, f.etag())));
      try (SlipstreamInputStream in = client.open(f.location(), f.openOptions())) {
        assertBytes(in.readAllBytes(), seed(9), size(9));
      }
      assertThat(count(client, Counter.OPEN_AHEAD_USED)).isZero();
      assertThat(count(client, Counter.OPEN_AHEAD_WASTED)).isEqualTo(1);
    }
  }

  // ---- lifecycle ------------------------------------------------------------------------------

  @Test
  void closingTheClientWithPreparedFetchesInFlightLeaksNothing() throws Exception {
    // About half a second per 256 KiB block: the prepared fetches are mid-body at close.
    LinkProfile slow = LinkProfile.S3_LIKE.withBandwidth(512_000, 8_000_000);
    long threadsBefore = fetchThreads();
    Slipstream client = client(slow);
    try {
      client.hintNext(refs(1, 5));
      eventually("prepared fetches in flight", () -> shaper.activeRequests() >= 2);
    } finally {
      client.close();
    }
    assertThat(client.memoryInUse()).isZero();
    assertThat(client.openAhead().fetchesInFlight()).isZero();
    assertThat(count(client, Counter.OPEN_AHEAD_WASTED)).isEqualTo(4);
    eventually("no request in flight at the server side of the link", () -> shaper.activeRequests() == 0);
    long all = size(1) + size(2) + size(3) + size(4);
    assertThat(shaper.bytesSent()).as("bodies aborted, not drained").isLessThan(all);
    eventually("the isolated client's fetch threads ended", () -> fetchThreads() <= threadsBefore);
  }

  @Test
  void aStreamClosedWhileItsAdoptedBlockIsInFlightGivesItsMemoryBack() throws Exception {
    LinkProfile slow = LinkProfile.S3_LIKE.withBandwidth(512_000, 8_000_000);
    try (Slipstream client = client(slow)) {
      ObjectRef f = ref(key(1), size(1));
      client.hintNext(List.of(f));
      SlipstreamInputStream in = client.open(f.location(), f.openOptions());
      assertThat(count(client, Counter.OPEN_AHEAD_USED)).isEqualTo(1);
      assertThat(in.read()).isEqualTo(TestData.byteAt(seed(1), 0) & 0xff);
      in.close();
      eventually("every buffer back", () -> client.memoryInUse() == 0);
      client.hintNext(List.of(ref(key(2), size(2))));
      SlipstreamInputStream in2 = client.open(ref(key(2), size(2)).location(), ref(key(2), size(2)).openOptions());
      in2.close(); // before its first read, the prepared fetch most likely still running
      eventually("every buffer back", () -> client.memoryInUse() == 0);
      eventually("the prepared fetch ended", () -> client.openAhead().fetchesInFlight() == 0);
    }
  }

  @Test
  void openAheadOffMeansNoFetchAhead() throws Exception {
    try (Slipstream client = client(LinkProfile.LOOPBACK, "openahead.files", "0")) {
      List<ObjectRef> files = refs(0, 6);
      try (ReadingOrder order = client.readingInOrder(files)) {
        client.hintNext(files);
        for (int i = 0; i < files.size(); i++) {
          assertBytes(readAll(client, files.get(i)), seed(i), size(i));
        }
      }
      assertThat(count(client, Counter.OPEN_AHEAD_STARTED)).isZero();
      assertThat(shaper.requests("GET")).isEqualTo(6);
    }
  }
}
