/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.bench;

import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Map;

/**
 * {@code report.md}: the run's context, one table per workload, the charts, and what failed and why; with
 * a baseline, which one and a column of the change against it (see {@link Comparison}).
 */
final class MarkdownReport {
  private MarkdownReport() {}

  static String write(Results r, Map<String, String> charts, Comparison baseline) {
    StringBuilder b = new StringBuilder("# Slipstream benchmark\n\n");
    b.append("- **Date:** ").append(DateTimeFormatter.ISO_LOCAL_DATE_TIME.format(
        r.started().atOffset(ZoneOffset.UTC).withNano(0))).append(" UTC; the run took ")
        .append(Report.num(r.duration().toMillis() / 60000.0, 1)).append(" minutes\n");
    b.append("- **Machine:** ").append(r.machine()).append('\n');
    b.append("- **Command:** `").append(r.command()).append("`\n");
    b.append("- **Link:** profile `").append(r.profile()).append("` (").append(r.profileDescription())
        .append("); measured capacity ").append(Report.num(r.linkCapacityMbps(), 1))
        .append(" MB/s (16 parallel ranged GETs, raw AWS SDK, null sink)\n");
    b.append("- **Runs:** ").append(r.warmups()).append(" warm-up and ").append(r.runs())
        .append(" measured runs per reader and workload, readers alternating within each round; medians"
            + " (min-max). 1 MB = 10^6 bytes; heap in MiB.\n");
    b.append("- **CPU:** the benchmark JVM's CPU time (reader, the workload's own work, GC and JIT) less the link"
        + " shaper's threads, per GB used; the S3 server (s3proxy) runs in a separate process and is not counted.\n");
    b.append("- **Bytes:** every run's data is checked against the source (CRC32C of every byte, or checksums of"
        + " every decoded Parquet value).\n");
    if (baseline != null) {
      Results base = baseline.baseline();
      b.append("- **Baseline:** `").append(baseline.source()).append("` (").append(base.started()).append(", profile `")
          .append(base.profile()).append("`, link capacity ").append(Report.num(base.linkCapacityMbps(), 1))
          .append(" MB/s). A change is real only when the runs' min-max ranges do not overlap; else noise.");
      if (!baseline.differences().isEmpty()) {
        b.append(" Its conditions differ: ").append(String.join("; ", baseline.differences())).append('.');
      }
      if (!baseline.missing().isEmpty()) {
        b.append(" Its results.json lacks ").append(String.join(", ", baseline.missing())).append('.');
      }
      b.append('\n');
    }
    b.append('\n');

    b.append("## Readers\n\n");
    r.readers().forEach((name, d) -> b.append("- `").append(name).append("`: ").append(d).append('\n'));
    b.append("\n## Workloads\n\n");
    r.workloads().forEach((name, d) -> b.append("- `").append(name).append("`: ").append(d).append('\n'));

    for (String w : r.workloads().keySet()) {
      b.append("\n## ").append(w).append("\n\n");
      b.append("| reader | MB/s (min-max) | x S3A classic | link | CPU s/GB | peak heap MiB | GET | HEAD | LIST"
          + " | fetched/used | $/TB | GET ms p50 / p99: first byte, whole |" + (baseline != null ? " vs baseline |" : "")
          + " bytes |\n");
      b.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|").append(baseline != null ? "---:|" : "")
          .append("---|\n");
      for (String reader : r.readers().keySet()) {
        Result x = r.row(w, reader);
        if (x == null) {
          continue;
        }
        if (x.runs() == 0) {
          b.append("| ").append(reader).append(" | ").append(x.status()).append(": ")
              .append(x.reason() == null ? "" : x.reason().replace("|", "\\|")).append(" |||||||||||")
              .append(baseline != null ? "|" : "").append('\n');
          continue;
        }
        b.append("| ").append(reader)
            .append(" | ").append(Report.num(x.mbps(), 1)).append(" (").append(Report.num(x.mbpsMin(), 1)).append('-')
            .append(Report.num(x.mbpsMax(), 1)).append(')')
            .append(" | ").append(Report.num(x.ratioVsS3aClassic(), 2))
            .append(" | ").append(Report.percent(x.linkFraction()))
            .append(" | ").append(Report.num(x.cpuSecondsPerGb(), 2))
            .append(" | ").append(Report.num(x.peakHeapMb(), 0))
            .append(" | ").append(x.gets()).append(" | ").append(x.heads()).append(" | ").append(x.lists())
            .append(" | ").append(Report.num(x.fetchedPerUsed(), 2))
            .append(" | ").append(Report.num(x.dollarsPerTbUsed(), 2))
            .append(" | ").append(latency(x.latency()))
            .append(baseline != null ? " | " + change(baseline.change(w, reader)) : "")
            .append(" | ").append(x.ok() ? "verified" : x.status() + ": " + x.reason().replace("|", "\\|"))
            .append(" |\n");
      }
      if (HeapChart.has(r, w)) {
        heapTable(b, r, w);
      }
    }
    if (!charts.isEmpty()) {
      b.append("\n## Charts\n\n");
      charts.forEach((title, file) -> b.append("![").append(title).append("](").append(file).append(")\n\n"));
    }
    return b.toString();
  }

  /** Heap after GC as the objects were read, by reader: first and last sample, peak, growth per object. */
  private static void heapTable(StringBuilder b, Results r, String w) {
    b.append("\nHeap in use after a full GC as the objects were read (MiB):\n\n")
        .append("| reader | objects | heap after GC, first → last | peak after GC | growth per object | fitted from |\n")
        .append("|---|---:|---:|---:|---:|---:|\n");
    for (String reader : r.readers().keySet()) {
      Result x = r.row(w, reader);
      if (x == null || x.heap() == null) {
        continue;
      }
      HeapCurve h = x.heap();
      long[] bytes = h.heapBytes();
      b.append("| ").append(reader).append(" | ").append(String.format(java.util.Locale.ROOT, "%,d", h.lastObjects()))
          .append(" | ").append(bytes.length == 0 ? "n/a" : Report.num(bytes[0] / 1048576.0, 1) + " → "
              + Report.num(bytes[bytes.length - 1] / 1048576.0, 1))
          .append(" | ").append(Report.num(h.peakBytes() / 1048576.0, 1))
          .append(" | ").append(HeapChart.perObject(h.bytesPerObject()))
          .append(" | ").append(String.format(java.util.Locale.ROOT, "%,d objects", h.fitFrom())).append(" |\n");
    }
  }

  /** "21 / 45, 180 / 330": p50 / p99 of the first byte, then of the whole GET, in ms; "-" without GETs. */
  static String latency(Result.GetLatency l) {
    if (!l.isKnown()) {
      return "-";
    }
    return Report.num(l.firstByteP50Ms(), 0) + " / " + Report.num(l.firstByteP99Ms(), 0) + ", "
        + Report.num(l.totalP50Ms(), 0) + " / " + Report.num(l.totalP99Ms(), 0);
  }

  private static String change(Comparison.Change c) {
    if (c == null) {
      return "not in baseline";
    }
    return switch (c.verdict()) {
      case BETTER, WORSE -> "**" + c.label() + "** real";
      case WITHIN_SPREAD -> c.label() + " noise";
      case NO_SPREAD -> c.label() + " (one run)";
      case NOT_COMPARABLE -> c.label();
    };
  }
}
