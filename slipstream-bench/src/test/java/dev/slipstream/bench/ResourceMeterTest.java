/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class ResourceMeterTest {
  private static final MemoryMXBean MEMORY = ManagementFactory.getMemoryMXBean();

  @Test
  void theFullGcBeforeARunLeavesTheHeapItsSize() {
    ResourceMeter meter = new ResourceMeter();
    assertThat(ResourceMeter.heapKeptAcrossGc()).isTrue();

    grow(192);
    long committed = MEMORY.getHeapMemoryUsage().getCommitted();
    ResourceMeter.Reading reading = meter.start().stop(); // start() collects the garbage just made

    assertThat(MEMORY.getHeapMemoryUsage().getCommitted()).isGreaterThanOrEqualTo(committed);
    assertThat(reading.peakHeapBytes()).isLessThan(committed);
  }

  @Test
  void readerThreadCpuCountsTheReadersThreadsAndLeavesTheShapersOut() throws Exception {
    ResourceMeter meter = new ResourceMeter();
    ResourceMeter.Window window = meter.start(true);
    long reader = spin("slipstream-fetch-test", 200);
    long shaper = spin("link-shaper-test", 200);
    ResourceMeter.Reading reading = window.stop();
    // The reader's thread ended before stop(): it is counted up to its last sample (every 10 ms).
    assertThat(reading.cpuNanos()).as("reader-thread CPU").isGreaterThanOrEqualTo(reader - 20_000_000L)
        .isLessThan(reader + shaper - 50_000_000L);
  }

  /** Runs a thread named {@code name} until it has used {@code millis} of CPU; returns the CPU it used. */
  private static long spin(String name, long millis) throws InterruptedException {
    java.lang.management.ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    long[] used = new long[1];
    Thread t = new Thread(() -> {
      long x = 0;
      while (threads.getCurrentThreadCpuTime() < millis * 1_000_000L) {
        x += System.nanoTime() % 7;
      }
      used[0] = threads.getCurrentThreadCpuTime() + (x & 0);
    }, name);
    t.start();
    t.join();
    return used[0];
  }

  /** Makes {@code mib} MiB of 4 MiB arrays live at once, then lets them go: the heap grows to hold them. */
  private static void grow(int mib) {
    List<byte[]> held = new ArrayList<>();
    for (int i = 0; i < mib / 4; i++) {
      byte[] b = new byte[4 << 20];
      b[b.length - 1] = 1;
      held.add(b);
    }
    assertThat(held).hasSize(mib / 4);
  }
}
