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
    long reader = spin("slipstream-fetch-test", 50);
    long shaper = spin("link-shaper-test", 50);
    ResourceMeter.Reading reading = window.stop();
    // Thread ids are never reused in a JVM: the reader's is counted, the shaper's is not.
    assertThat(window.countedThreads()).contains(reader).doesNotContain(shaper);
    assertThat(reading.cpuNanos()).as("reader-thread CPU").isPositive();
  }

  /** Runs a thread named {@code name} until it has used {@code millis} of CPU; returns its id. */
  private static long spin(String name, long millis) throws InterruptedException {
    java.lang.management.ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    Thread t = new Thread(() -> {
      long x = 0;
      while (threads.getCurrentThreadCpuTime() < millis * 1_000_000L) {
        x += System.nanoTime() % 7;
      }
      if (x == 42) {
        System.out.print(""); // keeps the loop from being optimised away
      }
    }, name);
    t.start();
    t.join();
    return t.getId();
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
