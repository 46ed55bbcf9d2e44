/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.list;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@link ListingPlan#evenly}: how both plans pick their boundaries among candidates. */
class ListingPlanTest {
  private static List<String> candidates(int n) {
    List<String> l = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      l.add(String.format("k%03d", i));
    }
    return l;
  }

  @Test
  void nothingToPickOrNoneAskedForGivesNothing() {
    assertThat(ListingPlan.evenly(List.of(), 3)).isEmpty();
    assertThat(ListingPlan.evenly(candidates(10), 0)).isEmpty();
    assertThat(ListingPlan.evenly(candidates(10), -1)).isEmpty();
  }

  @Test
  void picksAreSpreadEvenlyOverTheCandidates() {
    // 3 picks among 100 cut them in 4 equal parts
    assertThat(ListingPlan.evenly(candidates(100), 3)).containsExactly("k025", "k050", "k075");
    assertThat(ListingPlan.evenly(candidates(10), 1)).containsExactly("k005");
  }

  @Test
  void atMostNPicksInIncreasingOrderEachACandidateAndNeverTheFirstWhenThereAreMoreCandidates() {
    for (int size = 1; size <= 40; size++) {
      List<String> c = candidates(size);
      for (int n = 1; n < size; n++) {
        List<String> picks = ListingPlan.evenly(c, n);
        assertThat(picks).as("%d of %d", n, size).hasSize(n).isSubsetOf(c).isSorted().doesNotHaveDuplicates()
            .doesNotContain(c.get(0));
      }
    }
  }

  @Test
  void asManyPicksAsCandidatesAtMost() {
    for (int size = 1; size <= 20; size++) {
      List<String> c = candidates(size);
      for (int n = size; n <= size + 5; n++) {
        List<String> picks = ListingPlan.evenly(c, n);
        assertThat(picks).as("%d of %d", n, size).hasSizeLessThanOrEqualTo(size).isSubsetOf(c).isSorted()
            .doesNotHaveDuplicates();
      }
    }
  }

  @Test
  void theFirstCandidateOnlyWhenThereAreNoMoreCandidatesThanPicks() {
    for (int size = 1; size <= 20; size++) {
      List<String> c = candidates(size);
      for (int n = 1; n < size; n++) {
        assertThat(ListingPlan.evenly(c, n)).as("%d of %d", n, size).doesNotContain(c.get(0));
      }
    }
  }
}
