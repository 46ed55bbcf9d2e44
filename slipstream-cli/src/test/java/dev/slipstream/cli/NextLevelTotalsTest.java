/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.slipstream.ListEntry;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@code du}'s sums, fed keys in S3's order: each common prefix handed on once, when the listing has passed it. */
class NextLevelTotalsTest {
  private static ListEntry object(String key, long size) {
    return new ListEntry(key, size, null, null);
  }

  @Test
  void eachCommonPrefixIsHandedOnWhenTheFirstKeyPastItArrives() throws IOException {
    List<NextLevelTotals.Total> out = new ArrayList<>();
    NextLevelTotals totals = new NextLevelTotals("logs/", out::add);
    totals.add(object("logs/", 0)); // the prefix's own marker: in the total only
    totals.add(object("logs/2025/", 0)); // a marker of a subdirectory: in its total
    totals.add(object("logs/2025/a", 10));
    totals.add(object("logs/2025/deep/b", 20));
    assertThat(out).isEmpty();
    totals.add(object("logs/2026/c", 5));
    assertThat(out).containsExactly(new NextLevelTotals.Total("logs/2025/", 30, 3));
    totals.add(object("logs/x.csv", 7)); // directly under the prefix: in the total only
    totals.add(object("logs/y/z", 1));
    NextLevelTotals.Total total = totals.finish();
    assertThat(out).containsExactly(new NextLevelTotals.Total("logs/2025/", 30, 3),
        new NextLevelTotals.Total("logs/2026/", 5, 1), new NextLevelTotals.Total("logs/y/", 1, 1));
    assertThat(total).isEqualTo(new NextLevelTotals.Total("logs/", 43, 7));
  }

  @Test
  void aPrefixWithoutSlashGroupsAsS3sCommonPrefixes() throws IOException {
    List<String> groups = new ArrayList<>();
    NextLevelTotals totals = new NextLevelTotals("logs", t -> groups.add(t.prefix()));
    for (String key : List.of("logs.csv", "logs/a", "logs/b/c", "logs2/d")) {
      totals.add(object(key, 1));
    }
    assertThat(totals.finish().objects()).isEqualTo(4);
    assertThat(groups).containsExactly("logs/", "logs2/");
  }

  @Test
  void withoutASinkOnlyTheTotalIsKept() throws IOException {
    NextLevelTotals totals = new NextLevelTotals("", null);
    totals.add(object("a/b", 3));
    totals.add(object("c", 4));
    assertThat(totals.finish()).isEqualTo(new NextLevelTotals.Total("", 7, 2));
  }
}
