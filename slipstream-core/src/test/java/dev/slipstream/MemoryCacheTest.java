/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.slipstream.testkit.S3ServerExtension;
import dev.slipstream.testkit.TestData;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The memory cache (`cache.memory`): what a client's streams are done with stays in the pool's free
 * memory and serves its later streams, by object version and only once S3 has answered the new open;
 * it is the first memory given up, and it never changes a byte.
 */
@Timeout(120)
class MemoryCacheTest {
  @RegisterExtension static final S3ServerExtension S3 = new S3ServerExtension();
  static final String BUCKET = "memory-cache";
  static final int BLOCK = 256 * 1024;

  @BeforeAll
  static void setUp() {
    S3.server().createBucket(BUCKET);
  }

  private static Slipstream client(String memoryMax, String... extra) {
    SlipstreamConfig.Builder b = TestClients.config(S3.server()).set("cache.memory", "true")
        .set("block.size", String.valueOf(BLOCK)).set("memory.max", memoryMax);
    for (int i = 0; i < extra.length; i += 2) {
      b.set(extra[i], extra[i + 1]);
    }
    return Slipstream.builder().isolatedResources().config(b.build()).build();
  }

  private static S3Location loc(String key) {
    return S3Location.parse("s3://" + BUCKET + "/" + key);
  }

  private static byte[] readAll(Slipstream client, String key, OpenOptions options, long seed) throws IOException {
    try (SlipstreamInputStream in = client.open(loc(key), options)) {
      byte[] all = in.readAllBytes();
      assertThat(all).hasSize((int) in.length());
      assertThat(TestData.firstMismatch(seed, 0, all, 0, all.length)).as("first wrong byte of %s", key).isEqualTo(-1);
      return all;
    }
  }

  private static long count(SlipstreamInputStream in, Counter c) {
    return in.statistics().get(c);
  }

  @Test
  void aDeclaredReadOfOneObjectAfterAnotherTakesTheBuffersItPassedInsteadOfNewMemory() throws IOException {
    long size = 6L * BLOCK;
    S3.server().putGenerated(BUCKET, "once-a", 11, size);
    S3.server().putGenerated(BUCKET, "once-b", 12, size);
    OpenOptions once = OpenOptions.NONE.withPolicy(ReadPolicy.SEQUENTIAL);
    try (Slipstream client = client("16M")) {
      readAll(client, "once-a", once, 11);
      long held = client.memoryHeld();
      assertThat(client.memoryCached()).as("what it passed stays kept").isEqualTo(size);
      readAll(client, "once-b", once, 12);
      assertThat(client.memoryHeld()).as("the second object read into the first one's buffers").isEqualTo(held);
      assertThat(client.memoryCached()).isEqualTo(size);
      try (SlipstreamInputStream in = client.open(loc("once-b"), once)) {
        byte[] all = in.readAllBytes();
        assertThat(TestData.firstMismatch(12, 0, all, 0, all.length)).isEqualTo(-1);
        assertThat(count(in, Counter.GET_REQUESTS)).as("the last object read is the one kept").isZero();
        assertThat(count(in, Counter.MEMORY_CACHE_HITS)).isEqualTo(6);
      }
    }
    // read with no declaration, both objects stay while the budget has room
    try (Slipstream client = client("16M")) {
      readAll(client, "once-a", OpenOptions.NONE, 11);
      readAll(client, "once-b", OpenOptions.NONE, 12);
      assertThat(client.memoryCached()).isEqualTo(2 * size);
    }
  }

  @Test
  void aSecondStreamReadsWhatTheFirstLeftFromMemoryWithoutFetchingIt() throws IOException {
    long size = 6L * BLOCK + 1234;
    S3.server().putGenerated(BUCKET, "again", 3, size);
    try (Slipstream client = client("16M")) {
      readAll(client, "again", OpenOptions.NONE, 3);
      assertThat(client.memoryInUse()).as("kept bytes are free memory").isZero();
      assertThat(client.memoryHeld()).as("yet the pool holds them").isBetween(size, client.memoryBudget());

      try (SlipstreamInputStream in = client.open(loc("again"))) {
        byte[] all = in.readAllBytes();
        assertThat(TestData.firstMismatch(3, 0, all, 0, all.length)).isEqualTo(-1);
        // S3's answer to the first open stands (access.ttl): no HEAD, no GET, a memory copy.
        assertThat(count(in, Counter.HEAD_REQUESTS)).isZero();
        assertThat(count(in, Counter.OPENS_FROM_ANSWER)).isEqualTo(1);
        assertThat(count(in, Counter.GET_REQUESTS)).isZero();
        assertThat(count(in, Counter.MEMORY_CACHE_HITS)).as("every block").isEqualTo(7);
        assertThat(count(in, Counter.MEMORY_CACHE_BYTES_READ)).isEqualTo(size);
      }
      // Opened as a listing opens a file (length and ETag known, no HEAD): the answer stands for it too.
      String etag;
      try (SlipstreamInputStream in = client.open(loc("again"))) {
        etag = in.etag();
      }
      try (SlipstreamInputStream in = client.open(loc("again"), OpenOptions.known(size, etag))) {
        byte[] all = in.readAllBytes();
        assertThat(TestData.firstMismatch(3, 0, all, 0, all.length)).isEqualTo(-1);
        assertThat(count(in, Counter.GET_REQUESTS)).isZero();
        assertThat(count(in, Counter.MEMORY_CACHE_HITS)).isEqualTo(7);
      }
      assertThat(client.memoryInUse()).isZero();
    }
    // access.ttl=0: every open asks, the one opened as a listing does with one conditional 1-byte GET first.
    try (Slipstream client = client("16M", "access.ttl", "0")) {
      readAll(client, "again", OpenOptions.NONE, 3);
      String etag = S3.server().etag(BUCKET, "again");
      try (SlipstreamInputStream in = client.open(loc("again"), OpenOptions.known(size, etag))) {
        byte[] all = in.readAllBytes();
        assertThat(TestData.firstMismatch(3, 0, all, 0, all.length)).isEqualTo(-1);
        assertThat(count(in, Counter.GET_REQUESTS)).as("the access check").isEqualTo(1);
        assertThat(count(in, Counter.BYTES_FETCHED)).isEqualTo(1);
        assertThat(count(in, Counter.MEMORY_CACHE_HITS)).isEqualTo(7);
      }
    }
  }

  @Test
  void positionalAndColumnarReadsCopyFromMemory() throws Exception {
    long size = 5L * BLOCK + 99;
    S3.server().putGenerated(BUCKET, "ranges", 4, size);
    try (Slipstream client = client("16M")) {
      // Columnar: the footer's tail and two chunks, fetched as exact ranges and kept as such.
      OpenOptions parquet = OpenOptions.NONE.withPolicy(ReadPolicy.RANDOM);
      long[][] ranges = {{size - 9000, 9000}, {BLOCK - 100, 70_000}, {3L * BLOCK + 5, 200_000}};
      for (int pass = 0; pass < 2; pass++) {
        try (SlipstreamInputStream in = client.open(loc("ranges"), parquet)) {
          for (long[] r : ranges) {
            byte[] b = new byte[(int) r[1]];
            in.readFully(r[0], b, 0, b.length);
            assertThat(TestData.firstMismatch(4, r[0], b, 0, b.length)).isEqualTo(-1);
          }
          if (pass == 1) {
            assertThat(count(in, Counter.GET_REQUESTS)).as("every range from memory").isZero();
            assertThat(count(in, Counter.MEMORY_CACHE_HITS)).isEqualTo(3);
          }
        }
      }
      // Whole blocks left by a sequential reader serve positional reads across their edges.
      readAll(client, "ranges", OpenOptions.NONE, 4);
      try (SlipstreamInputStream in = client.open(loc("ranges"))) {
        byte[] b = new byte[BLOCK + 1000];
        in.readFully(2L * BLOCK - 500, b, 0, b.length);
        assertThat(TestData.firstMismatch(4, 2L * BLOCK - 500, b, 0, b.length)).isEqualTo(-1);
        assertThat(count(in, Counter.GET_REQUESTS)).isZero();
        assertThat(count(in, Counter.MEMORY_CACHE_BYTES_READ)).isEqualTo(b.length);
      }
    }
  }

  @Test
  void aNewVersionNeverMeetsTheOldVersionsBytes() throws IOException {
    long size = 3L * BLOCK;
    S3.server().putGenerated(BUCKET, "versions", 5, size);
    try (Slipstream client = client("16M")) {
      readAll(client, "versions", OpenOptions.NONE, 5);
      S3.server().putGenerated(BUCKET, "versions", 6, size); // by another client
      // Opened as the new version (a listing or a status names it): never the old bytes.
      OpenOptions v6 = OpenOptions.known(size, S3.server().etag(BUCKET, "versions"));
      try (SlipstreamInputStream in = client.open(loc("versions"), v6)) {
        byte[] all = in.readAllBytes();
        assertThat(TestData.firstMismatch(6, 0, all, 0, all.length)).as("the new version's bytes").isEqualTo(-1);
        assertThat(count(in, Counter.MEMORY_CACHE_HITS)).isZero();
      }
    }
    try (Slipstream client = client("16M", "access.ttl", "0")) {
      readAll(client, "versions", OpenOptions.NONE, 6);
      S3.server().putGenerated(BUCKET, "versions", 7, size);
      // Opened by path with access.ttl=0: the HEAD names the new version.
      try (SlipstreamInputStream in = client.open(loc("versions"))) {
        byte[] all = in.readAllBytes();
        assertThat(TestData.firstMismatch(7, 0, all, 0, all.length)).as("the new version's bytes").isEqualTo(-1);
        assertThat(count(in, Counter.MEMORY_CACHE_HITS)).isZero();
      }
    }
  }

  /**
   * Rule 8, within access.ttl: an open by path, with no status, may read the version this client last
   * saw though another client replaced it since; whole, never mixed with the new one.
   */
  @Test
  void withinTheTtlAnOpenByPathReadsTheVersionThisClientLastSawWhole() throws IOException {
    long size = 3L * BLOCK;
    S3.server().putGenerated(BUCKET, "last-seen", 12, size);
    try (Slipstream client = client("16M")) {
      readAll(client, "last-seen", OpenOptions.NONE, 12);
      S3.server().putGenerated(BUCKET, "last-seen", 13, size);
      try (SlipstreamInputStream in = client.open(loc("last-seen"))) {
        byte[] all = in.readAllBytes();
        assertThat(TestData.firstMismatch(12, 0, all, 0, all.length)).as("the version last seen").isEqualTo(-1);
        assertThat(count(in, Counter.GET_REQUESTS) + count(in, Counter.HEAD_REQUESTS)).isZero();
      }
      client.changed(loc("last-seen")); // what a write through this client says
      try (SlipstreamInputStream in = client.open(loc("last-seen"))) {
        byte[] all = in.readAllBytes();
        assertThat(TestData.firstMismatch(13, 0, all, 0, all.length)).as("after a write: the new version")
            .isEqualTo(-1);
      }
    }
  }

  @Test
  void anOpenServedOnAStandingAnswerDoesNotRenewIt() throws Exception {
    long size = 2L * BLOCK;
    S3.server().putGenerated(BUCKET, "renew", 14, size);
    try (Slipstream client = client("16M", "access.ttl", "1s")) {
      long askedFrom = System.nanoTime();
      readAll(client, "renew", OpenOptions.NONE, 14); // S3's last answer comes within this read
      long askedUntil = System.nanoTime();
      // Re-reads well within the second the answer stands: served from memory on it, with no request.
      int reReads = 0;
      while (System.nanoTime() - askedFrom < 500_000_000L || reReads == 0) {
        try (SlipstreamInputStream in = client.open(loc("renew"))) {
          in.readAllBytes();
          assertThat(count(in, Counter.GET_REQUESTS) + count(in, Counter.HEAD_REQUESTS)).isZero();
          assertThat(count(in, Counter.OPENS_FROM_ANSWER)).isEqualTo(1);
        }
        reReads++;
        Thread.sleep(50);
      }
      // Past the ttl of the last answer S3 gave: the re-reads did not renew it, so this open asks S3.
      Thread.sleep(Math.max(0, (askedUntil + 1_100_000_000L - System.nanoTime()) / 1_000_000));
      try (SlipstreamInputStream in = client.open(loc("renew"))) {
        in.readAllBytes();
        assertThat(count(in, Counter.HEAD_REQUESTS)).as("an open after the answer's ttl asks S3").isEqualTo(1);
        assertThat(count(in, Counter.OPENS_FROM_ANSWER)).isZero();
      }
    }
  }

  @Test
  void bytesS3WouldRefuseAreNeverServedOnAnyReadPath() throws Exception {
    long size = 4L * BLOCK + 17;
    S3.server().putGenerated(BUCKET, "gone", 7, size);
    S3.server().putGenerated(BUCKET, "changed", 8, size);
    // Every open asks S3 (access.ttl=0): the answers of the first reads do not stand for the later opens.
    try (Slipstream client = client("16M", "access.ttl", "0")) {
      String goneEtag;
      try (SlipstreamInputStream in = client.open(loc("gone"))) {
        in.readAllBytes();
        goneEtag = in.etag();
      }
      String oldEtag;
      try (SlipstreamInputStream in = client.open(loc("changed"))) {
        in.readAllBytes();
        oldEtag = in.etag();
      }
      S3.server().deleteObject(BUCKET, "gone");
      S3.server().putGenerated(BUCKET, "changed", 9, size);
      OpenOptions known = OpenOptions.known(size, goneEtag);
      try (SlipstreamInputStream in = client.open(loc("gone"), known)) {
        byte[] b = new byte[BLOCK];
        assertThatThrownBy(() -> in.read(b, 0, b.length)).as("stream read").isInstanceOf(FileNotFoundException.class);
        assertThat(b).as("nothing copied to the caller").containsOnly(0);
      }
      try (SlipstreamInputStream in = client.open(loc("gone"), known)) {
        byte[] b = new byte[100];
        assertThatThrownBy(() -> in.read(2L * BLOCK + 17, b, 0, b.length)).as("positional read")
            .isInstanceOf(FileNotFoundException.class);
        assertThat(b).containsOnly(0);
      }
      try (SlipstreamInputStream in = client.open(loc("gone"), known)) {
        byte[] b = new byte[2 * BLOCK];
        assertThatThrownBy(() -> in.readFullyAsync(BLOCK + 5, b, 0, b.length).get()).as("vectored read")
            .isInstanceOf(ExecutionException.class).hasCauseInstanceOf(FileNotFoundException.class);
        assertThat(b).containsOnly(0);
      }
      try (SlipstreamInputStream in = client.open(loc("changed"), OpenOptions.known(size, oldEtag))) {
        assertThatThrownBy(in::readAllBytes).as("a version S3 no longer has").isInstanceOf(ObjectChangedException.class);
      }
      assertThat(client.statistics().get(Counter.MEMORY_CACHE_BYTES_READ)).as("no kept byte served").isZero();
    }
  }

  @Test
  void keptBytesAreTheFirstMemoryGivenUpAndPrefetchStillGetsIt() throws IOException {
    long size = 24L * BLOCK; // 6 MiB each, the budget is 8 MiB
    S3.server().putGenerated(BUCKET, "first", 10, size);
    S3.server().putGenerated(BUCKET, "second", 11, size);
    try (Slipstream client = client("8M", "prefetch.blocks", "8")) {
      readAll(client, "first", OpenOptions.NONE, 10);
      try (SlipstreamInputStream in = client.open(loc("second"))) {
        byte[] all = in.readAllBytes();
        assertThat(TestData.firstMismatch(11, 0, all, 0, all.length)).isEqualTo(-1);
        assertThat(client.statistics().get(Counter.MEMORY_CACHE_EVICTIONS)).as("kept blocks of 'first' given up")
            .isPositive();
        assertThat(count(in, Counter.BLOCKS_EVICTED)).as("no block a stream held was taken").isZero();
        assertThat(count(in, Counter.PREFETCH_USED)).as("prefetch was not starved").isGreaterThan(16);
        assertThat(count(in, Counter.GET_REQUESTS)).isEqualTo(24);
      }
      // The least recently used went first: 'first' lost its first blocks and kept its last.
      try (SlipstreamInputStream in = client.open(loc("first"), OpenOptions.NONE.withPolicy(ReadPolicy.RANDOM))) {
        byte[] b = new byte[BLOCK];
        in.readFully(size - BLOCK, b, 0, BLOCK);
        assertThat(TestData.firstMismatch(10, size - BLOCK, b, 0, BLOCK)).isEqualTo(-1);
        assertThat(count(in, Counter.MEMORY_CACHE_HITS)).as("the last block").isEqualTo(1);
        in.readFully(0, b, 0, BLOCK);
        assertThat(TestData.firstMismatch(10, 0, b, 0, BLOCK)).isEqualTo(-1);
        assertThat(count(in, Counter.MEMORY_CACHE_HITS)).as("not the first").isEqualTo(1);
      }
      assertThat(client.memoryInUse()).isZero();
    }
  }

  @Test
  void manyStreamsOnManyThreadsUnderATightBudgetReadRightBytes() throws Exception {
    int objects = 4;
    long size = 10L * BLOCK + 333;
    for (int i = 0; i < objects; i++) {
      S3.server().putGenerated(BUCKET, "many-" + i, 20 + i, size);
    }
    ExecutorService threads = Executors.newFixedThreadPool(8);
    try (Slipstream client = client("6M", "prefetch.blocks", "4")) {
      List<Future<?>> done = new ArrayList<>();
      for (int t = 0; t < 8; t++) {
        int seed = t;
        done.add(threads.submit(() -> {
          Random r = new Random(seed);
          for (int n = 0; n < 12; n++) {
            int i = r.nextInt(objects);
            if (r.nextBoolean()) {
              readAll(client, "many-" + i, OpenOptions.NONE, 20 + i);
            } else {
              try (SlipstreamInputStream in = client.open(loc("many-" + i))) {
                long at = (long) (r.nextDouble() * (size - 70_000));
                byte[] b = new byte[70_000];
                in.readFully(at, b, 0, b.length);
                assertThat(TestData.firstMismatch(20 + i, at, b, 0, b.length)).isEqualTo(-1);
              }
            }
          }
          return null;
        }));
      }
      for (Future<?> f : done) {
        f.get();
      }
      assertThat(client.statistics().get(Counter.MEMORY_CACHE_HITS)).isPositive();
      assertThat(client.statistics().get(Counter.MEMORY_CACHE_EVICTIONS)).isPositive();
      assertThat(client.memoryInUse()).isZero();
    } finally {
      threads.shutdownNow();
    }
  }

  @Test
  void cacheMemoryFalseKeepsNothing() throws IOException {
    long size = 2L * BLOCK;
    S3.server().putGenerated(BUCKET, "off", 12, size);
    try (Slipstream client = client("16M", "cache.memory", "false")) {
      readAll(client, "off", OpenOptions.NONE, 12);
      try (SlipstreamInputStream in = client.open(loc("off"))) {
        in.readAllBytes();
        assertThat(count(in, Counter.GET_REQUESTS)).isEqualTo(2);
        assertThat(count(in, Counter.MEMORY_CACHE_HITS)).isZero();
      }
    }
  }
}
