/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.bench;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Component;
import java.awt.Font;
import java.awt.Graphics;
import java.awt.Paint;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import javax.swing.Icon;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.annotations.CategoryTextAnnotation;
import org.jfree.chart.axis.CategoryAxis;
import org.jfree.chart.axis.NumberAxis;
import org.jfree.chart.plot.CategoryPlot;
import org.jfree.chart.plot.DatasetRenderingOrder;
import org.jfree.chart.plot.ValueMarker;
import org.jfree.chart.renderer.category.BarRenderer;
import org.jfree.chart.renderer.category.MinMaxCategoryRenderer;
import org.jfree.chart.renderer.category.StandardBarPainter;
import org.jfree.chart.ui.RectangleAnchor;
import org.jfree.chart.ui.TextAnchor;
import org.jfree.data.category.DefaultCategoryDataset;

/**
 * One workload's throughput by reader: the median as a bar, the slowest and fastest run as a whisker, the
 * link capacity measured in the same run as a dashed line, and under each bar the reader's name, median
 * and requests per GB. A reader without a figure has no bar; its label says why.
 */
final class WorkloadChart {
  private WorkloadChart() {}

  static Charts.Drawn draw(Results r, String workload) {
    List<String> readers = new ArrayList<>(r.readers().keySet());
    List<String> labels = new ArrayList<>();
    DefaultCategoryDataset medians = new DefaultCategoryDataset();
    DefaultCategoryDataset spread = new DefaultCategoryDataset();
    double top = 0;
    for (String reader : readers) {
      Result x = r.row(workload, reader);
      boolean has = x != null && x.runs() > 0 && Double.isFinite(x.mbps());
      String label = reader + "\n" + (has ? Charts.mbps(x.mbps()) + " MB/s\n" + requestsPerGb(x)
          : Charts.why(x) + "\n ");
      labels.add(label);
      medians.addValue(has ? x.mbps() : null, "median", label);
      if (has && Double.isFinite(x.mbpsMin()) && Double.isFinite(x.mbpsMax())) {
        spread.addValue(x.mbpsMin(), "slowest run", label);
        spread.addValue(x.mbpsMax(), "fastest run", label);
        top = Math.max(top, x.mbpsMax());
      } else {
        spread.addValue(null, "slowest run", label);
        spread.addValue(null, "fastest run", label);
      }
      if (has) {
        top = Math.max(top, x.mbps());
      }
    }
    boolean capacityLine = !workload.startsWith(ListingWorkload.DIRECTORIES) && Double.isFinite(r.linkCapacityMbps());
    if (capacityLine) {
      top = Math.max(top, r.linkCapacityMbps());
    }

    CategoryAxis categories = new CategoryAxis(null);
    categories.setMaximumCategoryLabelLines(3);
    categories.setTickLabelFont(Charts.font(Font.PLAIN, 12));
    categories.setCategoryMargin(0.3);
    NumberAxis mbps = new NumberAxis("MB/s (10^6 bytes/s)");
    mbps.setRange(0, top > 0 ? top * 1.12 : 1);
    mbps.setLabelFont(Charts.font(Font.PLAIN, 13));
    mbps.setTickLabelFont(Charts.font(Font.PLAIN, 12));

    BarRenderer bars = new BarRenderer() {
      @Override
      public Paint getItemPaint(int row, int column) {
        return ReaderPalette.of(readers.get(column));
      }
    };
    bars.setBarPainter(new StandardBarPainter());
    bars.setShadowVisible(false);
    bars.setDrawBarOutline(false);
    bars.setMaximumBarWidth(0.12);

    MinMaxCategoryRenderer whiskers = new MinMaxCategoryRenderer();
    whiskers.setDrawLines(false);
    whiskers.setObjectIcon(new NoIcon());
    whiskers.setMinIcon(new CapIcon());
    whiskers.setMaxIcon(new CapIcon());
    whiskers.setGroupPaint(new Color(0x22, 0x22, 0x22));
    whiskers.setGroupStroke(new BasicStroke(1.6f));
    whiskers.setDefaultSeriesVisibleInLegend(false);

    CategoryPlot plot = new CategoryPlot(medians, categories, mbps, bars);
    plot.setDataset(1, spread);
    plot.setRenderer(1, whiskers);
    plot.setDatasetRenderingOrder(DatasetRenderingOrder.FORWARD);
    Charts.style(plot);
    if (capacityLine) {
      ValueMarker line = new ValueMarker(r.linkCapacityMbps(), new Color(0xc0, 0x1c, 0x28),
          new BasicStroke(1.5f, BasicStroke.CAP_BUTT, BasicStroke.JOIN_MITER, 10f, new float[] {6f, 4f}, 0f));
      line.setLabel("link capacity " + Report.num(r.linkCapacityMbps(), 0) + " MB/s");
      line.setLabelFont(Charts.font(Font.BOLD, 12));
      line.setLabelPaint(new Color(0xc0, 0x1c, 0x28));
      line.setLabelAnchor(RectangleAnchor.TOP_RIGHT);
      line.setLabelTextAnchor(TextAnchor.BOTTOM_RIGHT);
      line.setLabelBackgroundColor(new Color(255, 255, 255, 220));
      plot.addRangeMarker(line);
    }
    for (int i = 0; i < readers.size(); i++) {
      Result x = r.row(workload, readers.get(i));
      if (x == null || x.runs() == 0 || !Double.isFinite(x.mbps())) {
        CategoryTextAnnotation why = new CategoryTextAnnotation(Charts.why(x), labels.get(i), top * 0.04);
        why.setFont(Charts.font(Font.ITALIC, 13));
        why.setPaint(new Color(0x55, 0x55, 0x55));
        why.setTextAnchor(TextAnchor.BOTTOM_CENTER);
        plot.addAnnotation(why);
      }
    }
    String title = workload + ": MB/s by reader";
    String subtitle = "bar: median of " + r.runs() + (r.runs() == 1 ? " run" : " runs")
        + (r.runs() > 1 ? "; whisker: slowest to fastest run" : "")
        + (capacityLine ? "; dashed line: the link capacity measured in this run"
            : workload.startsWith(ListingWorkload.DIRECTORIES)
                ? "; MB/s counts the bytes of the files listed, so no link-capacity line" : "");
    JFreeChart chart = Charts.chart(title, subtitle, plot, false);
    return new Charts.Drawn(chart, Charts.WIDTH, 440);
  }

  /** Requests of every kind per GB used, e.g. "41 req/GB". */
  static String requestsPerGb(Result x) {
    long requests = x.gets() + x.heads() + x.lists();
    if (x.bytesUsed() <= 0) {
      return requests + " requests";
    }
    double perGb = requests / (x.bytesUsed() / 1e9);
    return String.format(Locale.ROOT, perGb >= 100 ? "%,.0f req/GB" : "%.1f req/GB", perGb);
  }

  /** The whisker's end: a short horizontal stroke centred on the value. */
  private static final class CapIcon implements Icon {
    @Override
    public void paintIcon(Component c, Graphics g, int x, int y) {
      java.awt.Graphics2D g2 = (java.awt.Graphics2D) g;
      g2.setStroke(new BasicStroke(1.6f));
      g2.drawLine(x - 7, y, x + 7, y);
    }

    @Override
    public int getIconWidth() {
      return 0;
    }

    @Override
    public int getIconHeight() {
      return 0;
    }
  }

  /** Draws nothing: the whisker renderer's mark for each value, where only the whisker is wanted. */
  private static final class NoIcon implements Icon {
    @Override
    public void paintIcon(Component c, Graphics g, int x, int y) {}

    @Override
    public int getIconWidth() {
      return 0;
    }

    @Override
    public int getIconHeight() {
      return 0;
    }
  }
}
