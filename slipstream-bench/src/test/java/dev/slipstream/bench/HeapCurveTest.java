/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

/** The growth per object is the least-squares slope over the samples from the warm-up on. */
class HeapCurveTest {
  @Test
  void theSlopeLeavesOutTheWarmUpAndFitsTheRest() {
    // a jump of 50 MB in the warm-up, then 100 bytes per object with noise of +-1,000 bytes
    long[] objects = {0, 1000, 2000, 3000, 4000, 5000};
    long[] heap = {10_000_000, 60_000_000, 60_100_000 + 1000, 60_200_000 - 1000, 60_300_000 + 1000, 60_400_000 - 1000};
    HeapCurve c = new HeapCurve(objects, heap, 2000);
    assertThat(c.bytesPerObject()).isCloseTo(99.6, within(0.01));
    assertThat(c.peakBytes()).isEqualTo(60_400_000 - 1000);
    assertThat(c.lastObjects()).isEqualTo(5000);
    assertThat(new HeapCurve(objects, heap, 0).bytesPerObject()).isGreaterThan(5000);
  }

  @Test
  void withFewerThanTwoSamplesThereIsNoSlope() {
    assertThat(new HeapCurve(new long[] {0, 10}, new long[] {5, 6}, 10).bytesPerObject()).isNaN();
  }
}
