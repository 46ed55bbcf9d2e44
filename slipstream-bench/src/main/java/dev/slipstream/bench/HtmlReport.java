/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.bench;

import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Base64;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code report.html}: the whole report in one file that opens offline in any browser. The run's conditions
 * at the top, the charts across workloads, then one section per workload with its chart and table, the
 * charts embedded as PNG data. With a baseline: which one, in what its conditions differ, a change column
 * and the change chart. Written as well-formed XHTML-compatible HTML5, so that an XML parser reads it.
 */
final class HtmlReport {
  private static final Pattern HADOOP = Pattern.compile("Hadoop (\\d+\\.\\d+\\.\\d+)");
  private static final Pattern CORES = Pattern.compile("^(\\d+) cores(?: \\(([^)]*)\\))?");
  private static final Pattern JAVA = Pattern.compile("(Java [^,]*), max heap (\\d+ MiB)");

  private HtmlReport() {}

  static String write(Results r, List<Charts.Chart> charts, Comparison baseline) {
    StringBuilder b = new StringBuilder();
    String date = r.started().getEpochSecond() == 0 ? "date not recorded"
        : DateTimeFormatter.ISO_LOCAL_DATE_TIME.format(r.started().atOffset(ZoneOffset.UTC).withNano(0)) + " UTC";
    b.append("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n")
        .append("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"/>\n")
        .append("<title>Slipstream benchmark, ").append(esc(date)).append("</title>\n<style>\n").append(CSS)
        .append("</style>\n</head>\n<body>\n<main>\n");
    b.append("<h1>Slipstream benchmark</h1>\n<p class=\"lead\">").append(esc(date)).append("; the run took ")
        .append(Report.num(r.duration().toMillis() / 60000.0, 1)).append(" minutes. Slipstream beside S3A's three"
            + " input streams, on the same data, through the same shaped S3 link.</p>\n");
    conditions(b, r);
    if (baseline != null) {
      baselineSection(b, r, baseline);
    }
    contents(b, r, baseline != null);

    b.append("<section id=\"glance\">\n<h2>At a glance</h2>\n");
    img(b, find(charts, Charts.SPEEDUP));
    b.append("<p class=\"note\">").append(statusLegend()).append("</p>\n");
    if (baseline != null) {
      img(b, find(charts, Charts.CHANGE));
    }
    b.append("</section>\n");

    for (String w : r.workloads().keySet()) {
      workload(b, r, w, charts, baseline);
    }

    b.append("<section id=\"resources\">\n<h2>CPU and link use</h2>\n");
    img(b, find(charts, Charts.CPU));
    img(b, find(charts, Charts.LINK));
    b.append("</section>\n");

    b.append("<section id=\"readers\">\n<h2>Readers</h2>\n<dl>\n");
    r.readers().forEach((name, d) -> b.append("<dt>").append(swatch(name)).append("<code>").append(esc(name))
        .append("</code></dt><dd>").append(esc(d)).append("</dd>\n"));
    b.append("</dl>\n</section>\n");
    b.append("<footer><p>Medians over the measured runs, with the slowest and fastest run. 1 MB = 10^6 bytes;"
        + " heap in MiB. CPU: the benchmark JVM's CPU time (reader, the workload's own work, GC and JIT) less the"
        + " link shaper's threads, per GB used; the S3 server runs in a separate process and is not counted."
        + " Requests per GB: GET, HEAD and LIST requests the link carried per GB the workload used. Every run's"
        + " bytes were checked against the source. Written by <code>bin/slipstream bench</code>; the same figures"
        + " are in results.json, results.csv and report.md.</p></footer>\n");
    b.append("</main>\n</body>\n</html>\n");
    return b.toString();
  }

  private static void conditions(StringBuilder b, Results r) {
    b.append("<section id=\"conditions\">\n<h2>Run conditions</h2>\n<table class=\"facts\">\n");
    fact(b, "Link", "profile <code>" + esc(r.profile()) + "</code>: " + esc(r.profileDescription()));
    fact(b, "Measured link capacity", "<strong>" + Report.num(r.linkCapacityMbps(), 1) + " MB/s</strong> ("
        + LinkCapacity.PARALLEL + " parallel ranged GETs, raw AWS SDK, null sink, measured in this run): the"
        + " physical limit every reader is compared with");
    fact(b, "Runs", r.warmups() + " warm-up and " + r.runs() + " measured runs per reader and workload, readers"
        + " alternating within each round");
    fact(b, "Sizes", sizes(r.sizes(), r.workloads().keySet().stream()
        .anyMatch(w -> w.startsWith(ListingWorkload.DIRECTORIES))));
    Matcher cores = CORES.matcher(r.machine());
    if (cores.find()) {
      fact(b, "Cores", esc(cores.group(1) + (cores.group(2) == null ? "" : " (" + cores.group(2) + ")")));
    }
    Matcher java = JAVA.matcher(r.machine());
    if (java.find()) {
      fact(b, "JVM", esc(java.group(1) + ", max heap " + java.group(2)));
    }
    fact(b, "Machine", esc(r.machine()));
    fact(b, "Versions", versions(r));
    fact(b, "Command", "<code>" + esc(r.command()) + "</code>");
    b.append("</table>\n</section>\n");
  }

  private static String sizes(BenchSizes s, boolean listing) {
    StringBuilder b = new StringBuilder();
    b.append("sequential object ").append(Report.binary(s.sequentialBytes()))
        .append("; Parquet file about ").append(Report.binary(s.parquetBytes()))
        .append("; random: ").append(s.randomReads()).append(" reads of ").append(Report.binary(s.randomReadBytes()))
        .append("; small files: ").append(s.smallFiles()).append(" of ").append(Report.binary(s.smallFileBytes()));
    if (listing) {
      b.append("; listing: ").append(s.listingDirectories()).append(" directories of 6 files and ")
          .append(s.listingFlatKeys()).append(" keys under one flat prefix");
    }
    b.append("; link probe: ").append(LinkCapacity.PARALLEL).append(" ranges of ").append(Report.binary(s.linkRangeBytes()));
    return esc(b.toString());
  }

  private static String versions(Results r) {
    if (!r.versions().isEmpty()) {
      StringBuilder b = new StringBuilder();
      r.versions().forEach((name, v) -> b.append(b.length() == 0 ? "" : "; ").append(esc(name)).append(' ')
          .append("<strong>").append(esc(v)).append("</strong>"));
      return b.toString();
    }
    String hadoop = r.readers().values().stream().map(HADOOP::matcher).filter(Matcher::find).map(m -> m.group(1))
        .findFirst().orElse(null);
    return (hadoop == null ? "" : "Hadoop (S3A) <strong>" + esc(hadoop) + "</strong>, from the reader descriptions; ")
        + "the other versions are not recorded in this results.json (it was written before they were)";
  }

  private static void baselineSection(StringBuilder b, Results r, Comparison c) {
    Results base = c.baseline();
    b.append("<section id=\"baseline\">\n<h2>Compared with a baseline</h2>\n<table class=\"facts\">\n");
    fact(b, "Baseline", "<code>" + esc(c.source()) + "</code>");
    fact(b, "Its run", esc((base.started().getEpochSecond() == 0 ? "date not recorded"
        : DateTimeFormatter.ISO_LOCAL_DATE_TIME.format(base.started().atOffset(ZoneOffset.UTC).withNano(0)) + " UTC")
        + ", profile " + base.profile() + ", link capacity " + Report.num(base.linkCapacityMbps(), 1) + " MB/s, "
        + base.runs() + " measured runs; command " + base.command()));
    fact(b, "Rule", "a change is <strong>real</strong> only when the two runs' min-max ranges do not overlap:"
        + " this run's slowest run is faster than the baseline's fastest, or its fastest slower than the baseline's"
        + " slowest. Otherwise it is noise. With a single run on either side there is no spread, and no change is"
        + " called real.");
    long better = c.changes().stream().filter(x -> x.verdict() == Comparison.Verdict.BETTER).count();
    long worse = c.changes().stream().filter(x -> x.verdict() == Comparison.Verdict.WORSE).count();
    long noise = c.changes().stream().filter(x -> x.verdict() == Comparison.Verdict.WITHIN_SPREAD
        || x.verdict() == Comparison.Verdict.NO_SPREAD).count();
    fact(b, "Outcome", "<span class=\"better\">" + better + " real improvements</span>, <span class=\"worse\">"
        + worse + " real regressions</span>, " + noise + " changes within the noise");
    if (!c.differences().isEmpty()) {
      fact(b, "<span class=\"worse\">Differs</span>", "the baseline ran with other conditions, so its figures may"
          + " not compare: " + esc(String.join("; ", c.differences())));
    }
    if (!c.missing().isEmpty()) {
      fact(b, "Not recorded", "the baseline's results.json is older and lacks " + esc(String.join(", ",
          c.missing())) + "; those are shown as not recorded");
    }
    b.append("</table>\n</section>\n");
  }

  private static void contents(StringBuilder b, Results r, boolean baseline) {
    b.append("<nav><strong>Sections:</strong> <a href=\"#conditions\">conditions</a>");
    if (baseline) {
      b.append(" · <a href=\"#baseline\">baseline</a>");
    }
    b.append(" · <a href=\"#glance\">at a glance</a>");
    for (String w : r.workloads().keySet()) {
      b.append(" · <a href=\"#").append(id(w)).append("\">").append(esc(w)).append("</a>");
    }
    b.append(" · <a href=\"#resources\">CPU and link use</a> · <a href=\"#readers\">readers</a></nav>\n");
  }

  private static void workload(StringBuilder b, Results r, String w, List<Charts.Chart> charts, Comparison c) {
    b.append("<section id=\"").append(id(w)).append("\">\n<h2>").append(esc(w)).append("</h2>\n<p>")
        .append(esc(r.workloads().get(w))).append("</p>\n");
    charts.stream().filter(x -> w.equals(x.workload())).forEach(x -> img(b, x));
    b.append("<div class=\"scroll\"><table class=\"results\">\n<thead><tr><th>reader</th><th>MB/s</th>"
        + "<th>min-max</th><th title=\"median MB/s over S3A classic's\">x classic</th>"
        + "<th title=\"median MB/s over the link capacity\">link</th><th>CPU s/GB</th><th>heap MiB</th><th>GET</th>"
        + "<th>HEAD</th><th>LIST</th><th title=\"requests per GB used\">req/GB</th>"
        + "<th title=\"bytes the link carried per byte used\">fetched/used</th>"
        + "<th title=\"requests and transfer per TB used, US dollars at S3 Standard's list prices in US East\">"
        + "$/TB</th>"
        + "<th title=\"object GETs as the link shaper saw them: p50 / p99 of the first byte, then of the whole"
        + " response, in ms\">GET ms</th>");
    if (c != null) {
      b.append("<th>vs baseline</th>");
    }
    b.append("<th>bytes</th></tr></thead>\n<tbody>\n");
    for (String reader : r.readers().keySet()) {
      Result x = r.row(w, reader);
      if (x == null) {
        continue;
      }
      b.append("<tr").append(reader.startsWith(Readers.SLIPSTREAM) ? " class=\"ours\"" : "").append("><th>")
          .append(swatch(reader)).append(esc(reader)).append("</th>");
      if (x.runs() == 0) {
        b.append("<td colspan=\"").append(c != null ? 14 : 13).append("\" class=\"why\"><strong>")
            .append(esc(Charts.why(x))).append("</strong>").append(x.reason() == null ? "" : ": " + esc(x.reason()))
            .append("</td>");
        b.append("<td></td></tr>\n");
        continue;
      }
      b.append(td(Charts.mbps(x.mbps()))).append(td(Charts.mbps(x.mbpsMin()) + "-" + Charts.mbps(x.mbpsMax())))
          .append(td(Double.isFinite(x.ratioVsS3aClassic()) ? Charts.ratio(x.ratioVsS3aClassic()) : "n/a"))
          .append(td(Report.percent(x.linkFraction()))).append(td(Report.num(x.cpuSecondsPerGb(), 2)))
          .append(td(Report.num(x.peakHeapMb(), 0))).append(td(Long.toString(x.gets())))
          .append(td(Long.toString(x.heads()))).append(td(Long.toString(x.lists())))
          .append(td(WorkloadChart.requestsPerGb(x).replace(" req/GB", "")))
          .append(td(Report.num(x.fetchedPerUsed(), 2))).append(td(Report.num(x.dollarsPerTbUsed(), 2)))
          .append(td(MarkdownReport.latency(x.latency())));
      if (c != null) {
        b.append(changeCell(c.change(w, reader)));
      }
      b.append("<td>").append(x.ok() ? "verified" : esc(x.status() + ": " + x.reason())).append("</td></tr>\n");
    }
    b.append("</tbody>\n</table></div>\n");
    if (HeapChart.has(r, w)) {
      heapTable(b, r, w);
    }
    b.append("</section>\n");
  }

  /** Heap after GC as the objects were read: first and last sample, peak, and the growth per object. */
  private static void heapTable(StringBuilder b, Results r, String w) {
    b.append("<div class=\"scroll\"><table class=\"results\">\n<thead><tr><th>reader</th><th>objects</th>"
        + "<th title=\"heap in use after a full GC, before the first object and after the last\">heap after GC,"
        + " MiB</th><th>peak after GC, MiB</th><th title=\"least-squares slope of heap after GC over objects read,"
        + " from the objects named on\">growth per object</th><th>fitted from</th></tr></thead>\n<tbody>\n");
    for (String reader : r.readers().keySet()) {
      Result x = r.row(w, reader);
      if (x == null || x.heap() == null) {
        continue;
      }
      HeapCurve h = x.heap();
      long[] bytes = h.heapBytes();
      b.append("<tr").append(reader.startsWith(Readers.SLIPSTREAM) ? " class=\"ours\"" : "").append("><th>")
          .append(swatch(reader)).append(esc(reader)).append("</th>")
          .append(td(String.format(java.util.Locale.ROOT, "%,d", h.lastObjects())))
          .append(td(bytes.length == 0 ? "n/a" : Report.num(bytes[0] / 1048576.0, 1) + " \u2192 "
              + Report.num(bytes[bytes.length - 1] / 1048576.0, 1)))
          .append(td(Report.num(h.peakBytes() / 1048576.0, 1)))
          .append(td(HeapChart.perObject(h.bytesPerObject())))
          .append(td(String.format(java.util.Locale.ROOT, "%,d objects", h.fitFrom()))).append("</tr>\n");
    }
    b.append("</tbody>\n</table></div>\n");
  }

  private static String changeCell(Comparison.Change ch) {
    if (ch == null || ch.verdict() == Comparison.Verdict.NOT_COMPARABLE) {
      String why = ch == null || ch.before() == null ? "not in baseline"
          : "baseline: " + Charts.why(ch.before());
      return "<td class=\"why\">" + esc(why) + "</td>";
    }
    Result before = ch.before();
    String was = "was " + Charts.mbps(before.mbps()) + (Double.isFinite(before.mbpsMin())
        ? " (" + Charts.mbps(before.mbpsMin()) + "-" + Charts.mbps(before.mbpsMax()) + ")" : "");
    String cls = switch (ch.verdict()) {
      case BETTER -> "better";
      case WORSE -> "worse";
      default -> "noise";
    };
    String verdict = switch (ch.verdict()) {
      case BETTER, WORSE -> "real";
      case NO_SPREAD -> "spread unknown";
      default -> "noise";
    };
    return "<td class=\"" + cls + "\"><strong>" + esc(ch.label()) + "</strong> " + verdict + "<br/><small>"
        + esc(was) + "</small></td>";
  }

  private static String statusLegend() {
    return "A missing bar says why: <strong>n/a</strong> the workload does not apply to the reader (a listing runs"
        + " one S3A reader: its input streams play no part); <strong>skipped</strong> the reader could not be set"
        + " up; <strong>failed</strong> every measured run threw; <strong>wrong bytes</strong> a run read bytes"
        + " that differ from the source; <strong>no S3A classic figure</strong> S3A classic has no figure on that"
        + " workload to compare with. The reasons are in each workload's table.";
  }

  private static void img(StringBuilder b, Charts.Chart c) {
    if (c == null) {
      return;
    }
    b.append("<figure><img src=\"data:image/png;base64,").append(Base64.getEncoder().encodeToString(c.png()))
        .append("\" width=\"").append(c.width()).append("\" height=\"").append(c.height()).append("\" alt=\"")
        .append(esc(c.title())).append("\" data-chart=\"").append(esc(c.file())).append("\"/></figure>\n");
  }

  private static Charts.Chart find(List<Charts.Chart> charts, String file) {
    return charts.stream().filter(c -> c.file().equals(file)).findFirst().orElse(null);
  }

  private static void fact(StringBuilder b, String name, String html) {
    b.append("<tr><th>").append(name).append("</th><td>").append(html).append("</td></tr>\n");
  }

  private static String td(String text) {
    return "<td>" + esc(text) + "</td>";
  }

  private static String swatch(String reader) {
    return "<span class=\"swatch\" style=\"background:" + ReaderPalette.css(reader) + "\"></span>";
  }

  static String id(String workload) {
    return "w-" + workload.replaceAll("[^A-Za-z0-9_-]", "_");
  }

  static String esc(String s) {
    if (s == null) {
      return "";
    }
    StringBuilder b = new StringBuilder(s.length());
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '&' -> b.append("&amp;");
        case '<' -> b.append("&lt;");
        case '>' -> b.append("&gt;");
        case '"' -> b.append("&quot;");
        case '\'' -> b.append("&#39;");
        default -> b.append(c < 0x20 && c != '\n' && c != '\t' ? ' ' : c);
      }
    }
    return b.toString();
  }

  private static final String CSS = """
      body { margin: 0; background: #f6f7f9; color: #1d2329;
        font: 15px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", sans-serif; }
      main { max-width: 1140px; margin: 0 auto; padding: 24px 28px 48px; background: #fff; }
      h1 { margin: 0 0 4px; font-size: 28px; }
      h2 { margin: 36px 0 8px; padding-top: 8px; border-top: 1px solid #e3e6ea; font-size: 21px; }
      .lead { margin-top: 0; color: #4b5560; }
      nav { margin: 18px 0; padding: 8px 12px; background: #f1f3f5; border-radius: 6px; font-size: 14px; }
      nav a { color: #0b5cad; text-decoration: none; }
      table { border-collapse: collapse; }
      table.facts { width: 100%; }
      table.facts th { text-align: left; vertical-align: top; width: 190px; padding: 4px 12px 4px 0; color: #4b5560;
        font-weight: 600; }
      table.facts td { padding: 4px 0; }
      .scroll { overflow-x: auto; }
      table.results { width: 100%; font-size: 13px; font-variant-numeric: tabular-nums; }
      table.results th, table.results td { padding: 5px 6px; border-bottom: 1px solid #e3e6ea; text-align: right;
        white-space: nowrap; }
      table.results td:last-child, table.results td.why { text-align: left; white-space: normal; }
      table.results thead th { background: #f1f3f5; font-weight: 600; }
      table.results thead th:first-child { text-align: left; }
      table.results td small { color: #6b7580; }
      table.results tbody th { text-align: left; font-weight: 600; }
      tr.ours { background: #fff4ea; }
      .swatch { display: inline-block; width: 11px; height: 11px; margin-right: 6px; border-radius: 2px;
        vertical-align: baseline; }
      .why { color: #5b6570; }
      .better { color: #1a7f37; }
      .worse { color: #c01c28; }
      .noise { color: #6b7580; }
      figure { margin: 12px 0; }
      figure img { max-width: 100%; height: auto; }
      .note { font-size: 13.5px; color: #4b5560; }
      code { font-size: 13px; background: #f1f3f5; padding: 1px 4px; border-radius: 3px; }
      dt { margin-top: 8px; font-weight: 600; }
      dd { margin-left: 18px; }
      footer { margin-top: 36px; font-size: 13px; color: #5b6570; }
      """;
}
