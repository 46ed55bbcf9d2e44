/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.iceberg;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.slipstream.Counter;
import dev.slipstream.ReadStatistics;
import dev.slipstream.Slipstream;
import dev.slipstream.testkit.MemcachedServer;
import dev.slipstream.testkit.RequestInfo;
import dev.slipstream.testkit.S3Wire;
import dev.slipstream.testkit.ScriptedS3Server;
import dev.slipstream.testkit.TestData;
import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.io.SeekableInputStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Slipstream's reads go as the principal the catalog properties make S3FileIO's client, not as the host's
 * default identity: here {@code client.credentials-provider} names a provider ({@link TestPrincipals}),
 * and the host's default chain would answer as {@code host-default} (Java system properties, the first
 * place the AWS SDK's default chain looks). The scripted store tells principals apart by the access key of
 * each request's signature and, as S3 does for an object under a KMS key, refuses {@code bob}'s GETs (it
 * checks no signature: it shows who a request claims to be, which is what the client chose). bob is
 * refused cold, after his provider rotated from alice under a client whose memory cache holds the object
 * ({@code access.ttl=0}: every open asks S3; within a non-zero window a client may serve what it read, by
 * design), from a disk cache alice filled, and from a shared tier (a real memcached) alice filled.
 */
@Timeout(120)
class ReadIdentityTest {
  static final String BUCKET = "identity";
  static final int BLOCK = 256 * 1024;
  static final int SIZE = 3 * BLOCK + 999;
  static ScriptedS3Server server;
  @TempDir Path tmp;

  @BeforeAll
  static void start() {
    server = ScriptedS3Server.start();
    server.denyKmsDecrypt(r -> "bob".equals(S3Wire.accessKeyOf(r)));
    System.setProperty("aws.accessKeyId", "host-default");
    System.setProperty("aws.secretAccessKey", "host-default-secret");
  }

  @AfterAll
  static void stop() {
    System.clearProperty("aws.accessKeyId");
    System.clearProperty("aws.secretAccessKey");
    server.close();
  }

  @BeforeEach
  void forget() {
    server.reset();
  }

  /** Catalog properties whose S3FileIO answers as {@code provider}'s principal; Slipstream's caches off. */
  private static Map<String, String> properties(String provider) {
    Map<String, String> p = new LinkedHashMap<>();
    p.put("s3.endpoint", server.endpoint().toString());
    p.put("s3.path-style-access", "true");
    p.put("client.region", "us-east-1");
    p.put("client.credentials-provider", TestPrincipals.class.getName());
    p.put("client.credentials-provider.name", provider);
    p.put("slipstream.block.size", String.valueOf(BLOCK));
    p.put("slipstream.memory.max", "16M");
    p.put("slipstream.access.ttl", "0");
    p.put("slipstream.cache.memory", "false");
    p.put("slipstream.cache.disk.mode", "off");
    return p;
  }

  private static SlipstreamFileIO fileIo(Map<String, String> properties) {
    SlipstreamFileIO io = new SlipstreamFileIO();
    io.initialize(properties);
    return io;
  }

  private static String path(String key) {
    return "s3://" + BUCKET + "/" + key;
  }

  private static byte[] read(InputFile file) throws IOException {
    try (SeekableInputStream in = file.newStream()) {
      return in.readAllBytes();
    }
  }

  private static List<String> principals(List<RequestInfo> requests) {
    return requests.stream().filter(r -> r.isGet() || r.method().equals("HEAD"))
        .map(r -> String.valueOf(S3Wire.accessKeyOf(r))).distinct().toList();
  }

  /** bob's read of {@code key} is refused with an AccessDeniedException naming the object, and copies nothing. */
  private static void refused(SlipstreamFileIO io, String key) {
    byte[] b = new byte[1000];
    Throwable t = catchThrowable(() -> {
      try (SeekableInputStream in = io.newInputFile(path(key), SIZE).newStream()) {
        in.read(b, 0, b.length);
      }
    });
    Throwable denied = t;
    while (denied != null && !(denied instanceof AccessDeniedException)) {
      denied = denied.getCause();
    }
    assertThat(denied).as("%s", t).isInstanceOf(AccessDeniedException.class);
    assertThat(denied.getMessage()).contains(BUCKET).contains(key).doesNotContain("bob-secret");
    assertThat(b).as("nothing copied to the caller").containsOnly(0);
  }

  @Test
  void theCatalogsCredentialsProviderSignsEveryRead() throws IOException {
    TestPrincipals.PRINCIPALS.put("signs", "alice");
    server.put(BUCKET, "plain.parquet", TestData.bytes(1, SIZE));
    server.put(BUCKET, "v1.metadata.json", TestData.bytes(2, 5000));
    try (SlipstreamFileIO io = fileIo(properties("signs"))) {
      InputFile data = io.newInputFile(path("plain.parquet"));
      assertThat(data.getLength()).isEqualTo(SIZE);
      byte[] all = read(data);
      assertThat(TestData.firstMismatch(1, 0, all, 0, all.length)).isEqualTo(-1);
      assertThat(read(io.newInputFile(path("v1.metadata.json")))).hasSize(5000);
    }
    assertThat(principals(server.requests())).as("the principal of every HEAD and GET").containsExactly("alice");
  }

  /** A provider Iceberg cannot load fails initialize, naming it: no read falls back on the host's identity. */
  @Test
  void aCredentialsProviderThatCannotBeLoadedFailsInitialize() {
    Map<String, String> p = properties("none");
    p.put("client.credentials-provider", "com.example.NoSuchProvider");
    Throwable t = catchThrowable(() -> fileIo(p));
    assertThat(t).isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("SlipstreamFileIO reads through S3FileIO's S3 client, which cannot be built")
        .hasMessageContaining("com.example.NoSuchProvider");
    assertThat(server.requests()).isEmpty();
  }

  @Test
  void aPrincipalTheStoreRefusesIsRefusedCold() {
    TestPrincipals.PRINCIPALS.put("cold", "bob");
    server.putUnderKmsKey(BUCKET, "cold.parquet", TestData.bytes(3, SIZE));
    try (SlipstreamFileIO io = fileIo(properties("cold"))) {
      refused(io, "cold.parquet");
      assertThat(io.slipstream().statistics().get(Counter.BYTES_READ)).isZero();
    }
    assertThat(principals(server.requests())).containsExactly("bob");
  }

  @Test
  void aPrincipalRotatedToOneTheStoreRefusesGetsNothingFromTheMemoryCache() throws IOException {
    TestPrincipals.PRINCIPALS.put("rotating", "alice");
    server.putUnderKmsKey(BUCKET, "memory.parquet", TestData.bytes(4, SIZE));
    Map<String, String> p = properties("rotating");
    p.put("slipstream.cache.memory", "true");
    try (SlipstreamFileIO io = fileIo(p)) {
      byte[] all = read(io.newInputFile(path("memory.parquet"), SIZE));
      assertThat(TestData.firstMismatch(4, 0, all, 0, all.length)).isEqualTo(-1);
      Slipstream client = io.slipstream();
      assertThat(client.memoryCached()).as("alice's blocks kept in memory").isPositive();

      TestPrincipals.PRINCIPALS.put("rotating", "bob"); // as refreshed credentials of another principal
      long fromMemory = client.statistics().get(Counter.MEMORY_CACHE_HITS);
      refused(io, "memory.parquet");
      assertThat(client.statistics().get(Counter.MEMORY_CACHE_HITS)).as("no kept block served to bob")
          .isEqualTo(fromMemory);
    }
    assertThat(principals(server.requests())).containsExactly("alice", "bob");
  }

  @Test
  void aPrincipalTheStoreRefusesGetsNothingFromADiskCacheAnotherFilled() throws IOException {
    TestPrincipals.PRINCIPALS.put("disk-alice", "alice");
    TestPrincipals.PRINCIPALS.put("disk-bob", "bob");
    server.putUnderKmsKey(BUCKET, "disk.parquet", TestData.bytes(5, SIZE));
    Path dir = tmp.resolve("shared-cache");
    Map<String, String> alice = properties("disk-alice");
    alice.put("slipstream.cache.disk.mode", "all");
    alice.put("slipstream.cache.disk.dir", dir.toString());
    try (SlipstreamFileIO io = fileIo(alice)) {
      byte[] all = read(io.newInputFile(path("disk.parquet"), SIZE));
      assertThat(TestData.firstMismatch(5, 0, all, 0, all.length)).isEqualTo(-1);
      assertThat(Slipstream.awaitDiskCacheWrites(Duration.ofSeconds(30))).isTrue();
      assertThat(io.slipstream().statistics().get(Counter.DISK_CACHE_BYTES_WRITTEN)).isPositive();
    }
    Map<String, String> bob = properties("disk-bob");
    bob.put("slipstream.cache.disk.mode", "all");
    bob.put("slipstream.cache.disk.dir", dir.toString());
    try (SlipstreamFileIO io = fileIo(bob)) {
      refused(io, "disk.parquet");
      assertThat(io.slipstream().statistics().get(Counter.DISK_CACHE_HITS)).as("no cached block served to bob")
          .isZero();
    }
  }

  @Test
  void aPrincipalTheStoreRefusesGetsNothingFromASharedTierAnotherFilled() throws IOException {
    TestPrincipals.PRINCIPALS.put("tier-alice", "alice");
    TestPrincipals.PRINCIPALS.put("tier-bob", "bob");
    server.putUnderKmsKey(BUCKET, "tier.parquet", TestData.bytes(6, SIZE));
    try (MemcachedServer memcached = MemcachedServer.start(64)) {
      Map<String, String> alice = tiered(properties("tier-alice"), memcached);
      try (SlipstreamFileIO io = fileIo(alice)) {
        byte[] all = read(io.newInputFile(path("tier.parquet"), SIZE));
        assertThat(TestData.firstMismatch(6, 0, all, 0, all.length)).isEqualTo(-1);
        // The tier is written behind the read: wait, bounded, for alice's first write to be answered.
        ReadStatistics stats = io.slipstream().statistics();
        long deadline = System.nanoTime() + 30_000_000_000L;
        while (stats.get(Counter.SHARED_SETS) == 0 && System.nanoTime() < deadline) {
          sleep(20);
        }
        assertThat(stats.get(Counter.SHARED_SETS)).as("alice's blocks in the tier").isPositive();
      }
      TestPrincipals.PRINCIPALS.put("tier-carol", "carol");
      try (SlipstreamFileIO io = fileIo(tiered(properties("tier-carol"), memcached))) {
        byte[] all = read(io.newInputFile(path("tier.parquet"), SIZE));
        assertThat(TestData.firstMismatch(6, 0, all, 0, all.length)).isEqualTo(-1);
        assertThat(io.slipstream().statistics().get(Counter.SHARED_HITS))
            .as("the tier serves another FileIO whose principal the store admits").isPositive();
      }
      try (SlipstreamFileIO io = fileIo(tiered(properties("tier-bob"), memcached))) {
        refused(io, "tier.parquet");
        assertThat(io.slipstream().statistics().get(Counter.SHARED_HITS)).as("no tier block served to bob").isZero();
      }
    }
    assertThat(principals(server.requests())).containsExactly("alice", "carol", "bob");
  }

  /** {@code properties} with the shared tier on {@code memcached}, read and written. */
  private static Map<String, String> tiered(Map<String, String> properties, MemcachedServer memcached) {
    properties.put("slipstream.shared.mode", "read-write");
    properties.put("slipstream.shared.servers", memcached.hostPort());
    properties.put("slipstream.shared.secret", "read-identity-test");
    properties.put("slipstream.shared.timeout", "10s");
    properties.put("slipstream.shared.timeout.adaptive", "false");
    return properties;
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted", e);
    }
  }
}
