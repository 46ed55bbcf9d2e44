/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.sparkit;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The plugin's gauges as Spark's CSV sink wrote them for each executor of an application: one file a gauge
 * and executor, a row each period; this keeps each file's last row.
 */
final class ExecutorGauges {
  private static final Pattern FILE = Pattern.compile(
      ".*\\.(\\d+)\\.plugin\\.dev\\.slipstream\\.spark\\.SlipstreamPlugin\\.slipstream_([a-z0-9_]+)\\.csv");

  /** Executor id to gauge name (without {@code slipstream_}) to its last value. */
  final Map<String, Map<String, Double>> byExecutor = new TreeMap<>();

  /** The CSV sink's settings for executors, writing to {@code dir} every second. */
  static Map<String, String> sinkTo(Path dir) {
    return Map.of("spark.metrics.conf.executor.sink.csv.class", "org.apache.spark.metrics.sink.CsvSink",
        "spark.metrics.conf.executor.sink.csv.period", "1",
        "spark.metrics.conf.executor.sink.csv.unit", "seconds",
        "spark.metrics.conf.executor.sink.csv.directory", dir.toAbsolutePath().toString());
  }

  /** The last rows of the files in {@code dir}. */
  static ExecutorGauges read(Path dir) throws IOException {
    ExecutorGauges g = new ExecutorGauges();
    try (Stream<Path> files = Files.list(dir)) {
      for (Path f : files.toList()) {
        Matcher m = FILE.matcher(f.getFileName().toString());
        if (!m.matches()) {
          continue;
        }
        List<String> rows = Files.readAllLines(f);
        String last = rows.isEmpty() ? "t," : rows.get(rows.size() - 1);
        if (last.startsWith("t,")) {
          continue; // the header only, so far
        }
        double value = Double.parseDouble(last.substring(last.indexOf(',') + 1).trim());
        g.byExecutor.computeIfAbsent(m.group(1), id -> new TreeMap<>()).put(m.group(2), value);
      }
    }
    return g;
  }

  /** {@code name} of executor {@code id}, 0 if it wrote none. */
  long get(String id, String name) {
    return Math.round(byExecutor.getOrDefault(id, Map.of()).getOrDefault(name, 0.0));
  }

  /** {@code name} summed over the executors. */
  long sum(String name) {
    return byExecutor.keySet().stream().mapToLong(id -> get(id, name)).sum();
  }

  /**
   * Reads {@code dir} until every one of {@code executors} executors wrote {@code name} and two reads a
   * sink period apart agree (the counters have settled), or {@code timeoutMillis} passed.
   */
  static ExecutorGauges settled(Path dir, int executors, String name, long timeoutMillis)
      throws IOException, InterruptedException {
    long deadline = System.nanoTime() + timeoutMillis * 1_000_000;
    ExecutorGauges last = read(dir);
    while (System.nanoTime() < deadline) {
      Thread.sleep(1_500);
      ExecutorGauges now = read(dir);
      if (now.byExecutor.size() >= executors && now.byExecutor.equals(last.byExecutor)
          && now.byExecutor.values().stream().allMatch(v -> v.containsKey(name))) {
        return now;
      }
      last = now;
    }
    return last;
  }

  @Override
  public String toString() {
    return byExecutor.toString();
  }
}
