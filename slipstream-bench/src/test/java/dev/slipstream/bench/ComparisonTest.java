/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.bench;

import static dev.slipstream.bench.TestRows.missing;
import static dev.slipstream.bench.TestRows.ok;
import static org.assertj.core.api.Assertions.assertThat;

import dev.slipstream.bench.Comparison.Verdict;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The baseline comparison's rule, on a small hand-made pair of runs: a change is real only when it lies
 * outside both runs' min-max spread; overlapping (or touching) ranges are noise; a single run has no spread.
 */
class ComparisonTest {
  private static final String W = "sequential";

  @Test
  void aChangeIsRealOnlyOutsideBothRunsSpread() {
    Result before = ok(W, "slipstream", 3, 105, 100, 110);

    assertThat(Comparison.change(before, ok(W, "slipstream", 3, 115, 111, 120)).verdict()).isEqualTo(Verdict.BETTER);
    assertThat(Comparison.change(before, ok(W, "slipstream", 3, 90, 85, 99)).verdict()).isEqualTo(Verdict.WORSE);
    // the median moved past the baseline's fastest run, but this run's slowest is within the baseline's spread
    assertThat(Comparison.change(before, ok(W, "slipstream", 3, 115, 108, 125)).verdict())
        .isEqualTo(Verdict.WITHIN_SPREAD);
    // the baseline's median lies outside this run's spread, but the spreads overlap
    assertThat(Comparison.change(before, ok(W, "slipstream", 3, 109, 106, 112)).verdict())
        .isEqualTo(Verdict.WITHIN_SPREAD);
    // touching ranges are not apart
    assertThat(Comparison.change(before, ok(W, "slipstream", 3, 115, 110, 120)).verdict())
        .isEqualTo(Verdict.WITHIN_SPREAD);
    // one run: no spread to judge by, even for a large change
    assertThat(Comparison.change(before, ok(W, "slipstream", 1, 200, 200, 200)).verdict())
        .isEqualTo(Verdict.NO_SPREAD);
    assertThat(Comparison.change(ok(W, "slipstream", 1, 100, 100, 100), ok(W, "slipstream", 3, 200, 190, 210))
        .verdict()).isEqualTo(Verdict.NO_SPREAD);
    // min and max not recorded
    assertThat(Comparison.change(ok(W, "slipstream", 3, 100, Double.NaN, Double.NaN),
        ok(W, "slipstream", 3, 200, 190, 210)).verdict()).isEqualTo(Verdict.NO_SPREAD);
  }

  @Test
  void theChangeIsTheRatioOfMediansAndItsLabelIsInPercent() {
    Comparison.Change c = Comparison.change(ok(W, "slipstream", 3, 100, 95, 105), ok(W, "slipstream", 3, 125, 120, 130));
    assertThat(c.ratio()).isEqualTo(1.25);
    assertThat(c.label()).isEqualTo("+25%");
    assertThat(c.real()).isTrue();
    Comparison.Change d = Comparison.change(ok(W, "slipstream", 3, 100, 95, 105), ok(W, "slipstream", 3, 97, 90, 101));
    assertThat(d.label()).isEqualTo("-3%");
    assertThat(d.real()).isFalse();
  }

  @Test
  void withoutAFigureOnEitherSideNothingIsCompared() {
    Result failed = missing(W, "s3a-prefetch", Result.FAILED, "boom");
    Result fine = ok(W, "s3a-prefetch", 3, 100, 90, 110);
    assertThat(Comparison.change(failed, fine).verdict()).isEqualTo(Verdict.NOT_COMPARABLE);
    assertThat(Comparison.change(fine, failed).verdict()).isEqualTo(Verdict.NOT_COMPARABLE);
    assertThat(Comparison.change(null, fine).verdict()).isEqualTo(Verdict.NOT_COMPARABLE);
    assertThat(Comparison.change(null, fine).label()).isEqualTo("not in baseline");
  }

  @Test
  void aPairOfRunsIsComparedRowByRowAndOtherConditionsAreNamed() {
    Results before = TestRows.run("s3-like", List.of(ok(W, "s3a-classic", 3, 25, 24, 26),
        ok(W, "slipstream", 3, 100, 95, 105), ok("random", "s3a-classic", 3, 5, 4, 6)));
    Results after = TestRows.run("flaky", List.of(ok(W, "s3a-classic", 3, 25.5, 24.5, 26),
        ok(W, "slipstream", 3, 130, 120, 140), ok("random", "s3a-classic", 3, 5, 4, 6),
        ok("random", "slipstream", 3, 6, 5, 7)));
    Comparison c = Comparison.of(after, new ResultsJson.Loaded(before, Path.of("results.json"), List.of("versions")),
        "old");

    assertThat(c.changes()).hasSize(4);
    assertThat(c.change(W, "s3a-classic").verdict()).isEqualTo(Verdict.WITHIN_SPREAD);
    assertThat(c.change(W, "slipstream").verdict()).isEqualTo(Verdict.BETTER);
    assertThat(c.change("random", "slipstream").verdict()).isEqualTo(Verdict.NOT_COMPARABLE);
    assertThat(c.differences()).singleElement().asString().contains("link profile s3-like");
    assertThat(c.missing()).containsExactly("versions");
  }
}
