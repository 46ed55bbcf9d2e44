/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.bench;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** Percentiles of GET latencies, nearest rank, over every GET of the measured runs. */
class GetLatencyTest {
  static long[] millis(long... ms) {
    long[] ns = new long[ms.length];
    for (int i = 0; i < ms.length; i++) {
      ns[i] = ms[i] * 1_000_000;
    }
    return ns;
  }

  @Test
  void nearestRankOfOneHundredSamples() {
    long[] first = new long[100];
    long[] total = new long[100];
    for (int i = 0; i < 100; i++) {
      first[99 - i] = (i + 1) * 1_000_000L; // 1..100 ms, given in reverse
      total[i] = (i + 1) * 10_000_000L;
    }
    Result.GetLatency l = Result.GetLatency.of(first, total);
    assertThat(l.firstByteP50Ms()).isEqualTo(50.0);
    assertThat(l.firstByteP99Ms()).isEqualTo(99.0);
    assertThat(l.totalP50Ms()).isEqualTo(500.0);
    assertThat(l.totalP99Ms()).isEqualTo(990.0);
  }

  @Test
  void aFewSamplesAndNone() {
    Result.GetLatency one = Result.GetLatency.of(millis(20), millis(300));
    assertThat(one.firstByteP50Ms()).isEqualTo(20.0);
    assertThat(one.firstByteP99Ms()).isEqualTo(20.0);
    Result.GetLatency three = Result.GetLatency.of(millis(30, 10, 20), millis(3, 1, 2));
    assertThat(three.firstByteP50Ms()).isEqualTo(20.0);
    assertThat(three.firstByteP99Ms()).isEqualTo(30.0);
    assertThat(three.totalP50Ms()).isEqualTo(2.0);
    assertThat(Result.GetLatency.of(new long[0], new long[0])).isEqualTo(Result.GetLatency.NONE);
    assertThat(Result.GetLatency.NONE.isKnown()).isFalse();
    assertThat(MarkdownReport.latency(Result.GetLatency.NONE)).isEqualTo("-");
    assertThat(MarkdownReport.latency(three)).isEqualTo("20 / 30, 2 / 3");
  }
}
