/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.iceberg;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.slipstream.SlipstreamConfig;
import java.net.URI;
import java.util.Map;
import org.junit.jupiter.api.Test;

class CatalogPropertiesTest {
  @Test
  void s3FileIoPropertiesMapToSlipstreamKeys() {
    SlipstreamConfig config = CatalogProperties.toConfig(Map.of(
        "s3.endpoint", "http://127.0.0.1:9000",
        "s3.path-style-access", "true",
        "s3.access-key-id", "AKIDEXAMPLE",
        "s3.secret-access-key", "very-secret",
        "s3.session-token", "a-token",
        "client.region", "eu-west-1",
        "warehouse", "s3://lake/warehouse"));
    assertThat(config.endpoint()).contains(URI.create("http://127.0.0.1:9000"));
    assertThat(config.pathStyleAccess()).isTrue();
    assertThat(config.accessKey()).contains("AKIDEXAMPLE");
    assertThat(config.secretKey()).contains("very-secret");
    assertThat(config.sessionToken()).contains("a-token");
    assertThat(config.region()).contains("eu-west-1");
  }

  @Test
  void slipstreamKeysPassWithTheirPrefixAndWinOverMappedOnes() {
    SlipstreamConfig config = CatalogProperties.toConfig(Map.of(
        "slipstream.block.size", "4M",
        "s3.endpoint", "http://127.0.0.1:9000",
        "slipstream.endpoint", "http://127.0.0.1:9001"));
    assertThat(config.blockSize()).isEqualTo(4 << 20);
    assertThat(config.endpoint()).contains(URI.create("http://127.0.0.1:9001"));
  }

  @Test
  void aBadMappedValueNamesTheCatalogProperty() {
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
