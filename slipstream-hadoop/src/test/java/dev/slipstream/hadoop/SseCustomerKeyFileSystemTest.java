/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.hadoop;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.slipstream.Counter;
import dev.slipstream.ReadStatistics;
import dev.slipstream.testkit.MemcachedServer;
import dev.slipstream.testkit.SeaweedS3Server;
import dev.slipstream.testkit.TestData;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.security.MessageDigest;
import java.util.Arrays;
import java.util.Base64;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FileRange;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.util.functional.FutureIO;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * SSE-C through the FileSystem, configured as S3A is, on a server that enforces it: SeaweedFS, whose S3 gateway
 * refuses a GET or HEAD of an SSE-C object without its key (400) or with another key (403), as S3 does (s3proxy
 * and moto serve such an object to anyone, so they could not show a request that lacks the key). Files are
 * written through S3A with the key; Slipstream's own requests must carry it on every read path (open, seek and
 * readFully, positional and vectored reads, open(path) after a listing with its open-ahead), while the disk
 * cache and the shared tier (a real memcached) are configured and receive nothing of these objects.
 */
@Timeout(300)
class SseCustomerKeyFileSystemTest {
  static final String BUCKET = "sse-c-fs";
  static final String KEY = aesKey(1);
  static final String OTHER_KEY = aesKey(2);
  static final int BIG = 3 * 1024 * 1024 + 99; // four blocks of 1 MiB
  static final int SMALL_FILES = 4;
  static final Path BIG_FILE = new Path("s3a://" + BUCKET + "/data/big.bin");
  static final Path SMALL_DIR = new Path("s3a://" + BUCKET + "/small/");

  static SeaweedS3Server server;
  static MemcachedServer memcached;
  @TempDir
  static java.nio.file.Path diskDir;

  static String aesKey(int seed) {
    byte[] key = new byte[32];
    new Random(seed).nextBytes(key);
    return Base64.getEncoder().encodeToString(key);
  }

  static int smallSize(int i) {
    return 20_000 + i * 50_000; // under one block: open-ahead fetches such files whole
  }

  @BeforeAll
  static void setUp() throws IOException {
    server = SeaweedS3Server.start();
    server.createBucket(BUCKET);
    memcached = MemcachedServer.start(64);
    try (FileSystem fs = newFileSystem(withKey(KEY))) {
      try (OutputStream out = fs.create(BIG_FILE, true)) {
        out.write(TestData.bytes(7, BIG));
      }
      for (int i = 0; i < SMALL_FILES; i++) {
        try (OutputStream out = fs.create(new Path(SMALL_DIR, "part-" + i), true)) {
          out.write(TestData.bytes(100 + i, smallSize(i)));
        }
      }
    }
  }

  @AfterAll
  static void tearDown() {
    if (memcached != null) {
      memcached.close();
    }
    if (server != null) {
      server.close();
    }
  }

  /** S3A's test settings for SeaweedFS, with the disk cache ('all') and the shared tier (read-write) on. */
  static Configuration tiersOn() {
    Configuration conf = SlipstreamS3AFileSystemTest.confAt(server.endpoint());
    conf.set("fs.slipstream.cache.disk.mode", "all");
    conf.set("fs.slipstream.cache.disk.dir", diskDir.toString());
    conf.set("fs.slipstream.shared.mode", "read-write");
    conf.set("fs.slipstream.shared.servers", memcached.hostPort());
    conf.set("fs.slipstream.shared.secret", "sse-c-test-secret");
    return conf;
  }

  /** The key as a user sets it for one bucket: S3A's per-bucket settings. */
  static Configuration withKey(String key) {
    Configuration conf = tiersOn();
    conf.set("fs.s3a.bucket." + BUCKET + ".encryption.algorithm", "SSE-C");
    conf.set("fs.s3a.bucket." + BUCKET + ".encryption.key", key);
    return conf;
  }

  static SlipstreamS3AFileSystem newFileSystem(Configuration conf) throws IOException {
    return (SlipstreamS3AFileSystem) FileSystem.newInstance(URI.create("s3a://" + BUCKET + "/"), conf);
  }

  static void check(long seed, long offset, byte[] data, int length) {
    assertThat(TestData.firstMismatch(seed, offset, data, 0, length)).as("first wrong byte at offset %s", offset)
        .isEqualTo(-1);
  }

  @Test
  void everyReadCarriesTheKeyAndNothingLeavesTheProcess() throws Exception {
    try (SlipstreamS3AFileSystem fs = newFileSystem(withKey(KEY))) {
      ReadStatistics stats = fs.getSlipstreamStatistics();
      try (FSDataInputStream in = fs.open(BIG_FILE)) {
        in.seek(1_500_000);
        byte[] b = new byte[700_000];
        in.readFully(b);
        check(7, 1_500_000, b, b.length);
        byte[] tail = new byte[5_000];
        in.readFully(BIG - tail.length, tail); // positional, in the last block
        check(7, BIG - tail.length, tail, tail.length);
      }
      try (FSDataInputStream in = fs.open(BIG_FILE)) {
        List<FileRange> ranges = List.of(FileRange.createFileRange(10, 1_000),
            FileRange.createFileRange(2_100_000, 300_000), FileRange.createFileRange(BIG - 64, 64));
        in.readVectored(ranges, ByteBuffer::allocate);
        for (FileRange r : ranges) {
          ByteBuffer data = FutureIO.awaitFuture(r.getData());
          byte[] got = new byte[data.remaining()];
          data.get(got);
          assertThat(got).hasSize(r.getLength());
          check(7, r.getOffset(), got, got.length);
        }
      }
      // open(path) in listing order: the listing stands in for the HEADs, open-ahead fetches the next files
      FileStatus[] listed = fs.listStatus(SMALL_DIR);
      Arrays.sort(listed, Comparator.comparing(s -> s.getPath().getName()));
      assertThat(listed).hasSize(SMALL_FILES);
      for (FileStatus st : listed) {
        int i = Integer.parseInt(st.getPath().getName().substring(5));
        try (FSDataInputStream in = fs.open(st.getPath())) {
          byte[] all = in.readAllBytes();
          assertThat(all).hasSize(smallSize(i));
          check(100 + i, 0, all, all.length);
        }
      }
      assertThat(stats.get(Counter.OPEN_AHEAD_USED)).as("files fetched ahead of their open").isPositive();

      // A whole read of the big file, then a second one: from this client's memory, no request.
      readWhole(fs, BIG_FILE, 7);
      long gets = stats.get(Counter.GET_REQUESTS);
      long fetched = stats.get(Counter.BYTES_FETCHED);
      long fromMemory = stats.get(Counter.MEMORY_CACHE_BYTES_READ);
      readWhole(fs, BIG_FILE, 7);
      assertThat(stats.get(Counter.GET_REQUESTS) - gets).as("GETs of the second read").isZero();
      assertThat(stats.get(Counter.BYTES_FETCHED) - fetched).as("bytes fetched by the second read").isZero();
      assertThat(stats.get(Counter.MEMORY_CACHE_BYTES_READ) - fromMemory).as("bytes from memory").isEqualTo(BIG);

      assertNothingOutsideTheProcess(stats);
    }
  }

  /**
   * What memory only costs, measured: another client (another task's FileSystem) reading the same SSE-C file
   * fetches all of it from S3 again; a plain file it would have found in the disk cache.
   */
  @Test
  void anotherClientFetchesAnSseCFileAgainWhereAPlainOneComesFromDisk(@TempDir java.nio.file.Path plainDisk)
      throws Exception {
    // The plain file's clients have a disk cache of their own, and no shared tier: the other tests look at both.
    Configuration plainConf = SlipstreamS3AFileSystemTest.confAt(server.endpoint());
    plainConf.set("fs.slipstream.cache.disk.mode", "all");
    plainConf.set("fs.slipstream.cache.disk.dir", plainDisk.toString());
    Path plain = new Path("s3a://" + BUCKET + "/plain/big.bin");
    try (SlipstreamS3AFileSystem writer = newFileSystem(plainConf)) {
      try (OutputStream out = writer.create(plain, true)) {
        out.write(TestData.bytes(9, BIG));
      }
    }
    for (Path file : List.of(BIG_FILE, plain)) {
      boolean sseC = file.equals(BIG_FILE);
      try (SlipstreamS3AFileSystem first = newFileSystem(sseC ? withKey(KEY) : plainConf)) {
        readWhole(first, file, sseC ? 7 : 9);
      }
      dev.slipstream.Slipstream.awaitDiskCacheWrites(java.time.Duration.ofSeconds(30));
      try (SlipstreamS3AFileSystem second = newFileSystem(sseC ? withKey(KEY) : plainConf)) {
        ReadStatistics stats = second.getSlipstreamStatistics();
        readWhole(second, file, sseC ? 7 : 9);
        long fromCaches = stats.get(Counter.DISK_CACHE_BYTES_READ) + stats.get(Counter.SHARED_BYTES_READ);
        if (sseC) {
          assertThat(stats.get(Counter.BYTES_FETCHED)).as("SSE-C: bytes the second client fetched").isEqualTo(BIG);
          assertThat(stats.get(Counter.GET_REQUESTS)).as("SSE-C: GETs of the second client").isPositive();
          assertThat(fromCaches).as("SSE-C: bytes from the disk cache and the shared tier").isZero();
        } else {
          assertThat(stats.get(Counter.BYTES_FETCHED)).as("plain: bytes the second client fetched").isZero();
          assertThat(stats.get(Counter.DISK_CACHE_BYTES_READ)).as("plain: bytes from the disk cache").isEqualTo(BIG);
        }
      }
    }
  }

  private static void readWhole(FileSystem fs, Path file, long seed) throws IOException {
    try (FSDataInputStream in = fs.open(file)) {
      byte[] all = new byte[BIG];
      in.readFully(0, all);
      check(seed, 0, all, BIG);
    }
  }

  /**
   * A reader with another key, or none, gets no byte, though a client with the key holds them all in memory in
   * the same JVM; the error names the object, never a key. The other key is set by S3A's deprecated names, which
   * S3A still reads: its 403 (not a 400) shows that Slipstream's GET carried it.
   */
  @Test
  void aReaderWithAnotherKeyOrNoneGetsNoByteAndNoSecretIsShown() throws Exception {
    try (SlipstreamS3AFileSystem owner = newFileSystem(withKey(KEY))) {
      readWhole(owner, BIG_FILE, 7); // now in the owner's memory cache
      FileStatus status = owner.getFileStatus(BIG_FILE);

      Configuration deprecatedNames = tiersOn();
      deprecatedNames.set("fs.s3a.server-side-encryption-algorithm", "SSE-C");
      deprecatedNames.set("fs.s3a.server-side-encryption.key", OTHER_KEY);
      try (SlipstreamS3AFileSystem other = newFileSystem(deprecatedNames)) {
        // open(path): S3A's HEAD, with the other key
        Throwable byPath = catchThrowable(() -> readWhole(other, BIG_FILE, 7));
        assertThat(byPath).isInstanceOf(AccessDeniedException.class);
        assertNoKeyIn(byPath);
        // with the status known, the first request is Slipstream's own GET
        Throwable byStatus = catchThrowable(() -> readWithStatus(other, status));
        assertThat(byStatus).isInstanceOf(AccessDeniedException.class)
            .hasMessageContaining("s3://" + BUCKET + "/data/big.bin");
        assertNoKeyIn(byStatus);
        assertThat(other.getSlipstreamStatistics().get(Counter.BYTES_READ)).isZero();
      }

      try (SlipstreamS3AFileSystem none = newFileSystem(tiersOn())) {
        Throwable byStatus = catchThrowable(() -> readWithStatus(none, status));
        assertThat(byStatus).isInstanceOf(IOException.class)
            .hasMessageContaining("s3://" + BUCKET + "/data/big.bin").hasMessageContaining("400");
        assertNoKeyIn(byStatus);
        assertThat(none.getSlipstreamStatistics().get(Counter.BYTES_READ)).isZero();
      }
    }
  }

  private static void readWithStatus(FileSystem fs, FileStatus status) throws IOException {
    try (FSDataInputStream in = FutureIO.awaitFuture(fs.openFile(status.getPath()).withFileStatus(status).build())) {
      in.read();
    }
  }

  /** Neither key, in base64 or as its MD5, in the exception's messages, causes or stack. */
  private static void assertNoKeyIn(Throwable t) throws Exception {
    StringWriter text = new StringWriter();
    t.printStackTrace(new PrintWriter(text));
    for (String key : List.of(KEY, OTHER_KEY)) {
      String md5 = Base64.getEncoder().encodeToString(MessageDigest.getInstance("MD5")
          .digest(Base64.getDecoder().decode(key)));
      assertThat(text.toString()).doesNotContain(key).doesNotContain(md5);
    }
  }

  /** Not a byte on the disk cache's directory, not an item in memcached: the client kept its blocks in memory. */
  private static void assertNothingOutsideTheProcess(ReadStatistics stats) throws IOException {
    dev.slipstream.Slipstream.awaitDiskCacheWrites(java.time.Duration.ofSeconds(30));
    assertThat(stats.get(Counter.DISK_CACHE_BYTES_WRITTEN)).isZero();
    assertThat(stats.get(Counter.SHARED_SETS)).isZero();
    try (Stream<java.nio.file.Path> files = Files.walk(diskDir)) {
      assertThat(files.filter(Files::isRegularFile).toList()).as("files under the disk cache's directory").isEmpty();
    }
    assertThat(memcached.stat("cmd_set")).as("sets memcached received").isZero();
    assertThat(memcached.stat("total_items")).as("items memcached ever stored").isZero();
  }
}
