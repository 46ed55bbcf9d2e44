/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream;

import static org.assertj.core.api.Assertions.assertThat;

import dev.slipstream.internal.cache.DiskCache;
import dev.slipstream.testkit.S3ServerExtension;
import dev.slipstream.testkit.TestData;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.BooleanSupplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Reads through the local disk cache against a real S3 server: blocks a seek leaves behind come back
 * from disk, every cache problem is a miss and never wrong bytes.
 */
@Timeout(120)
class DiskCacheReadTest {
  @RegisterExtension static final S3ServerExtension S3 = new S3ServerExtension();
  static final String BUCKET = "disk-cache";
  static final int BLOCK = 256 * 1024;
  static final long SIZE = 24L * BLOCK + 999;
  @TempDir Path tmp;

  @BeforeAll
  static void setUp() {
    S3.server().createBucket(BUCKET);
    S3.server().putGenerated(BUCKET, "obj", 31, SIZE);
    for (int i = 0; i < 4; i++) {
      S3.server().putGenerated(BUCKET, "other-" + i, 40 + i, 10L * BLOCK + i);
    }
  }

  private Slipstream client(String mode, Path dir) {
    return client(mode, dir, 16);
  }

  /** {@code prefetch}: most blocks a stream reads ahead, from disk as from S3. */
  private Slipstream client(String mode, Path dir, int prefetch) {
    return Slipstream.builder().isolatedResources().config(TestClients.config(S3.server())
        .set("block.size", String.valueOf(BLOCK)).set("memory.max", "16M")
        .set("prefetch.blocks", String.valueOf(prefetch)).set("cache.disk.mode", mode).set("cache.disk.dir", dir.toString()).build()).build();
  }

  private static SlipstreamInputStream open(Slipstream c, String key) throws IOException {
    return c.open("s3://" + BUCKET + "/" + key);
  }

  private static void eventually(String what, BooleanSupplier condition) throws InterruptedException {
    long deadline = System.nanoTime() + 30_000_000_000L;
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("not within 30 s: " + what);
      }
      Thread.sleep(5);
    }
  }

  private static byte[] readAll(SlipstreamInputStream in) throws IOException {
    return in.readAllBytes();
  }

  private static void checkWhole(long seed, byte[] all, long size) {
    assertThat((long) all.length).isEqualTo(size);
    assertThat(TestData.firstMismatch(seed, 0, all, 0, all.length)).isEqualTo(-1);
  }

  /**
   * Reads {@code key} whole until all its {@code blocks} are in the cache: a write is skipped, counted,
   * when more than a few are pending (a disk slower than the network), and the next read writes it.
   */
  private static void fillCache(Slipstream c, Path dir, String key, long seed, long size, int blocks)
      throws Exception {
    for (int pass = 0; pass < 5; pass++) {
      try (SlipstreamInputStream in = open(c, key)) {
        checkWhole(seed, readAll(in), size);
      }
      eventually("writes done", () -> c.diskCachePendingWrites() == 0);
      if (cacheFiles(dir).size() >= blocks) {
        return;
      }
    }
    assertThat(cacheFiles(dir)).hasSize(blocks);
  }

  private static List<Path> cacheFiles(Path dir) throws IOException {
    if (!Files.isDirectory(dir)) {
      return List.of();
    }
    try (Stream<Path> s = Files.walk(dir)) {
      return s.filter(p -> p.toString().endsWith(".blk")).sorted().toList();
    }
  }

  @Test
  void blocksASeekLeavesBehindAreReadFromDiskLater() throws Exception {
    // At most two blocks ahead, whatever the reader meets: which blocks a seek leaves behind is known.
    try (Slipstream c = client("seek", tmp, 2)) {
      try (SlipstreamInputStream in = open(c, "obj")) {
        byte[] a = in.readNBytes(BLOCK + 10); // enters block 1: blocks 0..3 fetched (two ahead of each)
        assertThat(TestData.firstMismatch(31, 0, a, 0, a.length)).isEqualTo(-1);
        eventually("four blocks fetched", () -> in.statistics().get(Counter.BYTES_FETCHED) == 4L * BLOCK);
        in.seek(20L * BLOCK + 5); // a jump: blocks 1..3 are left behind, fetched and not read to their end
        byte[] b = in.readNBytes(100);
        assertThat(TestData.firstMismatch(31, 20L * BLOCK + 5, b, 0, b.length)).isEqualTo(-1);
      }
      eventually("writes done", () -> c.diskCachePendingWrites() == 0);
      assertThat(c.statistics().get(Counter.DISK_CACHE_BYTES_WRITTEN)).isEqualTo(3L * BLOCK);
      assertThat(cacheFiles(tmp)).hasSize(3);

      try (SlipstreamInputStream in = open(c, "obj")) {
        byte[] block3 = new byte[BLOCK];
        in.readFully(3L * BLOCK, block3, 0, BLOCK); // a block read: from disk
        assertThat(TestData.firstMismatch(31, 3L * BLOCK, block3, 0, BLOCK)).isEqualTo(-1);
        byte[] small = new byte[500];
        in.readFully(2L * BLOCK + 1000, small, 0, small.length); // a small read after a jump: part of a block
        assertThat(TestData.firstMismatch(31, 2L * BLOCK + 1000, small, 0, small.length)).isEqualTo(-1);
        ReadStatistics s = in.statistics();
        assertThat(s.get(Counter.GET_REQUESTS)).isZero();
        assertThat(s.get(Counter.DISK_CACHE_HITS)).isEqualTo(2);
        assertThat(s.get(Counter.DISK_CACHE_BYTES_READ)).isEqualTo(BLOCK + 500L);
      }
      // Block 0 was read to its end before the jump: consumed, so not kept.
      try (SlipstreamInputStream in = open(c, "obj")) {
        byte[] block0 = new byte[BLOCK];
        in.readFully(0, block0, 0, BLOCK);
        assertThat(in.statistics().get(Counter.GET_REQUESTS)).isEqualTo(1);
      }
    }
  }

  @Test
  void modeAllKeepsEveryBlockForTheNextReaderAndANewVersionNeverGetsOldBytes() throws Exception {
    S3.server().putGenerated(BUCKET, "versioned", 50, 5L * BLOCK);
    try (Slipstream c = client("all", tmp)) {
      fillCache(c, tmp, "versioned", 50, 5L * BLOCK, 5);
      try (SlipstreamInputStream in = open(c, "versioned")) {
        checkWhole(50, readAll(in), 5L * BLOCK);
        assertThat(in.statistics().get(Counter.GET_REQUESTS)).isZero();
        assertThat(in.statistics().get(Counter.DISK_CACHE_HITS)).isEqualTo(5);
      }
      S3.server().putGenerated(BUCKET, "versioned", 51, 5L * BLOCK); // same key and size, new bytes
      // Opened as the new version (as a listing names it; by path, within access.ttl, this client may
      // still read the version it last saw): never the old bytes.
      try (SlipstreamInputStream in = c.open(S3Location.parse("s3://" + BUCKET + "/versioned"),
          OpenOptions.known(5L * BLOCK, S3.server().etag(BUCKET, "versioned")))) {
        checkWhole(51, readAll(in), 5L * BLOCK);
        assertThat(in.statistics().get(Counter.DISK_CACHE_HITS)).isZero();
        assertThat(in.statistics().get(Counter.GET_REQUESTS)).isEqualTo(5);
      }
    }
  }

  @Test
  void flippedBytesInCacheFilesAreDetectedAndTheRightBytesReturned() throws Exception {
    try (Slipstream c = client("all", tmp)) {
      fillCache(c, tmp, "obj", 31, SIZE, 25);
      List<Path> files = cacheFiles(tmp);
      Random r = new Random(5);
      int flipped = 0;
      for (Path f : files) {
        if (r.nextBoolean()) {
          try (RandomAccessFile raf = new RandomAccessFile(f.toFile(), "rw")) {
            long at = (long) (r.nextDouble() * raf.length());
            raf.seek(at);
            int b = raf.read();
            raf.seek(at);
            raf.write(b ^ (1 << r.nextInt(8)));
          }
          flipped++;
        }
      }
      try (SlipstreamInputStream in = open(c, "obj")) {
        checkWhole(31, readAll(in), SIZE);
        ReadStatistics s = in.statistics();
        assertThat(s.get(Counter.DISK_CACHE_CORRUPT)).isEqualTo(flipped);
        assertThat(s.get(Counter.GET_REQUESTS)).isEqualTo(flipped);
        assertThat(s.get(Counter.DISK_CACHE_HITS)).isEqualTo(25 - flipped);
      }
      // Small reads through partial cache reads, on a fresh copy with a flip in every file.
      eventually("writes done", () -> c.diskCachePendingWrites() == 0);
      for (Path f : cacheFiles(tmp)) {
        try (RandomAccessFile raf = new RandomAccessFile(f.toFile(), "rw")) {
          raf.seek(raf.length() - 1 - r.nextInt((int) (raf.length() / 4)));
          int b = raf.read();
          raf.seek(raf.getFilePointer() - 1);
          raf.write(b ^ 0x10);
        }
      }
      try (SlipstreamInputStream in = open(c, "obj")) {
        for (int i = 0; i < 300; i++) {
          long at = (long) (r.nextDouble() * (SIZE - 2000));
          byte[] b = new byte[1 + r.nextInt(2000)];
          in.readFully(at, b, 0, b.length);
          assertThat(TestData.firstMismatch(31, at, b, 0, b.length)).as("at %d", at).isEqualTo(-1);
        }
      }
    }
  }

  @Test
  void aCapThatCannotBeMetOrAnUnwritableDirectoryStillReadsRightBytes() throws Exception {
    Path file = tmp.resolve("in-the-way");
    Files.writeString(file, "not a directory");
    try (Slipstream c = Slipstream.builder().isolatedResources().config(TestClients.config(S3.server())
        .set("block.size", String.valueOf(BLOCK)).set("memory.max", "16M").set("cache.disk.mode", "all")
        .set("cache.disk.dir", tmp.resolve("tiny").toString()).set("cache.disk.max", String.valueOf(BLOCK))
        .build()).build()) {
      try (SlipstreamInputStream in = open(c, "obj")) {
        checkWhole(31, readAll(in), SIZE);
      }
      eventually("writes done", () -> c.diskCachePendingWrites() == 0);
      // Only the last block, 999 bytes, fits in a cache of one block with its header; the rest are skipped.
      assertThat(c.statistics().get(Counter.DISK_CACHE_WRITES_SKIPPED)).isEqualTo(24);
      assertThat(c.statistics().get(Counter.DISK_CACHE_BYTES_WRITTEN)).isEqualTo(999);
    }
    try (Slipstream c = client("all", file.resolve("cache"))) {
      for (int round = 0; round < 2; round++) {
        try (SlipstreamInputStream in = open(c, "obj")) {
          checkWhole(31, readAll(in), SIZE);
        }
      }
      eventually("writes done", () -> c.diskCachePendingWrites() == 0);
      assertThat(c.statistics().get(Counter.DISK_CACHE_ERRORS)).isPositive();
      assertThat(c.statistics().get(Counter.DISK_CACHE_HITS)).isZero();
    }
  }

  @Test
  void theCacheDirectoryDeletedMidReadIsAMissAndTheReadGoesOn() throws Exception {
    // Two blocks ahead at most: when the directory goes, half the blocks have not been read from disk yet.
    try (Slipstream c = client("all", tmp.resolve("doomed"), 2)) {
      fillCache(c, tmp.resolve("doomed"), "obj", 31, SIZE, 25);
      try (SlipstreamInputStream in = open(c, "obj")) {
        byte[] first = in.readNBytes((int) (SIZE / 2)); // from disk
        deleteTree(tmp.resolve("doomed"));
        byte[] rest = in.readAllBytes(); // blocks not yet read from disk: misses, from S3
        assertThat(TestData.firstMismatch(31, 0, first, 0, first.length)).isEqualTo(-1);
        assertThat(TestData.firstMismatch(31, first.length, rest, 0, rest.length)).isEqualTo(-1);
        assertThat(first.length + rest.length).isEqualTo((int) SIZE);
        assertThat(in.statistics().get(Counter.DISK_CACHE_HITS)).isPositive();
        assertThat(in.statistics().get(Counter.DISK_CACHE_MISSES)).isPositive();
        assertThat(in.statistics().get(Counter.GET_REQUESTS)).isPositive();
      }
      eventually("writes done", () -> c.diskCachePendingWrites() == 0);
      // The cache heals: the directory is made again as blocks are written.
      try (SlipstreamInputStream in = open(c, "obj")) {
        checkWhole(31, readAll(in), SIZE);
      }
    }
  }

  @Test
  void concurrentStreamsShareTheCacheWithEveryByteRight() throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(6);
    try (Slipstream c = client("all", tmp)) {
      List<Future<?>> work = new ArrayList<>();
      for (int t = 0; t < 12; t++) {
        int thread = t;
        work.add(pool.submit(() -> {
          String key = "other-" + (thread % 4);
          long seed = 40 + thread % 4;
          long size = 10L * BLOCK + thread % 4;
          Random r = new Random(thread);
          try (SlipstreamInputStream in = open(c, key)) {
            for (int i = 0; i < 40; i++) {
              long at = (long) (r.nextDouble() * size);
              int len = (int) Math.min(size - at, 1 + r.nextInt(2 * BLOCK));
              byte[] b = new byte[len];
              if (r.nextBoolean()) {
                in.readFully(at, b, 0, len);
              } else {
                in.seek(at);
                in.readNBytes(b, 0, len);
              }
              assertThat(TestData.firstMismatch(seed, at, b, 0, len)).isEqualTo(-1);
            }
          }
          return null;
        }));
      }
      for (Future<?> f : work) {
        f.get();
      }
      eventually("writes done", () -> c.diskCachePendingWrites() == 0);
      assertThat(c.statistics().get(Counter.DISK_CACHE_HITS)).isPositive();
      assertThat(c.memoryInUse()).isZero();
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void aNewClientOnTheSameDirectoryReusesTheBlocks() throws Exception {
    Path dir = tmp.resolve("shared");
    try (Slipstream c = client("all", dir)) {
      fillCache(c, dir, "obj", 31, SIZE, 25);
    }
    try (Slipstream c = client("seek", dir)) {
      try (SlipstreamInputStream in = open(c, "obj")) {
        checkWhole(31, readAll(in), SIZE);
        assertThat(in.statistics().get(Counter.GET_REQUESTS)).isZero();
        assertThat(in.statistics().get(Counter.DISK_CACHE_BYTES_READ)).isEqualTo(SIZE);
      }
    }
  }

  private static void deleteTree(Path dir) throws IOException {
    try (Stream<Path> s = Files.walk(dir)) {
      for (Path p : s.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }

  /** A columnar reader's footer read, two column chunks (one stream read, one vectored) and their bytes. */
  private static long columnarReads(SlipstreamInputStream in) throws Exception {
    in.seek(SIZE - 8);
    byte[] tail = in.readNBytes(8);
    assertThat(TestData.firstMismatch(31, SIZE - 8, tail, 0, 8)).isEqualTo(-1);
    byte[] chunk = new byte[100_000];
    in.seek(3L * BLOCK + 17);
    assertThat(in.readNBytes(chunk, 0, chunk.length)).isEqualTo(chunk.length);
    assertThat(TestData.firstMismatch(31, 3L * BLOCK + 17, chunk, 0, chunk.length)).isEqualTo(-1);
    byte[] vectored = new byte[3 * BLOCK / 2];
    in.readFullyAsync(9L * BLOCK + 5, vectored, 0, vectored.length).get();
    assertThat(TestData.firstMismatch(31, 9L * BLOCK + 5, vectored, 0, vectored.length)).isEqualTo(-1);
    return in.statistics().get(Counter.BYTES_FETCHED);
  }

  /**
   * Reads {@link #columnarReads} through a new client of {@code mode}, opened with the object's length and
   * ETag as a listing gives them: the bytes it fetched, its disk hits and the ranges it did not write.
   */
  private long[] columnarReadsByANewClient(String mode, Path dir) throws Exception {
    try (Slipstream c = client(mode, dir);
         SlipstreamInputStream in = c.open(S3Location.parse("s3://" + BUCKET + "/obj"),
             OpenOptions.known(SIZE, S3.server().etag(BUCKET, "obj")).withPolicy(ReadPolicy.RANDOM))) {
      long fetched = columnarReads(in);
      long hits = in.statistics().get(Counter.DISK_CACHE_HITS);
      long deferred = in.statistics().get(Counter.DISK_CACHE_RANGES_DEFERRED);
      eventually("the ranges written", () -> DiskCache.awaitWrites(100));
      return new long[] {fetched, hits, deferred};
    }
  }

  @Test
  void inSeekModeTheRangesAColumnarReadFetchedTwiceAreReadFromDiskTheNextTime() throws Exception {
    Path dir = tmp.resolve("ranges-seek");

    long[] first = columnarReadsByANewClient("seek", dir);
    long[] second = columnarReadsByANewClient("seek", dir);
    long[] third = columnarReadsByANewClient("seek", dir);

    // The first time from S3: the footer's tail is written, the chunks (the vectored one in two pieces)
    // are not, read once.
    assertThat(first[0]).as("the first time, from S3").isPositive();
    assertThat(first[1]).isZero();
    assertThat(first[2]).as("ranges not written").isEqualTo(3);
    // The second time (a new client: no memory cache) the tail comes from disk, the chunks from S3 again,
    // and now they are written.
    assertThat(second[1]).isEqualTo(1);
    assertThat(second[0]).isGreaterThan(1);
    assertThat(second[2]).isZero();
    // Then only the access check of the open (one byte): the tail and both chunks come from disk.
    assertThat(third[0]).isEqualTo(1);
    assertThat(third[1]).isEqualTo(4);
  }

  @Test
  void inAllModeTheRangesAColumnarReadFetchedAreReadFromDiskTheNextTime() throws Exception {
    Path dir = tmp.resolve("ranges-all");

    long[] first = columnarReadsByANewClient("all", dir);
    long[] second = columnarReadsByANewClient("all", dir);

    assertThat(first[0]).as("the first time, from S3").isPositive();
    assertThat(first[2]).isZero();
    // Only the access check of the open (one byte): the tail and both chunks come from disk, the
    // vectored one (a block and a half) kept in the pieces a stream holds ranges in (a block at most).
    assertThat(second[0]).isEqualTo(1);
    assertThat(second[1]).isEqualTo(4);
  }
}
