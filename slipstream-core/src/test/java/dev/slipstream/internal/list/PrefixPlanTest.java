/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.list;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** Everything under a prefix: what it asks for, and where it cuts a long listing. */
class PrefixPlanTest {
  private static final int PAGE = 1000;
  private static final ListingPlan.DelimiterProbe NO_PROBE = (prefix, after) -> {
    throw new AssertionError("no listing expected, asked for " + prefix + " after " + after);
  };

  @Test
  void itListsEverythingUnderItsPrefixFromTheStart() {
    PrefixPlan plan = new PrefixPlan("data/t/");
    assertThat(plan.prefix()).isEqualTo("data/t/");
    assertThat(plan.startAfter()).isNull();
    for (String k : new String[] {"data/t/", "data/t/a", "data/t/x/y/z", "data/t/\uD83D\uDE00"}) {
      assertThat(plan.accepts(k)).as(k).isTrue();
      assertThat(plan.pastEnd(k)).as(k).isFalse();
    }
  }

  @Test
  void nothingIsCutForOneRangeOrAnEmptyPageAndNothingListed() throws IOException {
    PrefixPlan plan = new PrefixPlan("t/");
    assertThat(plan.splitPoints(List.of("t/a", "t/b"), 1, NO_PROBE)).isEmpty();
    assertThat(plan.splitPoints(List.of("t/a", "t/b"), 0, NO_PROBE)).isEmpty();
    assertThat(plan.splitPoints(List.of(), 8, NO_PROBE)).isEmpty();
  }

  @Test
  void theProbeListsOneLevelDownUnderThePrefixAfterTheFirstPage() throws IOException {
    Keys keys = partitions("t/", 20, 100);
    PrefixPlan plan = new PrefixPlan("t/");
    List<String> page = keys.firstPage(plan, PAGE);
    List<String> asked = new ArrayList<>();
    plan.splitPoints(page, 4, (prefix, after) -> {
      asked.add(prefix + " | " + after);
      return keys.children(prefix, after, PAGE);
    });
    assertThat(asked).containsExactly("t/ | " + page.get(page.size() - 1));
  }

  @Test
  void aPartitionedTreeIsCutAtSubPrefixesAfterTheFirstPage() throws IOException {
    Keys keys = partitions("t/", 20, 100); // t/year=2000/ .. t/year=2019/, 100 keys each
    PrefixPlan plan = new PrefixPlan("t/");
    List<String> page = keys.firstPage(plan, PAGE);
    String last = page.get(page.size() - 1);
    List<String> points = plan.splitPoints(page, 4, probe(keys));

    assertThat(points).hasSize(3);
    List<String> after = keys.children("t/", last, PAGE);
    for (String p : points) {
      assertThat(after).as("a sub-prefix listed after the first page").contains(p + "/");
    }
    assertContract(points, page, 4, "t/");
    // each range holds whole partitions, and none is empty
    List<List<String>> ranges = ranges(keys, plan, page, points);
    for (List<String> r : ranges) {
      assertThat(r).isNotEmpty();
      assertThat(r.size() % 100).isZero();
    }
  }

  @Test
  void theSubPrefixTheFirstPageEndsInsideIsNoBoundary() throws IOException {
    Keys keys = partitions("t/", 4, 100);
    PrefixPlan plan = new PrefixPlan("t/");
    List<String> page = keys.firstPage(plan, 150); // ends in the middle of t/year=2001/
    assertThat(page.get(page.size() - 1)).startsWith("t/year=2001/");
    List<String> points = plan.splitPoints(page, 8, probe(keys));
    assertThat(points).doesNotContain("t/year=2001", "t/year=2000").isNotEmpty();
    assertContract(points, page, 8, "t/");
  }

  @Test
  void aFlatKeySpaceIsCutAlongItsCounter() throws IOException {
    // the example of the class comment: after part-00000 .. part-00999, boundaries part-2, part-5, part-7
    List<String> all = new ArrayList<>();
    for (int i = 0; i < 10_000; i++) {
      all.add(String.format("logs/part-%05d", i));
    }
    Keys keys = new Keys(all);
    PrefixPlan plan = new PrefixPlan("logs/");
    List<String> page = keys.firstPage(plan, PAGE);
    assertThat(page.get(page.size() - 1)).isEqualTo("logs/part-00999");
    List<String> points = plan.splitPoints(page, 4, probe(keys));
    assertThat(points).containsExactly("logs/part-2", "logs/part-5", "logs/part-7");
  }

  @Test
  void aHexCounterIsCutOverTheHexDigits() throws IOException {
    List<String> all = new ArrayList<>();
    for (int i = 0; i < 0x10000; i += 3) {
      all.add(String.format("h/%04x", i));
    }
    Keys keys = new Keys(all);
    PrefixPlan plan = new PrefixPlan("h/");
    List<String> page = keys.firstPage(plan, PAGE); // h/0000 .. h/0bb5: the counter's top digit is '0'
    List<String> points = plan.splitPoints(page, 4, probe(keys));
    // the rest of the hex alphabet above the page, cut evenly: 16 digits in 4
    assertThat(points).containsExactly("h/4", "h/8", "h/c");
    assertContract(points, page, 4, "h/");
  }

  @Test
  void keysWithoutACounterAreNotCut() throws IOException {
    Keys keys = new Keys(List.of("p/!a", "p/#b", "p/~c", "p/~d"));
    PrefixPlan plan = new PrefixPlan("p/");
    assertThat(plan.splitPoints(List.of("p/!a", "p/#b", "p/~c"), 4, probe(keys))).isEmpty();
  }

  @Test
  void theCounterIsNotLookedForInThePrefix() {
    // first and last key differ only inside the prefix's length: no digit of theirs to cut along
    assertThat(PrefixPlan.counterSplit("run-10", "run-19", 4, 6)).isEmpty();
    // the counter's run of digits stops at the prefix: "run-1" is the prefix, its '1' is not the counter's
    List<String> points = PrefixPlan.counterSplit("run-100", "run-129", 4, 5);
    assertThat(points).isNotEmpty().allSatisfy(p -> assertThat(p).startsWith("run-1"));
  }

  @Test
  void boundariesKeepTheContractOnRandomKeySpaces() throws IOException {
    String[] parts = {"a", "b", "0", "1", "9", "f", "x-", "a/", "b/", "c/", "d=1/", "d=2/", "\u00e9/", "\uD83D\uDE00/",
        "\ufffd/", "Z", "_"};
    Random random = new Random(42);
    for (int round = 0; round < 200; round++) {
      String prefix = random.nextBoolean() ? "p/" : "";
      List<String> all = new ArrayList<>();
      int n = 50 + random.nextInt(400);
      for (int i = 0; i < n; i++) {
        StringBuilder sb = new StringBuilder(prefix);
        int len = 1 + random.nextInt(5);
        for (int k = 0; k < len; k++) {
          sb.append(parts[random.nextInt(parts.length)]);
        }
        sb.append(random.nextInt(100));
        all.add(sb.toString());
      }
      all.add("q/outside");
      Keys keys = new Keys(all);
      PrefixPlan plan = new PrefixPlan(prefix);
      List<String> page = keys.firstPage(plan, 1 + random.nextInt(40));
      int ranges = 2 + random.nextInt(8);
      List<String> points = plan.splitPoints(page, ranges, probe(keys));
      assertContract(points, page, ranges, prefix);
      // cut there, the ranges together are the whole listing, once
      assertThat(keys.listWith(plan, points)).isEqualTo(keys.list(prefix, null));
    }
  }

  // ---- helpers ---------------------------------------------------------------------------------

  /** {@code prefix}year=2000/ .. : {@code dirs} partitions of {@code perDir} keys. */
  static Keys partitions(String prefix, int dirs, int perDir) {
    List<String> all = new ArrayList<>();
    for (int d = 0; d < dirs; d++) {
      for (int i = 0; i < perDir; i++) {
        all.add(String.format("%syear=%d/part-%04d.parquet", prefix, 2000 + d, i));
      }
    }
    all.add("u/unrelated");
    return new Keys(all);
  }

  static ListingPlan.DelimiterProbe probe(Keys keys) {
    return (prefix, after) -> keys.children(prefix, after, PAGE);
  }

  /** What {@link ListingPlan#splitPoints} promises, whatever the keys. */
  static void assertContract(List<String> points, List<String> page, int ranges, String prefix) {
    String last = page.get(page.size() - 1);
    assertThat(points.size()).isLessThanOrEqualTo(ranges - 1);
    for (int i = 0; i < points.size(); i++) {
      String p = points.get(i);
      assertThat(KeyOrderTest.UTF8_BYTES.compare(p, last)).as("%s after the page's last key %s", p, last).isPositive();
      assertThat(p).startsWith(prefix);
      if (i > 0) {
        assertThat(KeyOrderTest.UTF8_BYTES.compare(points.get(i - 1), p)).as("in increasing order: %s", points)
            .isNegative();
      }
    }
  }

  /** The keys after the first page, cut at {@code points}: range 0 goes on from the page's last key. */
  private static List<List<String>> ranges(Keys keys, ListingPlan plan, List<String> page, List<String> points) {
    List<String> starts = new ArrayList<>();
    starts.add(page.get(page.size() - 1));
    starts.addAll(points);
    List<List<String>> out = new ArrayList<>();
    for (int r = 0; r < starts.size(); r++) {
      String upper = r + 1 < starts.size() ? starts.get(r + 1) : null;
      List<String> range = new ArrayList<>();
      for (String k : keys.list(plan.prefix(), starts.get(r))) {
        if (upper != null && KeyOrderTest.UTF8_BYTES.compare(k, upper) > 0) {
          break;
        }
        range.add(k);
      }
      out.add(range);
    }
    return out;
  }
}
