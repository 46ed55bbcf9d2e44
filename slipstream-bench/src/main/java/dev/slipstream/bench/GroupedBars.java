/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.bench;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.Paint;
import java.text.NumberFormat;
import java.util.List;
import java.util.function.BiFunction;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.axis.CategoryAxis;
import org.jfree.chart.axis.LogAxis;
import org.jfree.chart.axis.NumberAxis;
import org.jfree.chart.axis.NumberTickUnit;
import org.jfree.chart.axis.ValueAxis;
import org.jfree.chart.labels.CategoryItemLabelGenerator;
import org.jfree.chart.labels.ItemLabelAnchor;
import org.jfree.chart.labels.ItemLabelPosition;
import org.jfree.chart.plot.CategoryPlot;
import org.jfree.chart.plot.PlotOrientation;
import org.jfree.chart.plot.ValueMarker;
import org.jfree.chart.renderer.category.BarRenderer;
import org.jfree.chart.renderer.category.StandardBarPainter;
import org.jfree.chart.ui.TextAnchor;
import org.jfree.data.category.CategoryDataset;
import org.jfree.data.category.DefaultCategoryDataset;

/**
 * Horizontal bars, one row per workload and one bar per reader within it, on a linear or log axis, from
 * a base value (for a ratio 1, so that slower goes left and faster right), with an optional reference
 * line. Every bar carries its label at its far end; a reader without a figure has no bar, only a label with
 * the reader's name and why.
 */
final class GroupedBars {
  /**
   * One bar.
   *
   * @param value the figure, NaN for none (no bar; the label says why)
   * @param label written at the bar's end
   * @param faded drawn pale (e.g. a change within the noise)
   */
  record Item(double value, String label, boolean faded) {}

  private static final int BAR_PIXELS = 17;

  private GroupedBars() {}

  /**
   * The value axis.
   *
   * @param log a log axis (else linear)
   * @param base the value bars start from; NaN for the axis' own start (0 when linear, the power of ten at
   *     or below the smallest value when log)
   * @param line where a reference line is drawn across the bars, NaN for none
   * @param format the tick labels, or null for plain numbers
   */
  record Scale(boolean log, double base, double line, NumberFormat format) {}

  /** The chart and its height in pixels. */
  static Charts.Drawn draw(String title, String subtitle, String axisLabel, List<String> rows, List<String> readers,
      BiFunction<String, String, Item> item, Scale scale) {
    boolean log = scale.log();
    double floor = Double.POSITIVE_INFINITY;
    for (String row : rows) {
      for (String reader : readers) {
        Item it = item.apply(row, reader);
        if (it != null && Double.isFinite(it.value()) && it.value() > 0) {
          floor = Math.min(floor, it.value());
        }
      }
    }
    double base = !Double.isNaN(scale.base()) ? scale.base()
        : !log ? 0.0 : Double.isInfinite(floor) ? 1.0 : Math.pow(10, Math.floor(Math.log10(floor)));
    DefaultCategoryDataset data = new DefaultCategoryDataset();
    Item[][] items = new Item[readers.size()][rows.size()];
    double lo = base;
    double hi = base;
    for (int s = 0; s < readers.size(); s++) {
      for (int c = 0; c < rows.size(); c++) {
        Item it = item.apply(rows.get(c), readers.get(s));
        items[s][c] = it;
        boolean has = it != null && Double.isFinite(it.value()) && (!log || it.value() > 0);
        double v = has ? it.value() : base;
        data.addValue(v, readers.get(s), rows.get(c));
        lo = Math.min(lo, v);
        hi = Math.max(hi, v);
      }
    }

    CategoryAxis categories = new CategoryAxis(null);
    categories.setCategoryMargin(0.25);
    categories.setLowerMargin(0.01);
    categories.setUpperMargin(0.01);
    categories.setTickLabelFont(Charts.font(Font.BOLD, 13));
    categories.setMaximumCategoryLabelWidthRatio(0.3f);
    ValueAxis values;
    if (log) {
      LogAxis axis = new LogAxis(axisLabel);
      axis.setBase(10);
      axis.setSmallestValue(1e-6);
      axis.setTickUnit(new NumberTickUnit(1.0), false, true); // powers of ten only: 0.1x, 1x, 10x
      axis.setMinorTickCount(9);
      axis.setMinorTickMarksVisible(true);
      if (scale.format() != null) {
        axis.setNumberFormatOverride(scale.format());
      }
      // room for the labels at the bars' ends, on either side of the base
      axis.setRange(lo < base ? lo / 3.0 : base, hi * 3.0);
      values = axis;
    } else {
      NumberAxis axis = new NumberAxis(axisLabel);
      double span = Math.max(hi - lo, 1e-9);
      axis.setRange(lo < 0 ? lo - span * 0.3 : 0, hi > 0 ? hi + span * 0.3 : 1);
      if (scale.format() != null) {
        axis.setNumberFormatOverride(scale.format());
      }
      values = axis;
    }
    values.setLabelFont(Charts.font(Font.PLAIN, 13));
    values.setTickLabelFont(Charts.font(Font.PLAIN, 12));

    ItemLabelPosition right = new ItemLabelPosition(ItemLabelAnchor.OUTSIDE3, TextAnchor.CENTER_LEFT);
    ItemLabelPosition left = new ItemLabelPosition(ItemLabelAnchor.OUTSIDE9, TextAnchor.CENTER_RIGHT);
    BarRenderer bars = new BarRenderer() {
      @Override
      public Paint getItemPaint(int row, int column) {
        Color c = ReaderPalette.of(readers.get(row));
        Item it = items[row][column];
        return it != null && it.faded() ? ReaderPalette.faded(c) : c;
      }

      // the label at the bar's far end from the reference line, on whichever side it lies
      @Override
      public ItemLabelPosition getPositiveItemLabelPosition(int row, int column) {
        Item it = items[row][column];
        return it != null && it.value() < base ? left : right;
      }

      @Override
      public ItemLabelPosition getNegativeItemLabelPosition(int row, int column) {
        return getPositiveItemLabelPosition(row, column);
      }
    };
    bars.setBarPainter(new StandardBarPainter());
    bars.setShadowVisible(false);
    bars.setDrawBarOutline(false);
    bars.setBase(base);
    bars.setItemMargin(0.04);
    for (int s = 0; s < readers.size(); s++) {
      bars.setSeriesPaint(s, ReaderPalette.of(readers.get(s)));
    }
    bars.setDefaultItemLabelGenerator(new CategoryItemLabelGenerator() {
      @Override
      public String generateRowLabel(CategoryDataset dataset, int row) {
        return readers.get(row);
      }

      @Override
      public String generateColumnLabel(CategoryDataset dataset, int column) {
        return rows.get(column);
      }

      @Override
      public String generateLabel(CategoryDataset dataset, int row, int column) {
        Item it = items[row][column];
        if (it == null || !Double.isFinite(it.value())) { // no bar: name the reader, as no colour shows it
          return readers.get(row) + ": " + (it == null ? "not run" : it.label());
        }
        return it.label();
      }
    });
    bars.setDefaultItemLabelsVisible(true);
    bars.setDefaultItemLabelFont(Charts.font(Font.PLAIN, 12));
    bars.setDefaultItemLabelPaint(new Color(0x22, 0x22, 0x22));
    bars.setItemLabelAnchorOffset(4);

    CategoryPlot plot = new CategoryPlot(data, categories, values, bars);
    plot.setOrientation(PlotOrientation.HORIZONTAL);
    Charts.style(plot);
    if (Double.isFinite(scale.line())) {
      plot.addRangeMarker(new ValueMarker(scale.line(), new Color(0x33, 0x33, 0x33), new BasicStroke(1.4f)));
    }

    JFreeChart chart = Charts.chart(title, subtitle, plot, true);
    int height = 150 + rows.size() * (readers.size() * BAR_PIXELS + 14);
    return new Charts.Drawn(chart, Charts.WIDTH, height);
  }
}
