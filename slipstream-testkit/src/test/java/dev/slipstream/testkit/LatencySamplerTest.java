/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** The first-byte latencies a profile draws, its heavy tail included. */
class LatencySamplerTest {
  private static final long MS = 1_000_000L;

  @Test
  void theHeavyTailProfileSendsAboutOnePercentOfRequestsToOneToTwoSeconds() {
    LatencySampler sampler = new LatencySampler(LinkProfile.named("heavy-tail"));
    int n = 20_000;
    int tail = 0;
    for (int i = 0; i < n; i++) {
      // the drawn wait, a value of the profile (nothing here is timed)
      long drawnMillis = sampler.sampleNanos(new RequestDraws(RequestDraws.mix(i), 0)) / MS;
      if (drawnMillis >= 1_000) {
        assertThat(drawnMillis).as("a wait in the tail").isBetween(1_000L, 2_000L);
        tail++;
      } else {
        assertThat(drawnMillis).as("a wait of s3-like: median / 4 to the clamp").isBetween(5L, 80L);
      }
    }
    assertThat(tail).as("requests in the tail of %d", n).isBetween(n / 100 * 8 / 10, n / 100 * 12 / 10);
  }

  @Test
  void anIdenticalRequestDrawsItsTailAnew() {
    // a hedge repeats its request: its draw is its own, not the slow one's
    LatencySampler sampler = new LatencySampler(LinkProfile.LOOPBACK.withTail(0.5, 100, 100));
    int slowThenFast = 0;
    for (int i = 0; i < 1_000; i++) {
      long first = sampler.sampleNanos(new RequestDraws(RequestDraws.mix(i), 0));
      long again = sampler.sampleNanos(new RequestDraws(RequestDraws.mix(i), 1));
      if (first == 100 * MS && again == 0) {
        slowThenFast++;
      }
    }
    assertThat(slowThenFast).isBetween(200, 300);
  }

  @Test
  void aTailOutOfRangeIsRefused() {
    assertThatThrownBy(() -> LinkProfile.S3_LIKE.withTail(1.5, 1, 2)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("tailProbability");
    assertThatThrownBy(() -> LinkProfile.S3_LIKE.withTail(0.1, 5, 2)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("min 5 ms, max 2 ms");
  }
}
