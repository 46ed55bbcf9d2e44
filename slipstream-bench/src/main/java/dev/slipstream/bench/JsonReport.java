/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.bench;

import java.util.Locale;
import java.util.Map;

/**
 * {@code results.json}: an object with the run's context ({@code profile}, {@code link_capacity_mbps},
 * date, machine, command, sizes, the versions of what was compared, readers, workloads) and {@code rows},
 * one object per workload and reader with the fields of {@link Result} in snake case, and {@code
 * heap_after_gc} where a workload sampled it. Numbers that could not be measured are null. {@link ResultsJson} reads it back.
 */
final class JsonReport {
  private JsonReport() {}

  static String write(Results r) {
    StringBuilder b = new StringBuilder("{\n");
    field(b, 1, "profile", str(r.profile()), true);
    field(b, 1, "profile_description", str(r.profileDescription()), true);
    field(b, 1, "link_capacity_mbps", num(r.linkCapacityMbps()), true);
    field(b, 1, "date", str(r.started().toString()), true);
    field(b, 1, "duration_seconds", num(r.duration().toMillis() / 1000.0), true);
    field(b, 1, "machine", str(r.machine()), true);
    field(b, 1, "command", str(r.command()), true);
    field(b, 1, "warmups", Integer.toString(r.warmups()), true);
    field(b, 1, "runs", Integer.toString(r.runs()), true);
    BenchSizes s = r.sizes();
    b.append("  \"sizes\": {\n");
    field(b, 2, "sequential_bytes", Long.toString(s.sequentialBytes()), true);
    field(b, 2, "parquet_bytes", Long.toString(s.parquetBytes()), true);
    field(b, 2, "parquet_row_groups", Integer.toString(s.parquetRowGroups()), true);
    field(b, 2, "random_reads", Integer.toString(s.randomReads()), true);
    field(b, 2, "random_read_bytes", Integer.toString(s.randomReadBytes()), true);
    field(b, 2, "small_files", Integer.toString(s.smallFiles()), true);
    field(b, 2, "small_file_bytes", Integer.toString(s.smallFileBytes()), true);
    field(b, 2, "link_range_bytes", Integer.toString(s.linkRangeBytes()), true);
    field(b, 2, "listing_directories", Integer.toString(s.listingDirectories()), true);
    field(b, 2, "listing_flat_keys", Integer.toString(s.listingFlatKeys()), true);
    field(b, 2, "many_objects", Integer.toString(s.manyObjects()), false);
    b.append("  },\n");
    if (!r.versions().isEmpty()) {
      map(b, "versions", r.versions());
    }
    map(b, "readers", r.readers());
    map(b, "workloads", r.workloads());
    b.append("  \"rows\": [");
    for (int i = 0; i < r.rows().size(); i++) {
      Result x = r.rows().get(i);
      b.append(i == 0 ? "\n" : ",\n").append("    {\n");
      field(b, 3, "workload", str(x.workload()), true);
      field(b, 3, "reader", str(x.reader()), true);
      field(b, 3, "status", str(x.status()), true);
      field(b, 3, "reason", x.reason() == null ? "null" : str(x.reason()), true);
      field(b, 3, "runs", Integer.toString(x.runs()), true);
      field(b, 3, "mbps", num(x.mbps()), true);
      field(b, 3, "mbps_min", num(x.mbpsMin()), true);
      field(b, 3, "mbps_max", num(x.mbpsMax()), true);
      field(b, 3, "seconds", num(x.seconds()), true);
      field(b, 3, "ratio_vs_s3a_classic", num(x.ratioVsS3aClassic()), true);
      field(b, 3, "link_fraction", num(x.linkFraction()), true);
      field(b, 3, "cpu_s_per_gb", num(x.cpuSecondsPerGb()), true);
      field(b, 3, "peak_heap_mb", num(x.peakHeapMb()), true);
      field(b, 3, "peak_direct_mb", num(x.peakDirectMb()), true);
      field(b, 3, "gets", Long.toString(x.gets()), true);
      field(b, 3, "heads", Long.toString(x.heads()), true);
      field(b, 3, "lists", Long.toString(x.lists()), true);
      field(b, 3, "bytes_fetched", Long.toString(x.bytesFetched()), true);
      field(b, 3, "bytes_used", Long.toString(x.bytesUsed()), true);
      field(b, 3, "fetched_per_used", num(x.fetchedPerUsed()), true);
      field(b, 3, "dollars_per_tb_used", num(x.dollarsPerTbUsed()), true);
      field(b, 3, "verified", Boolean.toString(x.verified()), true);
      field(b, 3, "get_first_byte_p50_ms", num(x.latency().firstByteP50Ms()), true);
      field(b, 3, "get_first_byte_p99_ms", num(x.latency().firstByteP99Ms()), true);
      field(b, 3, "get_total_p50_ms", num(x.latency().totalP50Ms()), true);
      field(b, 3, "get_total_p99_ms", num(x.latency().totalP99Ms()), x.heap() != null);
      if (x.heap() != null) {
        heap(b, x.heap());
      }
      b.append("    }");
    }
    return b.append("\n  ]\n}\n").toString();
  }

  /** {@code heap_after_gc}: the samples (objects read, heap bytes after GC) and the fit over them. */
  private static void heap(StringBuilder b, HeapCurve h) {
    b.append("      \"heap_after_gc\": {\n");
    field(b, 4, "objects", longs(h.objects()), true);
    field(b, 4, "bytes", longs(h.heapBytes()), true);
    field(b, 4, "fit_from_objects", Long.toString(h.fitFrom()), true);
    field(b, 4, "bytes_per_object", num(h.bytesPerObject()), true);
    field(b, 4, "peak_bytes", Long.toString(h.peakBytes()), false);
    b.append("      }\n");
  }

  private static String longs(long[] v) {
    StringBuilder b = new StringBuilder("[");
    for (int i = 0; i < v.length; i++) {
      b.append(i == 0 ? "" : ", ").append(v[i]);
    }
    return b.append(']').toString();
  }

  private static void map(StringBuilder b, String name, Map<String, String> m) {
    b.append("  ").append(str(name)).append(": {");
    int i = 0;
    for (Map.Entry<String, String> e : m.entrySet()) {
      b.append(i++ == 0 ? "\n" : ",\n").append("    ").append(str(e.getKey())).append(": ").append(str(e.getValue()));
    }
    b.append("\n  },\n");
  }

  private static void field(StringBuilder b, int depth, String name, String value, boolean comma) {
    b.append("  ".repeat(depth)).append(str(name)).append(": ").append(value).append(comma ? ",\n" : "\n");
  }

  static String num(double v) {
    if (Double.isNaN(v) || Double.isInfinite(v)) {
      return "null";
    }
    return String.format(Locale.ROOT, "%.6f", v).replaceAll("0+$", "").replaceAll("\\.$", ".0");
  }

  static String str(String s) {
    return JsonStrings.quote(s);
  }
}
