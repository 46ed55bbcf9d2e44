/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** Quantiles by nearest rank over the last values only. */
class RecentLatenciesTest {
  @Test
  void quantilesAreOfTheLastWindowOfValuesByNearestRank() {
    RecentLatencies r = new RecentLatencies(100);
    assertThat(r.quantile(0.99)).as("none yet").isZero();
    for (int i = 1; i <= 100; i++) {
      assertThat(r.record(i)).isEqualTo(i);
    }
    assertThat(r.quantile(0.5)).isEqualTo(50);
    assertThat(r.quantile(0.95)).isEqualTo(95);
    assertThat(r.quantile(1.0)).isEqualTo(100);
    for (int i = 0; i < 100; i++) {
      r.record(1000); // the old values leave the window
    }
    assertThat(r.quantile(0.01)).isEqualTo(1000);
    assertThat(r.samples()).isEqualTo(200);
  }

  @Test
  void aQuantileOutsideZeroToOneOrAnEmptyWindowIsRefused() {
    assertThatThrownBy(() -> new RecentLatencies(0)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new RecentLatencies(4).quantile(0)).hasMessageContaining("(0, 1]");
    assertThatThrownBy(() -> new RecentLatencies(4).quantile(1.5)).hasMessageContaining("(0, 1]");
  }
}
