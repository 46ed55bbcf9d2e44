/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Writes a run's {@code results.json}, {@code results.csv}, PNG charts, {@code report.md} and the
 * self-contained {@code report.html} into a directory; with a baseline, the Markdown and HTML reports
 * compare the run with it.
 */
public final class ReportFiles {
  public static final String JSON = "results.json";
  public static final String CSV = "results.csv";
  public static final String MARKDOWN = "report.md";
  public static final String HTML = "report.html";

  private ReportFiles() {}

  /** Writes every file into {@code dir} (created if needed); returns the paths written. */
  public static List<Path> write(Results results, Path dir) throws IOException {
    return write(results, null, dir);
  }

  /**
   * Writes every file into {@code dir} (created if needed), comparing with {@code baseline} when it is not
   * null; returns the paths written.
   */
  public static List<Path> write(Results results, Comparison baseline, Path dir) throws IOException {
    Files.createDirectories(dir);
    List<Path> written = new ArrayList<>();
    written.add(Files.writeString(dir.resolve(JSON), JsonReport.write(results), StandardCharsets.UTF_8));
    written.add(Files.writeString(dir.resolve(CSV), CsvReport.write(results), StandardCharsets.UTF_8));
    List<Charts.Chart> charts = Charts.draw(results, baseline);
    Map<String, String> byTitle = new LinkedHashMap<>();
    for (Charts.Chart c : charts) {
      written.add(Files.write(dir.resolve(c.file()), c.png()));
      byTitle.put(c.title(), c.file());
    }
    written.add(Files.writeString(dir.resolve(MARKDOWN), MarkdownReport.write(results, byTitle, baseline),
        StandardCharsets.UTF_8));
    written.add(Files.writeString(dir.resolve(HTML), HtmlReport.write(results, charts, baseline),
        StandardCharsets.UTF_8));
    return written;
  }
}
