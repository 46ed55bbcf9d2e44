/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.bench;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.ToDoubleFunction;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;
import org.knowm.xchart.style.Styler;

/**
 * PNG bar charts of the results, drawn with XChart without a display: one per workload (MB/s by
 * reader), and three that compare across workloads (ratio to S3A classic, CPU seconds per GB, fraction of
 * link capacity). A reader without a number (it failed or was unavailable) has no bar; the report says why.
 */
final class Charts {
  private static final int WIDTH = 900;
  private static final int HEIGHT = 480;

  private Charts() {}

  /** Writes the charts into {@code dir}; returns the file names, by title. */
  static Map<String, String> write(Results r, Path dir) throws IOException {
    System.setProperty("java.awt.headless", "true");
    Map<String, String> files = new LinkedHashMap<>();
    for (String workload : r.workloads().keySet()) {
      List<String> readers = new ArrayList<>();
      List<Double> mbps = new ArrayList<>();
      for (String reader : r.readers().keySet()) {
        Result x = r.row(workload, reader);
        if (x != null && x.runs() > 0) {
          readers.add(reader);
          mbps.add(Math.round(x.mbps() * 10) / 10.0);
        }
      }
      if (readers.isEmpty()) {
        continue;
      }
      CategoryChart chart = chart(workload + ": throughput, MB/s (median of " + r.runs() + " runs, profile "
          + r.profile() + ")", "reader", "MB/s");
      chart.getStyler().setLegendVisible(false);
      chart.addSeries("MB/s", readers, mbps);
      String name = "mbps-" + workload + ".png";
      save(chart, dir.resolve(name));
      files.put(workload + ": MB/s", name);
    }
    files.put("ratio to S3A classic", grouped(r, dir, "ratio-vs-s3a-classic.png",
        "Throughput relative to S3A classic (1.0 = S3A classic), profile " + r.profile(), "x S3A classic",
        Result::ratioVsS3aClassic));
    files.put("CPU seconds per GB", grouped(r, dir, "cpu-s-per-gb.png",
        "CPU seconds per GB read (benchmark JVM less the link shaper), profile " + r.profile(), "CPU s / GB",
        Result::cpuSecondsPerGb));
    files.put("fraction of link capacity", grouped(r, dir, "link-fraction.png",
        "Fraction of the link capacity (" + Report.num(r.linkCapacityMbps(), 0) + " MB/s), profile " + r.profile(),
        "fraction of link capacity", Result::linkFraction));
    return files;
  }

  private static String grouped(Results r, Path dir, String name, String title, String yTitle,
      ToDoubleFunction<Result> value) throws IOException {
    CategoryChart chart = chart(title, "workload", yTitle);
    chart.getStyler().setLabelsVisible(false);
    List<String> workloads = new ArrayList<>(r.workloads().keySet());
    for (String reader : r.readers().keySet()) {
      List<Double> values = new ArrayList<>();
      for (String w : workloads) {
        Result x = r.row(w, reader);
        double v = x == null || x.runs() == 0 ? Double.NaN : value.applyAsDouble(x);
        values.add(Double.isNaN(v) ? 0.0 : v);
      }
      chart.addSeries(reader, workloads, values);
    }
    save(chart, dir.resolve(name));
    return name;
  }

  private static CategoryChart chart(String title, String xTitle, String yTitle) {
    CategoryChart chart = new CategoryChartBuilder().width(WIDTH).height(HEIGHT).title(title)
        .xAxisTitle(xTitle).yAxisTitle(yTitle).build();
    org.knowm.xchart.style.CategoryStyler s = chart.getStyler();
    s.setLegendPosition(Styler.LegendPosition.OutsideS);
    s.setLegendLayout(Styler.LegendLayout.Horizontal);
    s.setLabelsVisible(true);
    s.setLabelsFontColorAutomaticEnabled(false);
    s.setChartBackgroundColor(java.awt.Color.WHITE);
    s.setDecimalPattern("#,##0.##");
    return chart;
  }

  private static void save(CategoryChart chart, Path file) throws IOException {
    BitmapEncoder.saveBitmap(chart, file.toString(), BitmapEncoder.BitmapFormat.PNG);
  }
}
