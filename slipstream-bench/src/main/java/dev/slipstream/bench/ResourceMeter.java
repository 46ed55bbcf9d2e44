/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.bench;

import com.sun.management.HotSpotDiagnosticMXBean;
import java.lang.management.BufferPoolMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.lang.management.ThreadInfo;
import java.util.HashMap;
import java.util.Map;

/**
 * CPU time and memory of one measured run.
 *
 * <ul>
 *   <li>CPU: the benchmark JVM's process CPU time (the reader, the workload's own work such as writing the
 *       temp file or decoding Parquet, and the JVM's GC and JIT threads), less the CPU of the link shaper's
 *       threads ({@code link-shaper-*}, which run in this JVM). The S3 server runs in a child process, so
 *       none of its CPU is counted. A shaper thread that ends during the run takes its CPU time with it
 *       (it is then not subtracted); the shaper keeps its threads for a minute after use, so this is rare.
 *   <li>Heap: a thread samples the heap in use every 10 ms after a full GC before the run; the peak counts
 *       live objects and garbage not yet collected alike, so it is an upper bound of what the reader
 *       needed. Direct (off-heap) buffer memory is sampled the same way.
 * </ul>
 *
 * <p>That full GC must not shrink the heap. After one, G1 gives memory back to the OS down to {@code
 * MaxHeapFreeRatio} (70% free), and the run that follows pays for growing the heap again: fresh pages
 * and, for arrays of a G1 region or more (Slipstream's 8 MiB blocks, S3A prefetch's buffers), a marking
 * cycle each time the grown heap crosses G1's threshold. A JVM that reads for a living keeps the heap it
 * grew, so the meter sets the manageable {@code MaxHeapFreeRatio} to 100 for the benchmark's JVM: the
 * heap keeps its size, the memory in use is measured as before.
 */
final class ResourceMeter {
  private static final String SHAPER_THREADS = "link-shaper-";
  private static final String SAMPLER = "bench-memory-sampler";

  /** What one run used. */
  record Reading(long cpuNanos, long peakHeapBytes, long peakDirectBytes) {}

  private final com.sun.management.ThreadMXBean threads =
      (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
  private final com.sun.management.OperatingSystemMXBean os =
      (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
  private final MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
  private final BufferPoolMXBean direct = ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class).stream()
      .filter(p -> p.getName().equals("direct")).findFirst().orElse(null);

  /** A run being measured. */
  final class Window {
    private final long processCpu;
    private final Map<Long, Long> shaperCpu;
    /** Reader-thread mode: each counted thread's CPU at the start, and at its latest sample; else null. */
    private final Map<Long, Long> threadCpuAtStart;
    private final Map<Long, Long> threadCpuLatest = new java.util.concurrent.ConcurrentHashMap<>();
    private final Thread sampler;
    private volatile boolean stop;
    private volatile long peakHeap;
    private volatile long peakDirect;

    private Window(boolean readerThreads) {
      this.shaperCpu = shaperCpu();
      this.threadCpuAtStart = readerThreads ? readerThreadCpu() : null;
      this.processCpu = os.getProcessCpuTime();
      sample();
      this.sampler = new Thread(this::sampleLoop, SAMPLER);
      sampler.setDaemon(true);
      sampler.start();
    }

    private void sampleLoop() {
      while (!stop) {
        sample();
        try {
          Thread.sleep(10);
        } catch (InterruptedException e) {
          return;
        }
      }
    }

    /** Reader-thread mode: the ids of the threads whose CPU this window counts (empty otherwise). */
    java.util.Set<Long> countedThreads() {
      return java.util.Set.copyOf(threadCpuLatest.keySet());
    }

    private void sample() {
      if (threadCpuAtStart != null) {
        threadCpuLatest.putAll(readerThreadCpu());
      }
      peakHeap = Math.max(peakHeap, memory.getHeapMemoryUsage().getUsed());
      if (direct != null) {
        peakDirect = Math.max(peakDirect, direct.getMemoryUsed());
      }
    }

    Reading stop() {
      long cpu = os.getProcessCpuTime() - processCpu;
      Map<Long, Long> after = shaperCpu();
      long shaper = 0;
      for (Map.Entry<Long, Long> e : after.entrySet()) {
        shaper += e.getValue() - shaperCpu.getOrDefault(e.getKey(), 0L);
      }
      stop = true;
      sampler.interrupt();
      try {
        sampler.join(1000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      sample();
      if (threadCpuAtStart != null) {
        long readers = 0;
        for (Map.Entry<Long, Long> e : threadCpuLatest.entrySet()) {
          readers += Math.max(0, e.getValue() - threadCpuAtStart.getOrDefault(e.getKey(), 0L));
        }
        return new Reading(readers, peakHeap, peakDirect);
      }
      return new Reading(Math.max(0, cpu - shaper), peakHeap, peakDirect);
    }
  }

  ResourceMeter() {
    if (threads.isThreadCpuTimeSupported() && !threads.isThreadCpuTimeEnabled()) {
      threads.setThreadCpuTimeEnabled(true);
    }
    keepHeapSizeAcrossGc();
  }

  /** Whether the full GC before a run keeps the heap's size (see the class comment). */
  static boolean heapKeptAcrossGc() {
    HotSpotDiagnosticMXBean hotspot = ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class);
    return hotspot != null && "100".equals(hotspot.getVMOption("MaxHeapFreeRatio").getValue());
  }

  private static void keepHeapSizeAcrossGc() {
    HotSpotDiagnosticMXBean hotspot = ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class);
    if (hotspot == null) {
      System.err.println("note: not a HotSpot JVM; the full GC before each run may shrink the heap");
      return;
    }
    try {
      hotspot.setVMOption("MaxHeapFreeRatio", "100");
    } catch (IllegalArgumentException e) {
      System.err.println("note: MaxHeapFreeRatio cannot be set (" + e.getMessage()
          + "); the full GC before each run may shrink the heap");
    }
  }

  /** Collects garbage, then starts measuring the process's CPU less the shaper's. */
  Window start() {
    return start(false);
  }

  /**
   * Collects garbage, then starts measuring; {@code readerThreads}: the CPU of the JVM's Java threads
   * but the shaper's and the sampler's (no GC or JIT threads), instead of the process's less the shaper's.
   */
  Window start(boolean readerThreads) {
    System.gc();
    return new Window(readerThreads);
  }

  /** CPU time of every live Java thread but the shaper's and the sampler's, by thread id. */
  private Map<Long, Long> readerThreadCpu() {
    long[] ids = threads.getAllThreadIds();
    long[] cpu = threads.getThreadCpuTime(ids);
    Map<Long, Long> out = new HashMap<>();
    ThreadInfo[] infos = threads.getThreadInfo(ids);
    for (int i = 0; i < ids.length; i++) {
      ThreadInfo t = infos[i];
      if (t != null && cpu[i] > 0 && !t.getThreadName().startsWith(SHAPER_THREADS)
          && !t.getThreadName().equals(SAMPLER)) {
        out.put(ids[i], cpu[i]);
      }
    }
    return out;
  }

  private Map<Long, Long> shaperCpu() {
    Map<Long, Long> cpu = new HashMap<>();
    for (ThreadInfo t : threads.getThreadInfo(threads.getAllThreadIds())) {
      if (t != null && t.getThreadName().startsWith(SHAPER_THREADS)) {
        long ns = threads.getThreadCpuTime(t.getThreadId());
        if (ns > 0) {
          cpu.put(t.getThreadId(), ns);
        }
      }
    }
    return cpu;
  }
}
