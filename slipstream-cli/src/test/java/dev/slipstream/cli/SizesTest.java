/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 1, unit = TimeUnit.MINUTES)
class SizesTest {
  @Test
  void parsesSizesWithBinarySuffixes() {
    assertThat(Sizes.parse("512M")).isEqualTo(512L << 20);
    assertThat(Sizes.parse("16m")).isEqualTo(16L << 20);
    assertThat(Sizes.parse("64K")).isEqualTo(64L << 10);
    assertThat(Sizes.parse("2G")).isEqualTo(2L << 30);
    assertThat(Sizes.parse("1GiB")).isEqualTo(1L << 30);
    assertThat(Sizes.parse("1000")).isEqualTo(1000);
    assertThatThrownBy(() -> Sizes.parse("lots")).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> Sizes.parse("-1M")).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> Sizes.parse("99999999999999999999")).isInstanceOf(IllegalArgumentException.class);
  }

  /** As configuration keys take durations (core's parser), above zero: the reason, not the key, in the error. */
  @Test
  void parsesDurationsAsConfigurationDoes() {
    assertThat(Sizes.parseDuration("30s")).isEqualTo(Duration.ofSeconds(30));
    assertThat(Sizes.parseDuration("500ms")).isEqualTo(Duration.ofMillis(500));
    assertThat(Sizes.parseDuration(" 10m ")).isEqualTo(Duration.ofMinutes(10));
    assertThat(Sizes.parseDuration("2h")).isEqualTo(Duration.ofHours(2));
    assertThat(Sizes.parseDuration("250")).isEqualTo(Duration.ofMillis(250));
    assertThatThrownBy(() -> Sizes.parseDuration("0s")).isInstanceOf(IllegalArgumentException.class)
        .hasMessage("must be greater than zero");
    assertThatThrownBy(() -> Sizes.parseDuration("soon")).isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("expected a duration such as").hasMessageNotContaining("read.stall.timeout");
    assertThatThrownBy(() -> Sizes.parseDuration("99999999999h")).isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("too large");
  }

  @Test
  void printsSizesInBinaryUnits() {
    assertThat(Sizes.binary(512L << 20)).isEqualTo("512 MiB");
    assertThat(Sizes.binary(3L << 29)).isEqualTo("1.5 GiB");
    assertThat(Sizes.binary(1000)).isEqualTo("1000 bytes");
    assertThat(Sizes.binary(1)).isEqualTo("1 byte");
    assertThat(Sizes.binary(5 * 1024 * 1024 + 12_345)).isEqualTo("5.0 MiB");
  }

  @Test
  void ratesAreInDecimalMegabytes() {
    assertThat(Sizes.rate(100_000_000, 2_000_000_000L)).isEqualTo("50.0 MB/s");
    assertThat(Sizes.clock(75)).isEqualTo("1:15");
    assertThat(Sizes.clock(3_725)).isEqualTo("1:02:05");
  }
}
