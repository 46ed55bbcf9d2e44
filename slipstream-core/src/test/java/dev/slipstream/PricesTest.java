/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

/** Requests and bytes as dollars, at S3's list prices or configured ones. */
class PricesTest {
  @Test
  void theDefaultsAreS3StandardsListPricesInUsEast() {
    assertThat(SlipstreamConfig.builder().build().prices()).isEqualTo(Prices.S3_STANDARD_US_EAST);
    // 1,000 GETs, 1,000 HEADs and 1,000 LISTs for 1 GB read, nothing for transfer within the region
    Prices.Cost c = Prices.S3_STANDARD_US_EAST.cost(1000, 1000, 1000, 2_000_000_000L, 1_000_000_000L);
    assertThat(c.requestDollars()).isCloseTo(0.0004 + 0.0004 + 0.005, within(1e-12));
    assertThat(c.transferDollars()).isZero();
    assertThat(c.dollarsPerGbRead()).isCloseTo(0.0058, within(1e-12));
  }

  @Test
  void configuredPricesAndTransfer() {
    Prices p = SlipstreamConfig.builder().set("cost.get", "0.001").set("cost.head", "$0.002")
        .set("cost.list", "0").set("cost.transfer", "0.09").build().prices();
    Prices.Cost c = p.cost(2000, 500, 7, 10_000_000_000L, 5_000_000_000L);
    assertThat(c.requestDollars()).isCloseTo(0.002 + 0.001, within(1e-12));
    assertThat(c.transferDollars()).isCloseTo(0.9, within(1e-12));
    assertThat(c.totalDollars()).isCloseTo(0.903, within(1e-12));
    assertThat(c.dollarsPerGbRead()).isCloseTo(0.903 / 5, within(1e-12));
    assertThat(p.cost(0, 0, 0, 0, 0).dollarsPerGbRead()).isNaN();
  }

  @Test
  void aClientsCostIsWhatItsCountersSay() {
    try (Slipstream client = Slipstream.builder().isolatedResources().config(SlipstreamConfig.builder()
        .set("region", "us-east-1").set("cache.disk.mode", "off").build()).build()) {
      client.statistics().add(Counter.GET_REQUESTS, 250);
      client.statistics().add(Counter.BYTES_READ, 250_000_000L);
      assertThat(client.cost().requestDollars()).isCloseTo(0.0001, within(1e-12));
      assertThat(client.cost().dollarsPerGbRead()).isCloseTo(0.0004, within(1e-12));
    }
  }
}
