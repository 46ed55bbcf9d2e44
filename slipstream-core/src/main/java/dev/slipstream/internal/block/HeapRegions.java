/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.block;

import com.sun.management.HotSpotDiagnosticMXBean;
import java.lang.management.ManagementFactory;

/**
 * What a buffer really costs the heap. G1, the JVM's default collector, gives an array of half a region
 * or more ("humongous") whole regions of its own, never moved: an 8 MiB block takes 9 MiB of a 1 GiB
 * heap (regions of 1 MiB), 12 MiB of a 6 GiB heap (4 MiB) and 16 MiB from a 12 GiB heap on (8 MiB and
 * more), measured with {@code java -Xmx<N>} on Java 17. The pool counts that cost against {@code
 * memory.max}, so that the budget bounds the heap it takes, whatever the heap's size; and what it holds
 * ahead of a reader comes in pieces below half a region ({@link #largestOrdinary}), which G1 places and
 * moves as any object, so that they never cut up the free regions an engine's own large arrays need.
 *
 * <p>Other collectors (Parallel, Serial, ZGC, Shenandoah) are taken to cost an array its length.
 */
public final class HeapRegions {
  /** Room for an array's header, more than any JVM's (16 bytes with compressed class pointers). */
  static final int HEADER = 64;
  /**
   * The granule buffers are sized in: the pool rounds every buffer up to it ({@code BufferPool.SIZE_UNIT}),
   * and the largest ordinary buffer is a multiple of it.
   */
  static final int UNIT = 64 * 1024;

  private static final HeapRegions CURRENT = new HeapRegions(g1RegionSize());

  private final long region;

  /** For G1's regions of {@code region} bytes; 0 where the collector has no humongous arrays. */
  HeapRegions(long region) {
    this.region = region;
  }

  /** This JVM's. */
  public static HeapRegions current() {
    return CURRENT;
  }

  /** G1's region size in bytes; 0 where the collector has no humongous arrays. */
  long region() {
    return region;
  }

  /** The heap an array of {@code length} bytes takes. */
  public long cost(int length) {
    if (region == 0 || length + HEADER < region / 2) {
      return length;
    }
    return (length + HEADER + region - 1) / region * region;
  }

  /**
   * The largest buffer, in {@link #UNIT} multiples, that is an ordinary object: below
   * half a region (448 KiB at regions of 1 MiB); {@code cap} where the collector has no such limit or it
   * is larger.
   */
  public int largestOrdinary(int cap) {
    if (region == 0) {
      return cap;
    }
    long below = (region / 2 - HEADER) / UNIT * UNIT;
    return (int) Math.max(UNIT, Math.min(cap, below));
  }

  /** G1's region size, or 0 if this JVM runs another collector or does not say. */
  private static long g1RegionSize() {
    try {
      HotSpotDiagnosticMXBean vm = ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class);
      if (vm == null || !"true".equals(vm.getVMOption("UseG1GC").getValue())) {
        return 0;
      }
      return Long.parseLong(vm.getVMOption("G1HeapRegionSize").getValue());
    } catch (RuntimeException | LinkageError e) { // not HotSpot, or the management module left out
      return 0;
    }
  }
}
