/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * A run beside an earlier one (its baseline): for every workload and reader both ran, the change of the
 * median throughput, and whether it is real. A change is real only when it lies outside both runs' spread:
 * the new run's slowest run is faster than the baseline's fastest (better), or its fastest is slower than
 * the baseline's slowest (worse). Overlapping min-max ranges are noise; with a single run on either side
 * there is no spread to judge by, and the change is not called real either. Also says in what the
 * baseline's conditions differ (link profile, sizes, runs), which makes any comparison doubtful.
 *
 * @param baseline the earlier run
 * @param source where it was read from, as the user gave it
 * @param missing fields the baseline's results.json lacks (see {@link ResultsJson.Loaded#missing()})
 * @param changes one per workload and reader of the new run that the baseline has as well
 * @param differences the baseline's conditions that differ from the new run's, in words; empty when alike
 */
public record Comparison(Results baseline, String source, List<String> missing, List<Change> changes,
    List<String> differences) {

  /** What a change is. */
  public enum Verdict {
    /** Outside both spreads, faster. */
    BETTER,
    /** Outside both spreads, slower. */
    WORSE,
    /** The min-max ranges overlap: noise. */
    WITHIN_SPREAD,
    /** A side has a single run (or no min and max recorded): no spread to judge by. */
    NO_SPREAD,
    /** A side has no throughput (failed, skipped, not applicable, or absent from the baseline). */
    NOT_COMPARABLE
  }

  /**
   * The change of one reader on one workload.
   *
   * @param workload the workload
   * @param reader the reader
   * @param before the baseline's row, or null when the baseline did not run it
   * @param after the new run's row
   * @param ratio new median over baseline median (NaN when not comparable)
   * @param verdict what the change is
   */
  public record Change(String workload, String reader, Result before, Result after, double ratio, Verdict verdict) {
    /** The change in percent, e.g. "+12%", "-3%", or why there is none. */
    public String label() {
      if (verdict == Verdict.NOT_COMPARABLE) {
        return before == null ? "not in baseline" : "n/a";
      }
      double pct = (ratio - 1) * 100;
      return String.format(Locale.ROOT, "%+.0f%%", Math.abs(pct) < 0.5 ? 0.0 : pct);
    }

    public boolean real() {
      return verdict == Verdict.BETTER || verdict == Verdict.WORSE;
    }
  }

  public Comparison {
    Objects.requireNonNull(baseline, "baseline");
    missing = List.copyOf(missing);
    changes = List.copyOf(changes);
    differences = List.copyOf(differences);
  }

  /** Compares {@code now} with {@code loaded}, read from {@code source}. */
  public static Comparison of(Results now, ResultsJson.Loaded loaded, String source) {
    Results base = loaded.results();
    List<Change> changes = new ArrayList<>();
    for (String w : now.workloads().keySet()) {
      for (String reader : now.readers().keySet()) {
        Result after = now.row(w, reader);
        if (after != null) {
          changes.add(change(base.row(w, reader), after));
        }
      }
    }
    return new Comparison(base, source, loaded.missing(), changes, differences(now, base, loaded.missing()));
  }

  /** The change from {@code before} (may be null) to {@code after}. */
  static Change change(Result before, Result after) {
    if (before == null || !measured(before) || !measured(after)) {
      return new Change(after.workload(), after.reader(), before, after, Double.NaN, Verdict.NOT_COMPARABLE);
    }
    double ratio = after.mbps() / before.mbps();
    Verdict v;
    if (!spread(before) || !spread(after)) {
      v = Verdict.NO_SPREAD;
    } else if (after.mbpsMin() > before.mbpsMax()) {
      v = Verdict.BETTER;
    } else if (after.mbpsMax() < before.mbpsMin()) {
      v = Verdict.WORSE;
    } else {
      v = Verdict.WITHIN_SPREAD;
    }
    return new Change(after.workload(), after.reader(), before, after, ratio, v);
  }

  /** The change of {@code reader} on {@code workload}, or null. */
  public Change change(String workload, String reader) {
    return changes.stream().filter(c -> c.workload().equals(workload) && c.reader().equals(reader)).findFirst()
        .orElse(null);
  }

  private static boolean measured(Result r) {
    return r.runs() > 0 && r.mbps() > 0 && Double.isFinite(r.mbps());
  }

  private static boolean spread(Result r) {
    return r.runs() >= 2 && Double.isFinite(r.mbpsMin()) && Double.isFinite(r.mbpsMax());
  }

  private static List<String> differences(Results now, Results base, List<String> missing) {
    List<String> d = new ArrayList<>();
    if (!now.profile().equals(base.profile())) {
      d.add("link profile " + base.profile() + " (this run: " + now.profile() + ")");
    }
    double a = now.linkCapacityMbps();
    double b = base.linkCapacityMbps();
    if (Double.isFinite(a) && Double.isFinite(b) && Math.abs(a - b) > 0.1 * Math.max(a, b)) {
      d.add("measured link capacity " + Report.num(b, 1) + " MB/s (this run: " + Report.num(a, 1)
          + " MB/s), more than 10% apart");
    }
    for (var c : BenchSizes.class.getRecordComponents()) {
      try {
        Object x = c.getAccessor().invoke(now.sizes());
        Object y = c.getAccessor().invoke(base.sizes());
        String name = c.getName().replaceAll("([A-Z])", "_$1").toLowerCase(java.util.Locale.ROOT);
        if (!x.equals(y) && !missing.contains("sizes." + name)) {
          d.add("size " + name + " " + y + " (this run: " + x + ")");
        }
      } catch (ReflectiveOperationException e) {
        throw new IllegalStateException(e);
      }
    }
    if (now.runs() != base.runs()) {
      d.add(base.runs() + " measured runs (this run: " + now.runs() + ")");
    }
    return d;
  }
}
