/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.slipstream.testkit.Misbehaviour;
import dev.slipstream.testkit.RequestInfo;
import dev.slipstream.testkit.ScriptedS3Server;
import dev.slipstream.testkit.TestData;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link Slipstream.Builder#accessPoints}: a bucket's requests go to its access point, named by its alias
 * (the scripted store, path-style, serves whatever bucket a path names, so it holds the object under the
 * alias only, as an access point is the one way in), while the object keeps its own name everywhere
 * else: in the caller's answers, messages and the disk cache's keys.
 */
@Timeout(120)
class AccessPointsTest {
  static final String BUCKET = "lake";
  static final String ALIAS = "lakeap-hrzrlukc5m36ft7okagglf3gmwluquse1b-s3alias";
  static final int BLOCK = 256 * 1024;
  static final int SIZE = 3 * BLOCK + 999;
  static ScriptedS3Server server;
  @TempDir Path tmp;

  @BeforeAll
  static void start() {
    server = ScriptedS3Server.start();
  }

  @AfterAll
  static void stop() {
    server.close();
  }

  @BeforeEach
  void forget() {
    server.reset();
  }

  private static Slipstream client(Map<String, String> accessPoints, Path cacheDir) {
    SlipstreamConfig.Builder c = TestClients.config(server.endpoint())
        .set("block.size", String.valueOf(BLOCK)).set("memory.max", "16M");
    if (cacheDir != null) {
      c.set("cache.disk.mode", "all").set("cache.disk.dir", cacheDir.toString());
    }
    return Slipstream.builder().isolatedResources().config(c.build()).accessPoints(accessPoints).build();
  }

  private static S3Location loc(String bucket, String key) {
    return S3Location.parse("s3://" + bucket + "/" + key);
  }

  private static byte[] readAll(Slipstream client, S3Location where) throws IOException {
    try (SlipstreamInputStream in = client.open(where)) {
      return in.readAllBytes();
    }
  }

  /** "METHOD /bucket/key range" of every GET and HEAD sent since {@code from}. */
  private static List<String> sentSince(int from) {
    List<RequestInfo> all = server.requests();
    return all.subList(from, all.size()).stream().filter(r -> r.isGet() || r.isHead())
        .map(r -> r.method() + " " + r.path() + (r.range() == null ? "" : " " + r.range())).toList();
  }

  @Test
  void everyGetAndHeadGoesToTheAccessPointAndTheObjectKeepsItsName() throws Exception {
    server.put(ALIAS, "t/data.bin", TestData.bytes(31, SIZE));
    try (Slipstream c = client(Map.of(BUCKET, ALIAS), null)) {
      byte[] all = readAll(c, loc(BUCKET, "t/data.bin"));
      assertThat(TestData.firstMismatch(31, 0, all, 0, all.length)).isEqualTo(-1);
      byte[] tail = new byte[100];
      try (SlipstreamInputStream in = c.open(loc(BUCKET, "t/data.bin"), OpenOptions.length(SIZE))) {
        assertThat(in.read(SIZE - 100L, tail, 0, 100)).isEqualTo(100);
      }
      assertThat(TestData.firstMismatch(31, SIZE - 100L, tail, 0, 100)).isEqualTo(-1);
      assertThatThrownBy(() -> readAll(c, loc(BUCKET, "t/missing.bin")))
          .isInstanceOf(FileNotFoundException.class)
          .hasMessageContaining("s3://" + BUCKET + "/t/missing.bin").hasMessageContaining(ALIAS);
    }
    assertThat(sentSince(0)).isNotEmpty().allSatisfy(r -> assertThat(r).contains(" /" + ALIAS + "/t/"));
  }

  @Test
  void aHeadWithoutLengthProbesTheAccessPointWithItsRangedGet() throws Exception {
    server.put(ALIAS, "t/no-length.bin", TestData.bytes(32, SIZE));
    server.always(Misbehaviour.NO_CONTENT_LENGTH);
    try (Slipstream c = client(Map.of(BUCKET, ALIAS), null)) {
      byte[] all = readAll(c, loc(BUCKET, "t/no-length.bin"));
      assertThat(TestData.firstMismatch(32, 0, all, 0, all.length)).isEqualTo(-1);
    }
    assertThat(sentSince(0)).as("the HEAD, then the 1-byte GET that learns the length, at the access point")
        .startsWith("HEAD /" + ALIAS + "/t/no-length.bin", "GET /" + ALIAS + "/t/no-length.bin bytes=0-0")
        .allSatisfy(r -> assertThat(r).contains(" /" + ALIAS + "/"));
  }

  @Test
  void cachedBlocksAreTheObjectsAndServedOnlyOnTheReadersOwnAnswer() throws Exception {
    server.putUnderKmsKey(ALIAS, "t/kms.bin", TestData.bytes(33, SIZE));
    Path dir = tmp.resolve("cache");
    try (Slipstream c = client(Map.of(BUCKET, ALIAS), dir)) {
      byte[] all = readAll(c, loc(BUCKET, "t/kms.bin"));
      assertThat(TestData.firstMismatch(33, 0, all, 0, all.length)).isEqualTo(-1);
      assertThat(Slipstream.awaitDiskCacheWrites(Duration.ofSeconds(30))).isTrue();
    }

    // Again through the access point: served from disk after the HEAD and the 1-byte GET that proves the
    // read (the object is under a KMS key), both sent to the access point.
    int before = server.requests().size();
    try (Slipstream c = client(Map.of(BUCKET, ALIAS), dir)) {
      byte[] all = readAll(c, loc(BUCKET, "t/kms.bin"));
      assertThat(TestData.firstMismatch(33, 0, all, 0, all.length)).isEqualTo(-1);
      assertThat(c.statistics().get(Counter.DISK_CACHE_HITS)).isEqualTo(4);
    }
    assertThat(sentSince(before)).containsExactly("HEAD /" + ALIAS + "/t/kms.bin",
        "GET /" + ALIAS + "/t/kms.bin bytes=0-0");

    // Without the mapping the same object's requests go to the bucket, which S3 does not serve here:
    // the cached blocks are not served on them.
    try (Slipstream c = client(Map.of(), dir)) {
      assertThatThrownBy(() -> readAll(c, loc(BUCKET, "t/kms.bin"))).isInstanceOf(FileNotFoundException.class)
          .hasMessageContaining("s3://" + BUCKET + "/t/kms.bin");
      assertThat(c.statistics().get(Counter.DISK_CACHE_HITS)).isZero();
    }

    // Blocks are keyed by the object's bucket, not the access point's name: reading the alias as a
    // bucket of its own fetches its bytes, none from the blocks cached for s3://lake/t/kms.bin.
    try (Slipstream c = client(Map.of(), dir)) {
      byte[] all = readAll(c, loc(ALIAS, "t/kms.bin"));
      assertThat(TestData.firstMismatch(33, 0, all, 0, all.length)).isEqualTo(-1);
      assertThat(c.statistics().get(Counter.DISK_CACHE_HITS)).isZero();
    }
  }

  @Test
  void anEmptyAccessPointIsRefused() {
    assertThatThrownBy(() -> Slipstream.builder().accessPoints(Map.of(BUCKET, " ")))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining(BUCKET);
  }
}
