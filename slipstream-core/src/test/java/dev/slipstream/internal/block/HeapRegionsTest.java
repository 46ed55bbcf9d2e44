/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.block;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class HeapRegionsTest {
  private static final int MIB = 1 << 20;
  private static final int ARRAYS = 16;

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

  /**
   * The model against a real JVM: the heap that sixteen 8 MiB arrays take after a full GC, in a JVM of
   * its own (G1 with regions of the given size) where no other test's threads allocate or free meanwhile.
   */
  @ParameterizedTest(name = "regions of {0} MiB")
  @ValueSource(ints = {1, 4, 16})
  @Timeout(60)
  void aJvmsHeapGrowsByTheModelsCost(int regionMib) throws Exception {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    Process p = new ProcessBuilder(List.of(java, "-XX:+UseG1GC", "-XX:G1HeapRegionSize=" + regionMib + "m",
        "-Xms1g", "-Xmx1g", "-cp", System.getProperty("java.class.path"), Measure.class.getName()))
        .redirectErrorStream(true).start();
    try {
      assertThat(p.waitFor(50, TimeUnit.SECONDS)).as("the measuring JVM ends").isTrue();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.US_ASCII).trim();
      assertThat(p.exitValue()).as(out).isZero();
      String[] f = out.split(" ");
      long region = Long.parseLong(f[0]);
      long grew = Long.parseLong(f[1]);
      assertThat(region).as("the child's G1 region").isEqualTo((long) regionMib * MIB);
      long expected = ARRAYS * new HeapRegions(region).cost(8 * MIB);
      assertThat((double) grew).as("heap taken by %d arrays of 8 MiB, expected %d", ARRAYS, expected)
          .isBetween(expected * 0.97, expected * 1.03);
    } finally {
      p.destroyForcibly();
    }
  }

  /** Run in the child JVM: prints its region size and how much a full GC finds the arrays hold. */
  public static final class Measure {
    public static void main(String[] args) {
      long region = HeapRegions.current().region();
      System.gc();
      long before = used();
      byte[][] arrays = new byte[ARRAYS][];
      for (int i = 0; i < ARRAYS; i++) {
        arrays[i] = new byte[8 * MIB];
      }
      System.gc();
      long grew = used() - before;
      if (arrays[ARRAYS - 1].length != 8 * MIB) { // keeps them reachable up to here
        throw new IllegalStateException();
      }
      System.out.println(region + " " + grew);
    }
  }

  private static long used() {
    return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
  }
}
