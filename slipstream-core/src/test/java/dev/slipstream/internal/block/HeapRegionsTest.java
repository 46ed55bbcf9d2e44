/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.block;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.management.ManagementFactory;
import org.junit.jupiter.api.Test;

class HeapRegionsTest {
  private static final int MIB = 1 << 20;

  @Test
  void anArrayOfHalfARegionOrMoreCostsItsWholeRegions() {
    HeapRegions oneMib = new HeapRegions(MIB);
    assertThat(oneMib.cost(8 * MIB)).isEqualTo(9L * MIB); // 8 MiB and a header: nine regions
    assertThat(oneMib.cost(512 * 1024)).isEqualTo(MIB);
    assertThat(oneMib.cost(448 * 1024)).isEqualTo(448 * 1024); // an ordinary object
    assertThat(new HeapRegions(4 * MIB).cost(8 * MIB)).isEqualTo(12L * MIB);
    assertThat(new HeapRegions(8 * MIB).cost(8 * MIB)).isEqualTo(16L * MIB);
    assertThat(new HeapRegions(16 * MIB).cost(8 * MIB)).isEqualTo(16L * MIB);
    assertThat(new HeapRegions(32 * MIB).cost(8 * MIB)).isEqualTo(8L * MIB); // below half a region
    assertThat(new HeapRegions(0).cost(8 * MIB)).isEqualTo(8L * MIB); // no humongous arrays
  }

  @Test
  void theLargestOrdinaryBufferIsBelowHalfARegionInWholeUnits() {
    assertThat(new HeapRegions(MIB).largestOrdinary(8 * MIB)).isEqualTo(448 * 1024);
    assertThat(new HeapRegions(4 * MIB).largestOrdinary(8 * MIB)).isEqualTo(1984 * 1024);
    assertThat(new HeapRegions(32 * MIB).largestOrdinary(8 * MIB)).isEqualTo(8 * MIB);
    assertThat(new HeapRegions(0).largestOrdinary(8 * MIB)).isEqualTo(8 * MIB);
    assertThat(new HeapRegions(MIB).largestOrdinary(64 * 1024)).isEqualTo(64 * 1024);
  }

  /** The model against this JVM: the heap that sixteen 8 MiB arrays really take after a full GC. */
  @Test
  void thisJvmsCostIsTheHeapItsArraysTake() {
    int n = 16;
    long expected = n * HeapRegions.current().cost(8 * MIB);
    System.gc();
    long before = used();
    byte[][] arrays = new byte[n][];
    for (int i = 0; i < n; i++) {
      arrays[i] = new byte[8 * MIB];
    }
    System.gc();
    long grew = used() - before;
    assertThat(arrays[n - 1]).hasSize(8 * MIB); // still reachable here
    assertThat((double) grew).as("heap taken by %d arrays of 8 MiB, expected %d", n, expected)
        .isBetween(expected * 0.95, expected * 1.05);
  }

  private static long used() {
    return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
  }
}
