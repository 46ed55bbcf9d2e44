/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * {@link S3KeyOrder}, {@link S3Clients} and {@link ListEntry#etagValue()}: what modules outside core use
 * instead of the internals.
 */
class PublicHelpersTest {
  @Test
  void keyOrderIsTheOrderOfUtf8Bytes() {
    String bmpHigh = "\uFF5E"; // above the surrogates in UTF-16
    String astral = new String(Character.toChars(0x1F600)); // a surrogate pair in UTF-16
    List<String> keys = new ArrayList<>(List.of("a" + astral, "a" + bmpHigh, "a", "a/", "b", "A"));
    keys.sort(S3KeyOrder.COMPARATOR);
    List<String> byBytes = new ArrayList<>(keys);
    byBytes.sort((x, y) ->
        Arrays.compareUnsigned(x.getBytes(StandardCharsets.UTF_8), y.getBytes(StandardCharsets.UTF_8)));
    assertThat(keys).isEqualTo(byBytes).containsExactly("A", "a", "a/", "a" + bmpHigh, "a" + astral, "b");
    assertThat(S3KeyOrder.compare(bmpHigh, astral)).isNegative().isEqualTo(-S3KeyOrder.compare(astral, bmpHigh));
    assertThat(S3KeyOrder.compare("k", "k")).isZero();
  }

  @Test
  void aListedETagIsPrintedWithoutItsQuotesHoweverSpelled() {
    assertThat(new ListEntry("k", 1, "\"9e10\"", null).etagValue()).isEqualTo("9e10");
    assertThat(new ListEntry("k", 1, "9e10-3", null).etagValue()).isEqualTo("9e10-3");
    assertThat(new ListEntry("k", 1, "W/\"9e10\"", null).etagValue()).isEqualTo("9e10");
    assertThat(new ListEntry("k", 1, null, null).etagValue()).isNull();
    assertThat(new ListEntry("k", 1, "\"\"", null).etagValue()).isNull();
  }

  @Test
  void s3ClientIsBuiltFromTheConfiguration() {
    SlipstreamConfig config = SlipstreamConfig.builder()
        .set("endpoint", "http://127.0.0.1:9")
        .set("region", "eu-west-3")
        .set("access.key", "AKIDEXAMPLE")
        .set("secret.key", "secret")
        .build();
    try (S3Client client = S3Clients.create(config)) {
      assertThat(client.serviceClientConfiguration().region()).isEqualTo(Region.EU_WEST_3);
      assertThat(client.serviceClientConfiguration().endpointOverride()).contains(URI.create("http://127.0.0.1:9"));
    }
  }
}
