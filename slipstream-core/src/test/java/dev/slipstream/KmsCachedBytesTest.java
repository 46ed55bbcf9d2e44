/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.slipstream.testkit.RequestInfo;
import dev.slipstream.testkit.S3Wire;
import dev.slipstream.testkit.ScriptedS3Server;
import dev.slipstream.testkit.TestData;
import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A HEAD is no proof that a GET would be allowed for an object encrypted under a KMS key: S3 asks
 * {@code kms:Decrypt} of a GET only (docs/architecture.md, rule 8). Two principals share one disk cache
 * directory, as two jobs of one OS user on a host do: {@code alice} may use the key, {@code bob} may HEAD
 * the object but not decrypt it. No server that runs here enforces KMS permissions, so the scripted store
 * does, as AWS documents it: HEAD answered with {@code x-amz-server-side-encryption: aws:kms}, GET refused
 * with {@code 403 AccessDenied}.
 */
@Timeout(120)
class KmsCachedBytesTest {
  static final String BUCKET = "kms";
  static final int BLOCK = 256 * 1024;
  static final int SIZE = 3 * BLOCK + 999;
  static ScriptedS3Server server;
  @TempDir Path tmp;

  @BeforeAll
  static void start() {
    server = ScriptedS3Server.start();
    server.denyKmsDecrypt(r -> "bob".equals(S3Wire.accessKeyOf(r)));
  }

  @AfterAll
  static void stop() {
    server.close();
  }

  private static Slipstream client(String accessKey, Path cacheDir) {
    return Slipstream.builder().isolatedResources().config(TestClients.config(server.endpoint())
        .set("access.key", accessKey).set("secret.key", accessKey + "-secret")
        .set("block.size", String.valueOf(BLOCK)).set("memory.max", "16M")
        .set("cache.disk.mode", "all").set("cache.disk.dir", cacheDir.toString()).build()).build();
  }

  private static S3Location loc(String key) {
    return S3Location.parse("s3://" + BUCKET + "/" + key);
  }

  /** Alice reads {@code key} whole through the cache in {@code dir}; returns once every block is on disk. */
  private static void aliceFills(Path dir, String key, long seed) throws IOException {
    try (Slipstream alice = client("alice", dir);
         SlipstreamInputStream in = alice.open(loc(key))) {
      byte[] all = in.readAllBytes();
      assertThat(TestData.firstMismatch(seed, 0, all, 0, all.length)).isEqualTo(-1);
      in.close();
      assertThat(Slipstream.awaitDiskCacheWrites(Duration.ofSeconds(30))).isTrue();
    }
    try (Stream<Path> s = Files.walk(dir)) {
      assertThat(s.filter(p -> p.toString().endsWith(".blk")).count()).as("every block cached").isEqualTo(4);
    }
  }

  private static long getsBy(String principal) {
    return server.requests().stream()
        .filter(r -> r.isGet() && principal.equals(S3Wire.accessKeyOf(r))).count();
  }

  @Test
  void aPrincipalThatMayHeadButNotDecryptGetsTheRefusalNotCachedBytes() throws Exception {
    server.putUnderKmsKey(BUCKET, "under-kms", TestData.bytes(21, SIZE));
    Path dir = tmp.resolve("shared");
    aliceFills(dir, "under-kms", 21);
    try (Slipstream bob = client("bob", dir)) {
      // Opened by path: bob's own HEAD is answered (S3 asks no kms:Decrypt for it) and says aws:kms.
      for (String how : List.of("stream read", "positional read", "tail read")) {
        try (SlipstreamInputStream in = bob.open(loc("under-kms"))) {
          byte[] b = new byte[1000];
          assertThatThrownBy(() -> {
            switch (how) {
              case "stream read" -> in.read(b, 0, b.length);
              case "positional read" -> in.read(2L * BLOCK + 5, b, 0, b.length);
              default -> {
                in.seek(SIZE - b.length);
                in.read(b, 0, b.length);
              }
            }
          }).as(how).isInstanceOf(AccessDeniedException.class).hasMessageContaining(BUCKET);
          assertThat(b).as("%s: nothing copied to the caller", how).containsOnly(0);
        }
      }
      assertThat(bob.statistics().get(Counter.DISK_CACHE_HITS)).as("no cached byte served to bob").isZero();
      assertThat(bob.statistics().get(Counter.BYTES_READ)).isZero();
    }
    assertThat(getsBy("bob")).as("each of bob's opens asked S3 with a GET, which S3 refused").isPositive();
  }

  @Test
  void aPrincipalThatMayDecryptIsServedFromTheCacheAfterOneSmallGet() throws Exception {
    server.putUnderKmsKey(BUCKET, "alice-again", TestData.bytes(22, SIZE));
    Path dir = tmp.resolve("alice-again");
    aliceFills(dir, "alice-again", 22);
    long before = server.requests().size();
    try (Slipstream alice = client("alice", dir);
         SlipstreamInputStream in = alice.open(loc("alice-again"))) {
      byte[] all = in.readAllBytes();
      assertThat(TestData.firstMismatch(22, 0, all, 0, all.length)).isEqualTo(-1);
      assertThat(alice.statistics().get(Counter.DISK_CACHE_HITS)).as("served from disk").isEqualTo(4);
    }
    List<RequestInfo> sent = server.requests().subList((int) before, server.requests().size());
    assertThat(sent).as("the HEAD, and one 1-byte GET as the proof that alice may decrypt")
        .extracting(r -> r.method() + " " + (r.range() == null ? "" : r.range()))
        .containsExactly("HEAD ", "GET bytes=0-0");
  }

  @Test
  void aHeadOfAnObjectNotUnderAKmsKeyStillProvesTheRead() throws Exception {
    server.put(BUCKET, "plain", TestData.bytes(23, SIZE));
    Path dir = tmp.resolve("plain");
    aliceFills(dir, "plain", 23);
    long before = server.requests().size();
    try (Slipstream bob = client("bob", dir);
         SlipstreamInputStream in = bob.open(loc("plain"))) {
      byte[] all = in.readAllBytes();
      assertThat(TestData.firstMismatch(23, 0, all, 0, all.length)).isEqualTo(-1);
      assertThat(bob.statistics().get(Counter.DISK_CACHE_HITS)).isEqualTo(4);
    }
    assertThat(server.requests().subList((int) before, server.requests().size()))
        .as("the HEAD alone: for an object S3 encrypts with its own keys, or not at all, HEAD and GET need one"
            + " permission").extracting(RequestInfo::method).containsExactly("HEAD");
  }
}
