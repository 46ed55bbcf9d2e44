/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.bench;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.text.DecimalFormat;
import java.util.Locale;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.axis.NumberAxis;
import org.jfree.chart.block.BlockBorder;
import org.jfree.chart.plot.ValueMarker;
import org.jfree.chart.plot.XYPlot;
import org.jfree.chart.renderer.xy.XYLineAndShapeRenderer;
import org.jfree.chart.title.LegendTitle;
import org.jfree.chart.title.TextTitle;
import org.jfree.chart.ui.RectangleAnchor;
import org.jfree.chart.ui.RectangleEdge;
import org.jfree.chart.ui.RectangleInsets;
import org.jfree.chart.ui.TextAnchor;
import org.jfree.data.xy.XYSeries;
import org.jfree.data.xy.XYSeriesCollection;

/**
 * A workload's heap after GC against objects read ({@link HeapCurve}), one line per reader in its colour, the
 * growth per object in the legend: a flat line is a client that keeps nothing per object it has read.
 */
final class HeapChart {
  private HeapChart() {}

  /** Whether any row of {@code workload} has a heap curve to draw. */
  static boolean has(Results r, String workload) {
    return r.rows().stream().anyMatch(x -> x.workload().equals(workload) && x.heap() != null);
  }

  static Charts.Drawn draw(Results r, String workload) {
    XYSeriesCollection lines = new XYSeriesCollection();
    XYLineAndShapeRenderer renderer = new XYLineAndShapeRenderer(true, true);
    long fitFrom = 0;
    for (String reader : r.readers().keySet()) {
      Result x = r.row(workload, reader);
      if (x == null || x.heap() == null) {
        continue;
      }
      HeapCurve h = x.heap();
      fitFrom = h.fitFrom();
      XYSeries s = new XYSeries(reader + ": " + perObject(h.bytesPerObject()), false, true);
      for (int i = 0; i < h.objects().length; i++) {
        s.add(h.objects()[i], h.heapBytes()[i] / 1048576.0);
      }
      int series = lines.getSeriesCount();
      lines.addSeries(s);
      renderer.setSeriesPaint(series, ReaderPalette.of(reader));
      renderer.setSeriesStroke(series, new BasicStroke(2.2f));
    }
    NumberAxis objects = new NumberAxis("objects read");
    objects.setNumberFormatOverride(new DecimalFormat("#,##0"));
    objects.setLabelFont(Charts.font(Font.PLAIN, 13));
    objects.setTickLabelFont(Charts.font(Font.PLAIN, 12));
    NumberAxis heap = new NumberAxis("heap after full GC (MiB)");
    heap.setAutoRangeIncludesZero(true);
    heap.setLabelFont(Charts.font(Font.PLAIN, 13));
    heap.setTickLabelFont(Charts.font(Font.PLAIN, 12));
    XYPlot plot = new XYPlot(lines, objects, heap, renderer);
    plot.setBackgroundPaint(Color.WHITE);
    plot.setOutlineVisible(false);
    plot.setRangeGridlinePaint(new Color(0xdd, 0xdd, 0xdd));
    plot.setDomainGridlinePaint(new Color(0xee, 0xee, 0xee));
    plot.setAxisOffset(RectangleInsets.ZERO_INSETS);
    if (fitFrom > 0) { // where the fitted part of the curves begins
      ValueMarker start = new ValueMarker(fitFrom, new Color(0x88, 0x88, 0x88), new BasicStroke(1.2f,
          BasicStroke.CAP_BUTT, BasicStroke.JOIN_MITER, 10f, new float[] {5f, 4f}, 0f));
      start.setLabel("fitted from here");
      start.setLabelFont(Charts.font(Font.PLAIN, 12));
      start.setLabelBackgroundColor(Color.WHITE);
      start.setLabelAnchor(RectangleAnchor.TOP_RIGHT);
      start.setLabelTextAnchor(TextAnchor.TOP_LEFT);
      plot.addDomainMarker(start);
    }

    JFreeChart chart = new JFreeChart(workload + ": heap after GC as objects are read", Charts.font(Font.BOLD, 17),
        plot, true);
    chart.setBackgroundPaint(Color.WHITE);
    chart.setPadding(new RectangleInsets(8, 8, 8, 16));
    TextTitle sub = new TextTitle(String.format(Locale.ROOT, "one client per reader; in the legend the growth per"
        + " object, the least-squares slope from %,d objects on; flatter is better", fitFrom),
        Charts.font(Font.PLAIN, 12));
    sub.setPaint(new Color(0x55, 0x55, 0x55));
    chart.addSubtitle(sub);
    LegendTitle l = chart.getLegend();
    l.setPosition(RectangleEdge.TOP);
    l.setItemFont(Charts.font(Font.PLAIN, 13));
    l.setFrame(BlockBorder.NONE);
    l.setBackgroundPaint(Color.WHITE);
    return new Charts.Drawn(chart, Charts.WIDTH, 440);
  }

  /** Growth per object as "127 B/object", "28.5 KB/object" (10^3 bytes); "n/a" without a fit. */
  static String perObject(double bytes) {
    if (!Double.isFinite(bytes)) {
      return "n/a";
    }
    return Math.abs(bytes) < 10_000 ? Report.num(bytes, 0) + " B/object"
        : Report.num(bytes / 1000, 1) + " KB/object";
  }
}
