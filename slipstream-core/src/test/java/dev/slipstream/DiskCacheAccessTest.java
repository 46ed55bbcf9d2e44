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
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A cache saves bytes, never a permission check (docs/architecture.md, rule 8): two clients share one
 * disk cache directory, as two jobs of one OS user on a host do; the second, whose S3 keys the server
 * refuses, opens with the length and ETag known (as Spark and Hive open listed files) and must get the
 * store's refusal, not the first client's cached bytes.
 */
@Timeout(120)
class DiskCacheAccessTest {
  @RegisterExtension static final S3ServerExtension S3 = new S3ServerExtension();
  static final String BUCKET = "cache-access";
  static final int BLOCK = 256 * 1024;
  static final long SIZE = 6L * BLOCK + 4321;
  @TempDir Path tmp;

  @BeforeAll
  static void setUp() {
    S3.server().createBucket(BUCKET);
  }

  private Slipstream client(Path dir, String secretKey) {
    return Slipstream.builder().isolatedResources().config(TestClients.config(S3.server())
        .set("secret.key", secretKey)
        .set("block.size", String.valueOf(BLOCK)).set("memory.max", "16M")
        .set("cache.disk.mode", "all").set("cache.disk.dir", dir.toString()).build()).build();
  }

  /** Client 1, with good keys, reads {@code key} whole; returns its ETag once every block is on disk. */
  private String fillCache(Path dir, String key, long seed) throws IOException {
    S3.server().putGenerated(BUCKET, key, seed, SIZE);
    long before = Files.isDirectory(dir) ? blockFiles(dir) : 0;
    String etag;
    try (Slipstream good = client(dir, dev.slipstream.testkit.EmbeddedS3Server.SECRET_KEY)) {
      try (SlipstreamInputStream in = good.open(S3Location.parse("s3://" + BUCKET + "/" + key))) {
        byte[] all = in.readAllBytes();
        assertThat(TestData.firstMismatch(seed, 0, all, 0, all.length)).isEqualTo(-1);
        etag = in.etag();
      } // the last block is offered to the cache when the stream closes
      assertThat(Slipstream.awaitDiskCacheWrites(Duration.ofSeconds(30))).isTrue();
    }
    assertThat(blockFiles(dir) - before).as("every block cached").isEqualTo(7);
    return etag;
  }

  private static long blockFiles(Path dir) throws IOException {
    try (Stream<Path> s = Files.walk(dir)) {
      return s.filter(p -> p.toString().endsWith(".blk")).count();
    }
  }

  private static S3Location loc(String key) {
    return S3Location.parse("s3://" + BUCKET + "/" + key);
  }

  @Test
  void keysTheStoreRefusesGetAccessDeniedNotCachedBytesOnEveryReadPath() throws Exception {
    Path dir = tmp.resolve("shared");
    String etag = fillCache(dir, "secret", 7);
    OpenOptions known = OpenOptions.known(SIZE, etag);
    try (Slipstream bad = client(dir, "not-the-secret-key-of-this-server")) {
      try (SlipstreamInputStream in = bad.open(loc("secret"), known)) {
        byte[] b = new byte[BLOCK];
        assertThatThrownBy(() -> in.read(b, 0, b.length)).as("stream read").isInstanceOf(AccessDeniedException.class)
            .hasMessageContaining(BUCKET);
        assertThat(b).as("nothing copied to the caller").containsOnly(0);
        assertThat(in.statistics().get(Counter.BYTES_READ)).isZero();
      }
      try (SlipstreamInputStream in = bad.open(loc("secret"), known)) {
        byte[] b = new byte[100];
        assertThatThrownBy(() -> in.read(3L * BLOCK + 17, b, 0, b.length)).as("positional read")
            .isInstanceOf(AccessDeniedException.class);
        assertThat(b).containsOnly(0);
      }
      try (SlipstreamInputStream in = bad.open(loc("secret"), known.withPolicy(ReadPolicy.RANDOM))) {
        byte[] b = new byte[100];
        in.seek(SIZE - 200);
        assertThatThrownBy(() -> in.read(b, 0, b.length)).as("small read after a jump (footer)")
            .isInstanceOf(AccessDeniedException.class);
        assertThat(b).containsOnly(0);
      }
      try (SlipstreamInputStream in = bad.open(loc("secret"), known)) {
        byte[] b = new byte[2 * BLOCK];
        assertThatThrownBy(() -> in.readFullyAsync(BLOCK + 5, b, 0, b.length).get()).as("vectored read")
            .isInstanceOf(ExecutionException.class).hasCauseInstanceOf(AccessDeniedException.class);
        assertThat(b).containsOnly(0);
      }
      assertThat(bad.statistics().get(Counter.DISK_CACHE_HITS)).as("no cached byte served").isZero();
    }
  }

  /**
   * Reads aligned to the cache's 64 KiB chunks, which the disk cache once read straight into the caller's
   * array before S3's answer: of an object deleted, then of one replaced, by another client. Every open
   * asks S3 (access.ttl=0); each read throws S3's answer and leaves the caller's array as it was.
   */
  @Test
  void alignedReadsOfAnObjectGoneFromS3LeaveTheCallersArrayUntouched() throws Exception {
    Path dir = tmp.resolve("aligned");
    String gone = fillCache(dir, "aligned-gone", 12);
    String old = fillCache(dir, "aligned-replaced", 13);
    S3.server().deleteObject(BUCKET, "aligned-gone");
    S3.server().putGenerated(BUCKET, "aligned-replaced", 14, SIZE);
    try (Slipstream c = Slipstream.builder().isolatedResources().config(TestClients.config(S3.server())
        .set("block.size", String.valueOf(BLOCK)).set("memory.max", "16M").set("access.ttl", "0")
        .set("cache.disk.mode", "all").set("cache.disk.dir", dir.toString()).build()).build()) {
      String[][] objects = {{"aligned-gone", gone}, {"aligned-replaced", old}};
      for (String[] o : objects) {
        Class<? extends IOException> refusal = o[0].equals("aligned-gone") ? FileNotFoundException.class
            : ObjectChangedException.class;
        OpenOptions known = OpenOptions.known(SIZE, o[1]).withPolicy(ReadPolicy.RANDOM);
        try (SlipstreamInputStream in = c.open(loc(o[0]), known)) {
          byte[] b = new byte[64 * 1024];
          assertThatThrownBy(() -> in.read(BLOCK, b, 0, b.length)).as("positional read of one chunk")
              .isInstanceOf(refusal);
          assertThat(b).as("%s: nothing copied to the caller", o[0]).containsOnly(0);
        }
        try (SlipstreamInputStream in = c.open(loc(o[0]), known)) {
          byte[] b = new byte[2 * BLOCK];
          assertThatThrownBy(() -> in.readFullyAsync(BLOCK, b, 0, b.length).get()).as("vectored read of two blocks")
              .isInstanceOf(ExecutionException.class).hasCauseInstanceOf(refusal);
          assertThat(b).as("%s: nothing copied to the caller", o[0]).containsOnly(0);
        }
      }
      assertThat(c.statistics().get(Counter.DISK_CACHE_BYTES_READ)).as("no cached byte served").isZero();
    }
  }

  @Test
  void goodKeysReadTheCacheAfterOneConditionalOneByteGet() throws Exception {
    Path dir = tmp.resolve("good");
    String etag = fillCache(dir, "shared", 8);
    try (Slipstream again = client(dir, dev.slipstream.testkit.EmbeddedS3Server.SECRET_KEY);
         SlipstreamInputStream in = again.open(loc("shared"), OpenOptions.known(SIZE, etag))) {
      byte[] all = in.readAllBytes();
      assertThat(TestData.firstMismatch(8, 0, all, 0, all.length)).isEqualTo(-1);
      assertThat(all).hasSize((int) SIZE);
      assertThat(in.statistics().get(Counter.DISK_CACHE_HITS)).isEqualTo(7);
      assertThat(in.statistics().get(Counter.GET_REQUESTS)).as("one access check for the open, shared").isEqualTo(1);
      assertThat(in.statistics().get(Counter.BYTES_FETCHED)).isEqualTo(1);
    }
    try (Slipstream again = client(dir, dev.slipstream.testkit.EmbeddedS3Server.SECRET_KEY);
         SlipstreamInputStream in = again.open(loc("shared"))) {
      in.readAllBytes();
      assertThat(in.statistics().get(Counter.HEAD_REQUESTS)).isEqualTo(1);
      assertThat(in.statistics().get(Counter.GET_REQUESTS)).as("the HEAD of the open was S3's answer").isZero();
    }
    // A caller that made that HEAD itself (Hadoop's S3A does) says so: no second request either.
    try (Slipstream again = client(dir, dev.slipstream.testkit.EmbeddedS3Server.SECRET_KEY);
         SlipstreamInputStream in = again.open(loc("shared"), OpenOptions.known(SIZE, etag).withFromStore(true))) {
      in.readAllBytes();
      assertThat(in.statistics().get(Counter.GET_REQUESTS) + in.statistics().get(Counter.HEAD_REQUESTS)).isZero();
    }
  }

  @Test
  void aDeletedOrReplacedObjectIsTheStoresErrorNotItsCachedBytes() throws Exception {
    Path dir = tmp.resolve("gone");
    String etag = fillCache(dir, "deleted", 9);
    S3.server().deleteObject(BUCKET, "deleted");
    try (Slipstream c = client(dir, dev.slipstream.testkit.EmbeddedS3Server.SECRET_KEY);
         SlipstreamInputStream in = c.open(loc("deleted"), OpenOptions.known(SIZE, etag))) {
      assertThatThrownBy(in::readAllBytes).isInstanceOf(FileNotFoundException.class);
    }
    dir = tmp.resolve("replaced");
    String old = fillCache(dir, "replaced", 10);
    S3.server().putGenerated(BUCKET, "replaced", 11, SIZE);
    try (Slipstream c = client(dir, dev.slipstream.testkit.EmbeddedS3Server.SECRET_KEY);
         SlipstreamInputStream in = c.open(loc("replaced"), OpenOptions.known(SIZE, old))) {
      assertThatThrownBy(in::readAllBytes).isInstanceOf(ObjectChangedException.class);
    }
  }
}
