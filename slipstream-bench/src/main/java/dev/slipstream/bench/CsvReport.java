/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.bench;

/** {@code results.csv}: one line per workload and reader, the columns of {@code results.json}'s rows. */
final class CsvReport {
  static final String HEADER = "workload,reader,status,reason,runs,mbps,mbps_min,mbps_max,seconds,ratio_vs_s3a_classic,"
      + "link_fraction,cpu_s_per_gb,peak_heap_mb,peak_direct_mb,gets,heads,lists,bytes_fetched,bytes_used,"
      + "fetched_per_used,dollars_per_tb_used,verified,get_first_byte_p50_ms,get_first_byte_p99_ms,get_total_p50_ms,get_total_p99_ms,"
      + "heap_bytes_per_object,heap_after_gc_peak_mb";

  private CsvReport() {}

  static String write(Results r) {
    StringBuilder b = new StringBuilder(HEADER).append('\n');
    for (Result x : r.rows()) {
      b.append(String.join(",", x.workload(), x.reader(), x.status(), quote(x.reason()), Integer.toString(x.runs()),
          num(x.mbps()), num(x.mbpsMin()), num(x.mbpsMax()), num(x.seconds()), num(x.ratioVsS3aClassic()),
          num(x.linkFraction()), num(x.cpuSecondsPerGb()), num(x.peakHeapMb()), num(x.peakDirectMb()),
          Long.toString(x.gets()), Long.toString(x.heads()), Long.toString(x.lists()), Long.toString(x.bytesFetched()),
          Long.toString(x.bytesUsed()), num(x.fetchedPerUsed()), num(x.dollarsPerTbUsed()),
          Boolean.toString(x.verified()),
          num(x.latency().firstByteP50Ms()), num(x.latency().firstByteP99Ms()), num(x.latency().totalP50Ms()),
          num(x.latency().totalP99Ms()),
          x.heap() == null ? "" : num(x.heap().bytesPerObject()),
          x.heap() == null ? "" : num(x.heap().peakBytes() / 1048576.0))).append('\n');
    }
    return b.toString();
  }

  private static String num(double v) {
    String s = JsonReport.num(v);
    return "null".equals(s) ? "" : s;
  }

  private static String quote(String s) {
    if (s == null) {
      return "";
    }
    return "\"" + s.replace("\"", "\"\"").replace('\n', ' ') + "\"";
  }
}
