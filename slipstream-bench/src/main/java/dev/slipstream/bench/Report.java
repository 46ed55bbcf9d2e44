/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.bench;

import dev.slipstream.testkit.LinkProfile;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** Formatting shared by the progress lines and the reports, and the table printed on stdout. */
public final class Report {
  private Report() {}

  /** The results as a text table, one block per workload. */
  public static String table(Results r) {
    StringBuilder b = new StringBuilder();
    b.append(String.format(Locale.ROOT, "Profile %s (%s); link capacity %.1f MB/s; %d warm-up + %d measured runs"
        + " per reader and workload; medians (min-max).%n", r.profile(), r.profileDescription(),
        r.linkCapacityMbps(), r.warmups(), r.runs()));
    String header = String.format(Locale.ROOT, "%-18s %-16s %8s %17s %8s %6s %8s %8s %6s %5s %5s %8s  %s",
        "workload", "reader", "MB/s", "(min-max)", "x classic", "link", "CPU s/GB", "heap MB", "GET", "HEAD", "LIST",
        "fetched/", "status");
    b.append(header).append(System.lineSeparator());
    b.append(String.format(Locale.ROOT, "%-18s %-16s %8s %17s %8s %6s %8s %8s %6s %5s %5s %8s%n",
        "", "", "", "", "", "", "", "", "", "", "", "used"));
    String last = null;
    for (Result x : r.rows()) {
      if (last != null && !last.equals(x.workload())) {
        b.append(System.lineSeparator());
      }
      last = x.workload();
      if (x.runs() == 0) {
        b.append(String.format(Locale.ROOT, "%-18s %-16s %s: %s%n", x.workload(), x.reader(), x.status(), x.reason()));
        continue;
      }
      b.append(String.format(Locale.ROOT, "%-18s %-16s %8s %17s %8s %6s %8s %8s %6d %5d %5d %8s  %s%n",
          x.workload(), x.reader(), num(x.mbps(), 1), "(" + num(x.mbpsMin(), 1) + "-" + num(x.mbpsMax(), 1) + ")",
          num(x.ratioVsS3aClassic(), 2), percent(x.linkFraction()), num(x.cpuSecondsPerGb(), 2),
          num(x.peakHeapMb(), 0), x.gets(), x.heads(), x.lists(), num(x.fetchedPerUsed(), 2),
          x.ok() ? "ok, bytes verified" : x.status() + ": " + x.reason()));
    }
    for (Result x : r.rows()) {
      if (x.heap() != null) {
        HeapCurve h = x.heap();
        b.append(String.format(Locale.ROOT, "%s, %s: heap after GC %s MiB at %,d objects (peak %s MiB), growth %s"
            + " (fitted from %,d objects)%n", x.workload(), x.reader(),
            num(h.lastHeapBytes() / 1048576.0, 1), h.lastObjects(),
            num(h.peakBytes() / 1048576.0, 1), HeapChart.perObject(h.bytesPerObject()), h.fitFrom()));
      }
    }
    return b.toString();
  }

  static String progressLine(String label, Measurement m) {
    String head = String.format(Locale.ROOT, "%-12s %-16s", label, m.reader());
    if (m.error() != null) {
      return head + " FAILED: " + m.error();
    }
    String line = String.format(Locale.ROOT, "%s %8.2f s %9.1f MB/s  GET %d HEAD %d LIST %d  CPU %.2f s  heap %d MB",
        head, m.seconds(), m.megabytesPerSecond(), m.requests().gets(), m.requests().heads(), m.requests().lists(),
        m.resources().cpuNanos() / 1e9, m.resources().peakHeapBytes() >> 20);
    return m.mismatch() == null ? line + "  bytes ok" : line + "  WRONG BYTES: " + m.mismatch();
  }

  static String num(double v, int decimals) {
    if (Double.isNaN(v) || Double.isInfinite(v)) {
      return "n/a";
    }
    return String.format(Locale.ROOT, "%." + decimals + "f", v);
  }

  static String percent(double fraction) {
    return Double.isNaN(fraction) ? "n/a" : String.format(Locale.ROOT, "%.0f%%", fraction * 100);
  }

  /** 134217728 as "128 MiB". */
  static String binary(long bytes) {
    String[] units = {"B", "KiB", "MiB", "GiB", "TiB"};
    double v = bytes;
    int u = 0;
    while (v >= 1024 && u < units.length - 1) {
      v /= 1024;
      u++;
    }
    return (v == Math.rint(v) ? Long.toString((long) v) : String.format(Locale.ROOT, "%.1f", v)) + " " + units[u];
  }

  /** One line: the exception's type and message, and its causes'. */
  static String reason(Throwable e) {
    List<String> parts = new ArrayList<>();
    for (Throwable t = e; t != null && parts.size() < 4; t = t.getCause()) {
      String msg = t.getMessage();
      String part = t.getClass().getSimpleName() + (msg == null ? "" : ": " + msg);
      if (parts.isEmpty() || !parts.get(parts.size() - 1).contains(part)) {
        parts.add(part);
      }
      if (t.getCause() == t) {
        break;
      }
    }
    return String.join(" <- ", parts).replaceAll("\\s+", " ");
  }

  /** The link profile in words. */
  static String describe(LinkProfile p) {
    List<String> parts = new ArrayList<>();
    parts.add(p.latencyMedianMillis() > 0
        ? "first-byte latency ~" + p.latencyMedianMillis() + " ms median, tail to " + p.latencyMaxMillis() + " ms"
        : "no added latency");
    if (p.tailProbability() > 0) {
      parts.add(num(p.tailProbability() * 100, 1) + "% of requests wait " + p.tailMinMillis() + "-" + p.tailMaxMillis()
          + " ms for their first byte");
    }
    parts.add(p.perConnectionBytesPerSecond() > 0
        ? num(p.perConnectionBytesPerSecond() / 1e6, 0) + " MB/s per connection" : "no per-connection limit");
    parts.add(p.aggregateBytesPerSecond() > 0
        ? num(p.aggregateBytesPerSecond() / 1e6, 0) + " MB/s in all" : "no overall limit");
    parts.add(p.faultProbability() > 0 ? num(p.faultProbability() * 100, 1) + "% of requests fail" : "no faults");
    return String.join(", ", parts);
  }

  /** The machine and JVM in one line. */
  static String machine() {
    var os = (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
    return String.format(Locale.ROOT, "%d cores%s, %.0f GiB RAM, %s %s (%s), Java %s (%s), max heap %d MiB",
        Runtime.getRuntime().availableProcessors(), cpuModel(), os.getTotalMemorySize() / (double) (1L << 30),
        System.getProperty("os.name"), System.getProperty("os.version"), System.getProperty("os.arch"),
        System.getProperty("java.version"), System.getProperty("java.vm.name"), Runtime.getRuntime().maxMemory() >> 20);
  }

  private static String cpuModel() {
    try {
      for (String line : Files.readAllLines(Path.of("/proc/cpuinfo"))) {
        if (line.startsWith("model name")) {
          return " (" + line.substring(line.indexOf(':') + 1).trim().replaceAll("\\s+", " ") + ")";
        }
      }
    } catch (IOException | RuntimeException e) {
      // not Linux: no model
    }
    return "";
  }
}
