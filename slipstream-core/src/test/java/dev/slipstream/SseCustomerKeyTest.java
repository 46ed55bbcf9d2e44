/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.slipstream.internal.store.SseCustomerKey;
import dev.slipstream.testkit.EmbeddedS3Server;
import dev.slipstream.testkit.SeaweedS3Server;
import dev.slipstream.testkit.TestData;
import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.ServerSideEncryption;

/**
 * {@code sse.customer.key}: the plain-Java way to read SSE-C objects. The key is checked at start-up and never
 * shown; a client with it reads an SSE-C object from a server that enforces SSE-C (SeaweedFS: 400 without the
 * key, 403 with another), keeping what it read in memory only; a client without it, or with another, gets no
 * byte.
 */
class SseCustomerKeyTest {
  static final String KEY = aesKey(11);
  static final String OTHER_KEY = aesKey(12);

  static String aesKey(int seed) {
    byte[] key = new byte[32];
    new Random(seed).nextBytes(key);
    return Base64.getEncoder().encodeToString(key);
  }

  @Test
  void theKeyIsCheckedAtStartAndNeverShown() {
    SlipstreamConfig c = SlipstreamConfig.builder().set("sse.customer.key", KEY).build();
    assertThat(c.sseCustomerKey()).contains(KEY);
    assertThat(ConfigKey.SSE_CUSTOMER_KEY.type()).isEqualTo(ValueKind.SECRET);
    assertThat(c.toString()).doesNotContain(KEY).contains("sse.customer.key=****");
    assertThat(SlipstreamConfig.defaults().sseCustomerKey()).isEmpty();

    String notBase64 = "this is not base64 at all!";
    String short16 = Base64.getEncoder().encodeToString(new byte[16]);
    assertThatThrownBy(() -> SlipstreamConfig.builder().set("sse.customer.key", notBase64).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("sse.customer.key='****'").hasMessageContaining("256-bit AES key in base64")
        .hasMessageNotContaining(notBase64);
    assertThatThrownBy(() -> SlipstreamConfig.fromMap(Map.of("fs.slipstream.sse.customer.key", short16),
        "fs.slipstream.")).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("fs.slipstream.sse.customer.key").hasMessageContaining("16 bytes")
        .hasMessageNotContaining(short16);
  }

  @Test
  void theRequestDecoratorNeverShowsTheKey() {
    SseCustomerKey key = SseCustomerKey.of(Optional.of(KEY));
    assertThat(key.present()).isTrue();
    assertThat(key.toString()).doesNotContain(KEY).contains("****");
    assertThat(SseCustomerKey.of(Optional.empty())).isSameAs(SseCustomerKey.NONE);
    assertThat(SseCustomerKey.NONE.present()).isFalse();
  }

  @Test
  @Timeout(180)
  void aClientWithTheKeyReadsAnSseCObjectAndKeepsItInMemoryOnly(@TempDir Path disk) throws IOException {
    int size = 2 * 1024 * 1024 + 5; // three blocks of 1 MiB
    byte[] data = TestData.bytes(5, size);
    try (SeaweedS3Server server = SeaweedS3Server.start()) {
      server.createBucket("sse-c-core");
      try (S3Client writer = S3Client.builder().endpointOverride(server.endpoint()).forcePathStyle(true)
          .region(software.amazon.awssdk.regions.Region.of(EmbeddedS3Server.REGION))
          .credentialsProvider(() -> software.amazon.awssdk.auth.credentials.AwsBasicCredentials.create(
              EmbeddedS3Server.ACCESS_KEY, EmbeddedS3Server.SECRET_KEY)).build()) {
        writer.putObject(p -> p.bucket("sse-c-core").key("k.bin").sseCustomerAlgorithm(ServerSideEncryption.AES256
            .toString()).sseCustomerKey(KEY).sseCustomerKeyMD5(md5(KEY)), RequestBody.fromBytes(data));
      }
      SlipstreamConfig.Builder config = TestClients.config(server.endpoint()).set("block.size", "1M")
          .set("cache.memory", "true").set("cache.disk.mode", "all").set("cache.disk.dir", disk.toString());
      try (Slipstream client = Slipstream.builder().config(config.set("sse.customer.key", KEY).build())
          .isolatedResources().build()) {
        assertThat(client.diskCacheDirectory()).as("no disk cache for a client with an SSE-C key").isEmpty();
        for (int pass = 0; pass < 2; pass++) {
          try (SlipstreamInputStream in = client.open("s3://sse-c-core/k.bin")) { // a HEAD, then GETs
            assertThat(in.readAllBytes()).isEqualTo(data);
          }
        }
        ReadStatistics stats = client.statistics();
        assertThat(stats.get(Counter.HEAD_REQUESTS)).isEqualTo(1);
        assertThat(stats.get(Counter.BYTES_FETCHED)).as("fetched once, read twice").isEqualTo(size);
        assertThat(stats.get(Counter.MEMORY_CACHE_BYTES_READ)).isEqualTo(size);
        assertThat(stats.get(Counter.DISK_CACHE_BYTES_WRITTEN)).isZero();
      }
      Slipstream.awaitDiskCacheWrites(java.time.Duration.ofSeconds(30));
      try (var files = Files.walk(disk)) {
        assertThat(files.filter(Files::isRegularFile).toList()).isEmpty();
      }

      try (Slipstream other = Slipstream.builder().config(config.set("sse.customer.key", OTHER_KEY).build())
          .isolatedResources().build()) {
        assertThatThrownBy(() -> other.open("s3://sse-c-core/k.bin").read()).isInstanceOf(AccessDeniedException.class)
            .hasMessageContaining("s3://sse-c-core/k.bin").hasMessageNotContaining(OTHER_KEY);
      }
      try (Slipstream none = Slipstream.builder().config(config.set("sse.customer.key", null).build())
          .isolatedResources().build()) {
        assertThatThrownBy(() -> none.open("s3://sse-c-core/k.bin").read()).isInstanceOf(IOException.class)
            .hasMessageContaining("s3://sse-c-core/k.bin").hasMessageContaining("400");
      }
    }
  }

  static String md5(String keyBase64) {
    try {
      return Base64.getEncoder().encodeToString(java.security.MessageDigest.getInstance("MD5")
          .digest(Base64.getDecoder().decode(keyBase64)));
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new AssertionError(e);
    }
  }
}
