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
    long[] drawn = new long[n]; // the profile's draws: values of a pure function, nothing here is timed
    for (int i = 0; i < n; i++) {
      drawn[i] = sampler.sampleNanos(new RequestDraws(RequestDraws.mix(i), 0));
    }
    long inTail = java.util.Arrays.stream(drawn).filter(d -> d >= 1_000 * MS && d <= 2_000 * MS).count();
    long inBody = java.util.Arrays.stream(drawn).filter(d -> d >= 5 * MS && d <= 80 * MS).count();
    assertThat(inTail + inBody).as("draws in the tail (1-2 s) or in s3-like's range (median / 4 to the clamp)")
        .isEqualTo(n);
    assertThat(inTail).as("draws in the tail, of %d", n).isBetween(n / 100 * 8 / 10L, n / 100 * 12 / 10L);
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
