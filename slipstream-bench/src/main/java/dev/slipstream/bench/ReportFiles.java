/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/** Writes a run's {@code results.json}, {@code results.csv}, PNG charts and {@code report.md} into a directory. */
public final class ReportFiles {
  public static final String JSON = "results.json";
  public static final String CSV = "results.csv";
  public static final String MARKDOWN = "report.md";

  private ReportFiles() {}

  /** Writes every file into {@code dir} (created if needed); returns the paths written. */
  public static List<Path> write(Results results, Path dir) throws IOException {
    Files.createDirectories(dir);
    Files.writeString(dir.resolve(JSON), JsonReport.write(results), StandardCharsets.UTF_8);
    Files.writeString(dir.resolve(CSV), CsvReport.write(results), StandardCharsets.UTF_8);
    Map<String, String> charts = Charts.write(results, dir);
    Files.writeString(dir.resolve(MARKDOWN), MarkdownReport.write(results, charts), StandardCharsets.UTF_8);
    List<Path> written = new java.util.ArrayList<>(List.of(dir.resolve(JSON), dir.resolve(CSV)));
    charts.values().forEach(f -> written.add(dir.resolve(f)));
    written.add(dir.resolve(MARKDOWN));
    return written;
  }
}
