/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.iceberg;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.slipstream.SlipstreamConfig;
import java.util.Map;
import org.junit.jupiter.api.Test;

class CatalogPropertiesTest {
  @Test
  void slipstreamKeysPassWithTheirPrefixAndS3FileIosClientPropertiesAreLeftToIt() {
    SlipstreamConfig config = CatalogProperties.toConfig(Map.of(
        "slipstream.block.size", "4M",
        "s3.endpoint", "http://127.0.0.1:9000",
        "s3.access-key-id", "AKIDEXAMPLE",
        "s3.secret-access-key", "very-secret",
        "client.region", "eu-west-1",
        "warehouse", "s3://lake/warehouse"));
    assertThat(config.blockSize()).isEqualTo(4 << 20);
    assertThat(config.endpoint()).as("the S3 client is S3FileIO's").isEmpty();
    assertThat(config.accessKey()).isEmpty();
    assertThat(config.region()).isEmpty();
  }

  /** A second identity or route for reads, beside the S3FileIO's, is refused at initialize, naming what to set. */
  @Test
  void slipstreamsOwnClientKeysAreRefusedNamingS3FileIosProperty() {
    Map<String, String> instead = Map.of(
        "slipstream.endpoint", "s3.endpoint",
        "slipstream.region", "client.region",
        "slipstream.path.style.access", "s3.path-style-access",
        "slipstream.access.key", "s3.access-key-id",
        "slipstream.secret.key", "s3.secret-access-key",
        "slipstream.session.token", "s3.session-token");
    instead.forEach((own, property) -> assertThatThrownBy(() -> CatalogProperties.toConfig(Map.of(own, "some-value")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith(own + " does not apply to SlipstreamFileIO")
        .hasMessageContaining("set " + property)
        .hasMessageNotContaining("some-value"));
  }

  @Test
  void accessPointsAreAcceptedAsReadsGoThroughThemToo() {
    // AccessPointFileIOTest shows the reads going to the access point.
    assertThat(CatalogProperties.toConfig(Map.of("s3.access-points.lake", "arn:aws:s3::123:accesspoint/ap")))
        .isNotNull();
  }

  @Test
  void s3FileIosSseCKeyIsSlipstreamsCustomerKey() {
    String key = aesKey(1);
    SlipstreamConfig config = CatalogProperties.toConfig(Map.of("s3.sse.type", "custom", "s3.sse.key", key,
        "s3.sse.md5", md5(key)));
    assertThat(config.sseCustomerKey()).contains(key);
    assertThat(config.toString()).doesNotContain(key);
    assertThat(CatalogProperties.toConfig(Map.of("s3.sse.type", "kms", "s3.sse.key", "arn:aws:kms:key"))
        .sseCustomerKey()).as("a KMS key id is no customer key").isEmpty();
    assertThatThrownBy(() -> CatalogProperties.toConfig(Map.of("slipstream.sse.customer.key", key)))
        .as("one key for reads and writes: S3FileIO's").isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("slipstream.sse.customer.key does not apply to SlipstreamFileIO: set s3.sse.type=custom")
        .hasMessageNotContaining(key);
  }

  @Test
  void aMissingWrongOrMismatchedSseCKeyNamesThePropertyNeverTheKey() {
    assertThatThrownBy(() -> CatalogProperties.toConfig(Map.of("s3.sse.type", "custom")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("s3.sse.type is custom (SSE-C) but s3.sse.key is not set");
    String short16 = java.util.Base64.getEncoder().encodeToString(new byte[16]);
    assertThatThrownBy(() -> CatalogProperties.toConfig(Map.of("s3.sse.type", "custom", "s3.sse.key", short16)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("s3.sse.key (SSE-C) is refused: ")
        .hasMessageNotContaining(short16);
    String key = aesKey(2);
    assertThatThrownBy(() -> CatalogProperties.toConfig(Map.of("s3.sse.type", "custom", "s3.sse.key", key,
        "s3.sse.md5", md5(aesKey(3)))))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("s3.sse.md5 is not the base64 MD5 of the key in s3.sse.key")
        .hasMessageNotContaining(key);
  }

  static String aesKey(int seed) {
    byte[] key = new byte[32];
    new java.util.Random(seed).nextBytes(key);
    return java.util.Base64.getEncoder().encodeToString(key);
  }

  static String md5(String keyBase64) {
    try {
      return java.util.Base64.getEncoder().encodeToString(java.security.MessageDigest.getInstance("MD5")
          .digest(java.util.Base64.getDecoder().decode(keyBase64)));
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  @Test
  void aBadS3FileIoValueNamesTheCatalogProperty() {
    assertThatThrownBy(() -> CatalogProperties.toConfig(Map.of("s3.path-style-access", "maybe")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("s3.path-style-access: ")
        .hasMessageContaining("maybe");
    assertThatThrownBy(() -> CatalogProperties.toConfig(Map.of("s3.endpoint", "ftp://somewhere")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("s3.endpoint: ");
  }

  @Test
  void aBadSlipstreamValueOrUnknownKeyNamesThePrefixedKey() {
    assertThatThrownBy(() -> CatalogProperties.toConfig(Map.of("slipstream.block.size", "lots")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("slipstream.block.size='lots'");
    assertThatThrownBy(() -> CatalogProperties.toConfig(Map.of("slipstream.block.sise", "4M")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'slipstream.block.sise'");
  }

  @Test
  void credentialsGoTogetherAndAreNeverShown() {
    assertThatThrownBy(() -> CatalogProperties.toConfig(Map.of("s3.access-key-id", "AKIDEXAMPLE")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("s3.access-key-id")
        .hasMessageNotContaining("AKIDEXAMPLE");
    assertThatThrownBy(() -> CatalogProperties.toConfig(Map.of(
        "s3.access-key-id", "AKIDEXAMPLE", "s3.secret-access-key", "very-secret", "slipstream.retry.max", "-1")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("slipstream.retry.max")
        .hasMessageNotContaining("AKIDEXAMPLE")
        .hasMessageNotContaining("very-secret");
    assertThat(CatalogProperties.toConfig(Map.of("s3.access-key-id", "AKIDEXAMPLE", "s3.secret-access-key",
        "very-secret")).toString()).doesNotContain("AKIDEXAMPLE").doesNotContain("very-secret");
  }

  @Test
  void memoryMaxIsAQuarterOfTheHeapUnlessSet() {
    long heap = Runtime.getRuntime().maxMemory();
    assertThat(CatalogProperties.toConfig(Map.of()).memoryMax())
        .isEqualTo(Math.max(heap / 4, SlipstreamConfig.defaults().blockSize()));
    assertThat(CatalogProperties.toConfig(Map.of("slipstream.memory.max", "64M")).memoryMax()).isEqualTo(64L << 20);
  }
}
