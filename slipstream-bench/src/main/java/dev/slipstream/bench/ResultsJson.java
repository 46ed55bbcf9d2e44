/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Reads a {@code results.json} that {@link JsonReport} wrote, of this or an earlier version, back into
 * {@link Results}. A field an older file lacks gets a neutral value (NaN, 0, empty; a size, the default
 * size, as it belongs to a workload that version did not run) and is named in {@link Loaded#missing()}, so
 * that a report built from it can say what it did not know.
 */
public final class ResultsJson {
  private ResultsJson() {}

  /**
   * A results.json read back.
   *
   * @param results what it holds
   * @param file where it was read from
   * @param missing the fields it lacks, as {@code name} or {@code rows[].name}, in file order
   */
  public record Loaded(Results results, Path file, List<String> missing) {
    public Loaded {
      missing = List.copyOf(missing);
    }
  }

  /** Reads {@code path}: a results.json, or a directory ({@code --out} of a run) holding one. */
  public static Loaded read(Path path) throws IOException {
    Path file = Files.isDirectory(path) ? path.resolve(ReportFiles.JSON) : path;
    if (!Files.isRegularFile(file)) {
      throw new java.nio.file.NoSuchFileException(file.toString(), null, "no results.json there");
    }
    Object parsed;
    try {
      parsed = Json.parse(Files.readString(file, StandardCharsets.UTF_8));
    } catch (IllegalArgumentException e) {
      throw new IOException(file + ": " + e.getMessage(), e);
    }
    if (!(parsed instanceof Map<?, ?> top) || !(top.get("rows") instanceof List<?>)) {
      throw new IOException(file + ": not a benchmark's results.json (no \"rows\")");
    }
    Fields f = new Fields(cast(top), "", new LinkedHashSet<>());
    // A size an older file lacks belongs to a workload that version did not have: the default stands in.
    Fields s = f.object("sizes");
    BenchSizes d = BenchSizes.defaults();
    BenchSizes sizes = new BenchSizes(s.integer("sequential_bytes", d.sequentialBytes()),
        s.integer("parquet_bytes", d.parquetBytes()), (int) s.integer("parquet_row_groups", d.parquetRowGroups()),
        (int) s.integer("random_reads", d.randomReads()), (int) s.integer("random_read_bytes", d.randomReadBytes()),
        (int) s.integer("small_files", d.smallFiles()), (int) s.integer("small_file_bytes", d.smallFileBytes()),
        (int) s.integer("link_range_bytes", d.linkRangeBytes()),
        (int) s.integer("listing_directories", d.listingDirectories()),
        (int) s.integer("listing_flat_keys", d.listingFlatKeys()),
        (int) s.integer("many_objects", d.manyObjects()));
    List<Result> rows = new ArrayList<>();
    for (Object o : (List<?>) top.get("rows")) {
      if (!(o instanceof Map<?, ?> m)) {
        throw new IOException(file + ": a row is not an object");
      }
      Fields x = new Fields(cast(m), "rows[].", f.missing);
      int runs = (int) x.integer("runs");
      double mbps = x.number("mbps");
      String status = x.text("status");
      if (status.isEmpty()) {
        status = Double.isNaN(mbps) ? Result.FAILED : Result.OK;
      }
      rows.add(new Result(x.text("workload"), x.text("reader"), status, x.textOrNull("reason"),
          runs == 0 && !Double.isNaN(mbps) ? 1 : runs, mbps, x.number("mbps_min"), x.number("mbps_max"),
          x.number("seconds"), x.number("ratio_vs_s3a_classic"), x.number("link_fraction"), x.number("cpu_s_per_gb"),
          x.number("peak_heap_mb"), x.number("peak_direct_mb"), x.integer("gets"), x.integer("heads"),
          x.integer("lists"), x.integer("bytes_fetched"), x.integer("bytes_used"), x.bool("verified"),
          new Result.GetLatency(x.number("get_first_byte_p50_ms"), x.number("get_first_byte_p99_ms"),
              x.number("get_total_p50_ms"), x.number("get_total_p99_ms")), heap(m.get("heap_after_gc"))));
    }
    String date = f.text("date");
    Instant started = date.isEmpty() ? Instant.EPOCH : Instant.parse(date);
    double seconds = f.number("duration_seconds");
    Map<String, String> readers = f.strings("readers");
    Map<String, String> workloads = f.strings("workloads");
    for (Result x : rows) { // names only the rows know: described as not recorded
      readers.putIfAbsent(x.reader(), "(not described in this results.json)");
      workloads.putIfAbsent(x.workload(), "(not described in this results.json)");
    }
    Results r = new Results(f.text("profile"), f.text("profile_description"), f.number("link_capacity_mbps"),
        started, Duration.ofMillis(Double.isNaN(seconds) ? 0 : Math.round(seconds * 1000)), f.text("machine"),
        f.text("command"), sizes, (int) f.integer("warmups"), (int) f.integer("runs"), readers, workloads, rows,
        f.strings("versions"));
    return new Loaded(r, file, new ArrayList<>(f.missing));
  }

  /** A row's {@code heap_after_gc}, which only workloads that sample the heap have; null without it. */
  private static HeapCurve heap(Object o) throws IOException {
    if (!(o instanceof Map<?, ?> h)) {
      return null;
    }
    if (!(h.get("objects") instanceof List<?> objects) || !(h.get("bytes") instanceof List<?> bytes)
        || objects.size() != bytes.size() || !(h.get("fit_from_objects") instanceof Double fitFrom)) {
      throw new IOException("heap_after_gc of a row lacks objects, bytes of the same length, or fit_from_objects");
    }
    return new HeapCurve(longs(objects), longs(bytes), Math.round(fitFrom));
  }

  private static long[] longs(List<?> values) throws IOException {
    long[] out = new long[values.size()];
    for (int i = 0; i < out.length; i++) {
      if (!(values.get(i) instanceof Double d)) {
        throw new IOException("heap_after_gc holds a value that is not a number: " + values.get(i));
      }
      out[i] = Math.round(d);
    }
    return out;
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> cast(Map<?, ?> m) {
    return (Map<String, Object>) m;
  }

  /** Typed access to one object's fields, recording the names of those absent. */
  private record Fields(Map<String, Object> m, String prefix, Set<String> missing) {
    private Object get(String name) {
      if (!m.containsKey(name)) {
        missing.add(prefix + name);
        return null;
      }
      return m.get(name);
    }

    double number(String name) {
      return get(name) instanceof Double d ? d : Double.NaN;
    }

    long integer(String name) {
      return integer(name, 0);
    }

    long integer(String name, long otherwise) {
      return get(name) instanceof Double d ? Math.round(d) : otherwise;
    }

    boolean bool(String name) {
      return Boolean.TRUE.equals(get(name));
    }

    String text(String name) {
      return get(name) instanceof String t ? t : "";
    }

    String textOrNull(String name) {
      return get(name) instanceof String t ? t : null;
    }

    Fields object(String name) {
      Object o = get(name);
      return new Fields(o instanceof Map<?, ?> inner ? cast(inner) : Map.of(), prefix + name + ".", missing);
    }

    Map<String, String> strings(String name) {
      Map<String, String> out = new LinkedHashMap<>();
      if (get(name) instanceof Map<?, ?> inner) {
        inner.forEach((k, v) -> out.put(String.valueOf(k), v == null ? "" : String.valueOf(v)));
      }
      return out;
    }
  }
}
