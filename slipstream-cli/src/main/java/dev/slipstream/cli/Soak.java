/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.cli;

import dev.slipstream.Slipstream;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * {@code slipstream load --soak}: samples of heap in use after a GC, live threads, open file descriptors
 * (Linux) and bytes of the memory pool in use. A measure that keeps growing is one whose largest value in
 * the second half of the samples exceeds its largest in the first half by more than its slack (heap 64 MiB,
 * threads 16, open files 64); the pool is bounded by design and is checked to be empty once every stream
 * is closed.
 */
final class Soak {
  private final Slipstream client;
  private final List<long[]> samples = new ArrayList<>();
  private final long t0 = System.nanoTime();

  Soak(Slipstream client) {
    this.client = client;
  }

  void sample() {
    System.gc();
    java.lang.management.MemoryMXBean mem = java.lang.management.ManagementFactory.getMemoryMXBean();
    long heap = mem.getHeapMemoryUsage().getUsed();
    long threads = Thread.activeCount();
    long files = openFiles();
    samples.add(new long[] {(System.nanoTime() - t0) / 1_000_000_000L, heap >> 20, threads, files,
        client.memoryInUse() >> 20});
  }

  private static long openFiles() {
    java.io.File fd = new java.io.File("/proc/self/fd");
    String[] names = fd.list();
    return names == null ? -1 : names.length;
  }

  /** Prints the samples; returns what kept growing, or null. */
  String report(PrintStream out) {
    out.println();
    out.printf("%-8s %10s %8s %11s %9s%n", "soak s", "heap MiB", "threads", "open files", "pool MiB");
    for (long[] s : samples) {
      out.printf(Locale.ROOT, "%-8d %10d %8d %11s %9d%n", s[0], s[1], s[2], s[3] < 0 ? "-" : Long.toString(s[3]),
          s[4]);
    }
    Slipstream.awaitDiskCacheWrites(Duration.ofSeconds(10)); // blocks queued for the disk cache hold memory
    long leftInPool = client.memoryInUse();
    if (leftInPool != 0) {
      return leftInPool + " bytes of the memory pool still in use with every stream closed";
    }
    if (samples.size() < 4) {
      out.println("Soak: too few samples to judge growth (" + samples.size() + "; at least 4): raise --duration"
          + " or lower --sample-interval. Pool empty at the end.");
      return null;
    }
    String[] names = {null, "heap", "threads", "open files"};
    long[] slack = {0, 64, 16, 64};
    int half = samples.size() / 2;
    for (int m = 1; m <= 3; m++) {
      long first = 0;
      long second = 0;
      for (int i = 0; i < samples.size(); i++) {
        long v = samples.get(i)[m];
        if (i < half) {
          first = Math.max(first, v);
        } else {
          second = Math.max(second, v);
        }
      }
      if (first >= 0 && second > first + slack[m]) {
        return names[m] + " kept growing: at most " + first + " in the first half of the samples, " + second
            + " in the second";
      }
    }
    out.println("Soak: no growth in heap, threads or open files over " + samples.size()
        + " samples; memory pool empty once every stream closed.");
    return null;
  }
}
