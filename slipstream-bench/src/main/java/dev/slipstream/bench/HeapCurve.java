/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.bench;

import java.lang.management.ManagementFactory;
import java.util.Arrays;

/**
 * The heap a reader's client keeps as it reads ever more distinct objects: heap in use right after a full
 * GC, sampled as the run goes, against the objects read so far. What survives a full GC is what something
 * still holds; in a run that reads each object once, growth per object is state the client keeps for
 * objects it will not read again.
 *
 * @param objects objects read at each sample, ascending, the first 0
 * @param heapBytes heap in use after a full GC at each sample
 * @param fitFrom the fit of {@link #bytesPerObject} uses the samples at this many objects and after: the
 *     first ones are the run's warm-up (classes loaded, pools and connections made)
 */
public record HeapCurve(long[] objects, long[] heapBytes, long fitFrom) {
  public HeapCurve {
    if (objects.length != heapBytes.length) {
      throw new IllegalArgumentException(objects.length + " object counts for " + heapBytes.length + " samples");
    }
    objects = objects.clone();
    heapBytes = heapBytes.clone();
  }

  /**
   * Heap in use after a full GC: {@link System#gc()} twice (the second collects what the first only
   * finalised or queued), then the heap's used bytes.
   */
  static long heapAfterGc() {
    System.gc();
    System.gc();
    return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
  }

  /**
   * Heap growth per object read: the least-squares slope of heap after GC over objects read, from
   * {@link #fitFrom} on. NaN with fewer than two such samples.
   */
  double bytesPerObject() {
    double n = 0;
    double sx = 0;
    double sy = 0;
    double sxx = 0;
    double sxy = 0;
    for (int i = 0; i < objects.length; i++) {
      if (objects[i] < fitFrom) {
        continue;
      }
      double x = objects[i];
      double y = heapBytes[i];
      n++;
      sx += x;
      sy += y;
      sxx += x * x;
      sxy += x * y;
    }
    double d = n * sxx - sx * sx;
    return n < 2 || d == 0 ? Double.NaN : (n * sxy - sx * sy) / d;
  }

  /** The largest heap after GC of the samples. */
  long peakBytes() {
    return Arrays.stream(heapBytes).max().orElse(0);
  }

  /** Heap after GC at the last sample. */
  long lastHeapBytes() {
    return heapBytes.length == 0 ? 0 : heapBytes[heapBytes.length - 1];
  }

  /** Objects read at the last sample. */
  long lastObjects() {
    return objects.length == 0 ? 0 : objects[objects.length - 1];
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof HeapCurve c && Arrays.equals(objects, c.objects) && Arrays.equals(heapBytes, c.heapBytes)
        && fitFrom == c.fitFrom;
  }

  @Override
  public int hashCode() {
    return Arrays.hashCode(objects) * 31 + Arrays.hashCode(heapBytes) + Long.hashCode(fitFrom);
  }

  @Override
  public String toString() {
    return "HeapCurve[objects=" + Arrays.toString(objects) + ", heapBytes=" + Arrays.toString(heapBytes)
        + ", fitFrom=" + fitFrom + "]";
  }
}
