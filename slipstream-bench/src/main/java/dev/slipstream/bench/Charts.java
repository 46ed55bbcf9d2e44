/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.bench;

import java.awt.Color;
import java.awt.Font;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.text.DecimalFormat;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.jfree.chart.ChartUtils;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.block.BlockBorder;
import org.jfree.chart.plot.CategoryPlot;
import org.jfree.chart.title.LegendTitle;
import org.jfree.chart.title.TextTitle;
import org.jfree.chart.ui.RectangleEdge;
import org.jfree.chart.ui.RectangleInsets;

/**
 * The report's charts, drawn with JFreeChart without a display into PNG images at twice their size (sharp
 * on high-density screens): the speed-up against S3A classic across workloads, one chart per workload
 * (see {@link WorkloadChart}) and, where a workload sampled it, its heap after GC ({@link HeapChart}), CPU seconds per GB and the fraction of the link capacity across workloads,
 * and with a baseline the change against it. Also the fonts and plot style the charts share.
 */
final class Charts {
  static final int WIDTH = 1000;
  static final String SPEEDUP = "ratio-vs-s3a-classic.png";
  static final String CHANGE = "change-vs-baseline.png";
  static final String CPU = "cpu-s-per-gb.png";
  static final String LINK = "link-fraction.png";

  /** A chart ready to encode, with its size in (CSS) pixels. */
  record Drawn(JFreeChart chart, int width, int height) {}

  /**
   * One chart as a PNG image.
   *
   * @param title what it shows, for alt text and the Markdown report
   * @param file its file name
   * @param workload the workload it belongs to, or null for a chart across workloads
   * @param width its width to display, in CSS pixels (the image has twice as many)
   * @param height its height to display
   * @param png the image
   */
  record Chart(String title, String file, String workload, int width, int height, byte[] png) {}

  private Charts() {}

  /** Every chart of {@code r}; the change chart only with a {@code baseline} (may be null). */
  static List<Chart> draw(Results r, Comparison baseline) {
    System.setProperty("java.awt.headless", "true");
    List<String> workloads = new ArrayList<>(r.workloads().keySet());
    List<String> readers = new ArrayList<>(r.readers().keySet());
    List<Chart> charts = new ArrayList<>();
    List<String> others = readers.stream().filter(x -> !x.equals(Readers.S3A_CLASSIC)).toList();
    charts.add(encode("Speed-up against S3A classic", SPEEDUP, null, GroupedBars.draw(
        "Speed-up against S3A classic, by workload (log scale)",
        "median MB/s over S3A classic's in the same run; right of the line is faster, left slower; profile "
            + r.profile(),
        "x S3A classic (the line: 1x, as fast as S3A classic)", workloads, others,
        (w, reader) -> speedup(r.row(w, reader)), new GroupedBars.Scale(true, 1.0, 1.0, new DecimalFormat("0.###'x'")))));
    if (baseline != null) {
      charts.add(encode("Change against the baseline", CHANGE, null, GroupedBars.draw(
          "Change against the baseline, by workload and reader",
          "change of the median MB/s; real: outside both runs' min-max spread; pale bars: within it (noise)",
          "change against the baseline", workloads, readers, (w, reader) -> change(baseline.change(w, reader)),
          new GroupedBars.Scale(false, 0.0, 0.0, new DecimalFormat("+0'%';-0'%'")))));
    }
    for (String w : workloads) {
      charts.add(encode(w + ": MB/s", "mbps-" + w + ".png", w, WorkloadChart.draw(r, w)));
      if (HeapChart.has(r, w)) {
        charts.add(encode(w + ": heap after GC", "heap-" + w + ".png", w, HeapChart.draw(r, w)));
      }
    }
    charts.add(encode("CPU seconds per GB", CPU, null, GroupedBars.draw("CPU seconds per GB read, by workload (log scale)",
        "the benchmark JVM's CPU less the link shaper's threads, per GB used (median); shorter is better",
        "CPU s / GB", workloads, readers,
        (w, reader) -> plain(r.row(w, reader), Result::cpuSecondsPerGb, v -> Report.num(v, v < 10 ? 2 : 0)),
        new GroupedBars.Scale(true, Double.NaN, Double.NaN, new DecimalFormat("#,##0.###")))));
    // listings count the bytes of the files listed, which the link does not carry: left out here
    List<String> carried = workloads.stream().filter(w -> !w.startsWith(ListingWorkload.DIRECTORIES)).toList();
    charts.add(encode("Fraction of the link capacity", LINK, null, GroupedBars.draw(
        "Fraction of the link capacity (" + Report.num(r.linkCapacityMbps(), 0) + " MB/s), by workload (log scale)",
        "median MB/s over the link capacity measured in this run; the line is the link capacity; beyond it, bytes"
            + " came from a cache",
        "fraction of link capacity", carried, readers,
        (w, reader) -> plain(r.row(w, reader), Result::linkFraction,
            v -> v < 0.1 ? String.format(Locale.ROOT, "%.1f%%", v * 100) : Report.percent(v)),
        new GroupedBars.Scale(true, Double.NaN, 1.0, new DecimalFormat("0.#%")))));
    return charts;
  }

  /** Why {@code x} has no figure, in a word or two: n/a, skipped, failed, wrong bytes, not run. */
  static String why(Result x) {
    if (x == null) {
      return "not run";
    }
    return switch (x.status()) {
      case Result.NOT_APPLICABLE -> "n/a";
      case Result.UNAVAILABLE -> "skipped";
      case Result.FAILED -> "failed";
      case Result.WRONG_BYTES -> "wrong bytes";
      default -> x.runs() == 0 ? x.status() : "no figure";
    };
  }

  private static GroupedBars.Item speedup(Result x) {
    if (x == null || x.runs() == 0) {
      return new GroupedBars.Item(Double.NaN, why(x), false);
    }
    double v = x.ratioVsS3aClassic();
    if (!Double.isFinite(v) || v <= 0) {
      return new GroupedBars.Item(Double.NaN, "no S3A classic figure", false);
    }
    return new GroupedBars.Item(v, ratio(v), false);
  }

  /** MB/s with three significant digits below 100: "0.0312", "4.70", "24.9", "115.7". */
  static String mbps(double v) {
    if (!Double.isFinite(v)) {
      return "n/a";
    }
    int decimals = v >= 100 || v == 0 ? 1 : Math.min(4, 2 - (int) Math.floor(Math.log10(v)));
    return Report.num(v, Math.max(1, decimals));
  }

  /** A ratio as "4.70x", "80.3x", "0.53x". */
  static String ratio(double v) {
    return String.format(Locale.ROOT, v >= 10 ? "%.1fx" : "%.2fx", v);
  }

  private static GroupedBars.Item change(Comparison.Change c) {
    if (c == null || c.verdict() == Comparison.Verdict.NOT_COMPARABLE) {
      return new GroupedBars.Item(Double.NaN, c == null ? "not run" : c.label(), false);
    }
    String note = switch (c.verdict()) {
      case BETTER, WORSE -> " (real)";
      case NO_SPREAD -> " (one run: spread unknown)";
      default -> " (noise)";
    };
    return new GroupedBars.Item((c.ratio() - 1) * 100, c.label() + note, !c.real());
  }

  private static GroupedBars.Item plain(Result x, java.util.function.ToDoubleFunction<Result> f,
      java.util.function.DoubleFunction<String> format) {
    if (x == null || x.runs() == 0) {
      return new GroupedBars.Item(Double.NaN, why(x), false);
    }
    double v = f.applyAsDouble(x);
    return Double.isFinite(v) ? new GroupedBars.Item(v, format.apply(v), false)
        : new GroupedBars.Item(Double.NaN, "no figure", false);
  }

  private static Chart encode(String title, String file, String workload, Drawn d) {
    ByteArrayOutputStream png = new ByteArrayOutputStream();
    try {
      ChartUtils.writeScaledChartAsPNG(png, d.chart(), d.width(), d.height(), 2, 2);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return new Chart(title, file, workload, d.width(), d.height(), png.toByteArray());
  }

  static Font font(int style, int size) {
    return new Font(Font.SANS_SERIF, style, size);
  }

  /** A chart around {@code plot}: white, a bold title, a grey subtitle, the legend (if wanted) at the top. */
  static JFreeChart chart(String title, String subtitle, CategoryPlot plot, boolean legend) {
    JFreeChart chart = new JFreeChart(title, font(Font.BOLD, 17), plot, legend);
    chart.setBackgroundPaint(Color.WHITE);
    chart.setPadding(new RectangleInsets(8, 8, 8, 16));
    TextTitle sub = new TextTitle(subtitle, font(Font.PLAIN, 12));
    sub.setPaint(new Color(0x55, 0x55, 0x55));
    chart.addSubtitle(sub);
    if (legend) {
      LegendTitle l = chart.getLegend();
      l.setPosition(RectangleEdge.TOP);
      l.setItemFont(font(Font.PLAIN, 13));
      l.setFrame(BlockBorder.NONE);
      l.setBackgroundPaint(Color.WHITE);
    }
    return chart;
  }

  /** White plot, light grid lines across the values only. */
  static void style(CategoryPlot plot) {
    plot.setBackgroundPaint(Color.WHITE);
    plot.setOutlineVisible(false);
    plot.setRangeGridlinesVisible(true);
    plot.setRangeGridlinePaint(new Color(0xdd, 0xdd, 0xdd));
    plot.setRangeMinorGridlinesVisible(false);
    plot.setDomainGridlinesVisible(false);
    plot.setAxisOffset(RectangleInsets.ZERO_INSETS);
  }
}
