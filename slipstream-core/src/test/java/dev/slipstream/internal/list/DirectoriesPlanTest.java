/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.list;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The merge-join: one flat listing of the directories' common parent must give exactly what listing each
 * directory of interest would, in S3's order; and its boundaries are directories of interest.
 */
class DirectoriesPlanTest {
  private static final ListingPlan.DelimiterProbe NO_PROBE = (prefix, after) -> {
    throw new AssertionError("the merge-join needs no listing to find boundaries");
  };
  private static final String GRINNING = "\uD83D\uDE00"; // U+1F600

  @Test
  void itListsTheCommonParentFromJustBeforeTheFirstDirectory() {
    DirectoriesPlan plan = new DirectoriesPlan(
        List.of("t/d=2020-01-03/", "t/d=2020-01-01/", "t/d=2020-02-07/", "t/d=2020-01-01/"), false);
    assertThat(plan.prefix()).isEqualTo("t/d=2020-0");
    // the first directory without its slash: its marker "t/d=2020-01-01/" and every key in it come after
    assertThat(plan.startAfter()).isEqualTo("t/d=2020-01-01");
  }

  @Test
  void oneDirectoryIsListedAsItsPrefixFromTheStart() {
    DirectoriesPlan plan = new DirectoriesPlan(List.of("t/d=1/"), false);
    assertThat(plan.prefix()).isEqualTo("t/d=1/");
    assertThat(plan.startAfter()).isNull();
  }

  @Test
  void directoriesAreTakenInS3OrderNotJavaStringOrder() {
    // Java's compareTo puts U+1F600 (a surrogate pair) before U+FFFD; S3 lists it after
    DirectoriesPlan plan = new DirectoriesPlan(List.of("x/" + GRINNING + "/", "x/\ufffd/"), false);
    assertThat(plan.prefix()).isEqualTo("x/");
    assertThat(plan.startAfter()).isEqualTo("x/\ufffd");
    assertThat(plan.pastEnd("x/\ufffd/a")).isFalse();
    assertThat(plan.pastEnd("x/" + GRINNING + "/a")).isFalse();
    assertThat(plan.pastEnd("x/" + GRINNING + "0")).isTrue();
  }

  @Test
  void withoutRecursionOnlyKeysDirectlyInADirectoryOfInterestAreKept() {
    DirectoriesPlan plan = new DirectoriesPlan(List.of("t/d=1/", "t/d=3/"), false);
    assertThat(plan.accepts("t/d=1/part-0")).isTrue();
    assertThat(plan.accepts("t/d=3/part-0")).isTrue();
    assertThat(plan.accepts("t/d=1/")).as("the directory's marker, as listing the directory shows it").isTrue();
    assertThat(plan.accepts("t/d=1/sub/part-0")).as("one level down").isFalse();
    assertThat(plan.accepts("t/d=2/part-0")).as("a pruned directory").isFalse();
    assertThat(plan.accepts("t/d=10/part-0")).as("a name that extends it").isFalse();
    assertThat(plan.accepts("t/d=1-b/part-0")).isFalse();
    assertThat(plan.accepts("t/d=1")).isFalse();
  }

  @Test
  void withRecursionEverythingUnderADirectoryOfInterestIsKept() {
    DirectoriesPlan plan = new DirectoriesPlan(List.of("t/d=1/", "t/d=3/"), true);
    assertThat(plan.accepts("t/d=1/part-0")).isTrue();
    assertThat(plan.accepts("t/d=1/sub/deeper/part-0")).isTrue();
    assertThat(plan.accepts("t/d=3/x")).isTrue();
    assertThat(plan.accepts("t/d=2/part-0")).isFalse();
    assertThat(plan.accepts("t/d=10/part-0")).isFalse();
    assertThat(plan.accepts("t/d=1-b/part-0")).isFalse();
    assertThat(plan.accepts("t/d=0/part-0")).isFalse();
    assertThat(plan.accepts("t/d=4/part-0")).isFalse();
  }

  @Test
  void theListingEndsAfterTheLastDirectory() {
    DirectoriesPlan plan = new DirectoriesPlan(List.of("t/d=1/", "t/d=3/"), true);
    assertThat(plan.pastEnd("t/d=0/x")).isFalse();
    assertThat(plan.pastEnd("t/d=2/x")).isFalse();
    assertThat(plan.pastEnd("t/d=3/")).isFalse();
    assertThat(plan.pastEnd("t/d=3/x/y")).isFalse();
    assertThat(plan.pastEnd("t/d=3-b/x")).as("'-' sorts before '/': still before the last directory").isFalse();
    assertThat(plan.pastEnd("t/d=30/x")).isTrue();
    assertThat(plan.pastEnd("t/d=4/x")).isTrue();
    assertThat(plan.pastEnd("u/x")).isTrue();
  }

  @Test
  void aDirectoryInsideAnotherOfInterestAddsNothingToARecursiveListing() {
    List<String> dirs = List.of("a/", "a/b/", "a/b/c/", "c/");
    Keys keys = new Keys(List.of("a/1", "a/b/2", "a/b/c/3", "b/4", "c/5", "c/d/6"));
    DirectoriesPlan recursive = new DirectoriesPlan(dirs, true);
    assertThat(keys.listWith(recursive, List.of())).containsExactly("a/1", "a/b/2", "a/b/c/3", "c/5", "c/d/6");
    // and it is no boundary: the ranges are cut at directories that stand for their own keys
    assertThat(recursive.splitPoints(List.of("a/1"), 10, NO_PROBE)).isSubsetOf("c");
    DirectoriesPlan flat = new DirectoriesPlan(dirs, false);
    assertThat(keys.listWith(flat, List.of())).containsExactly("a/1", "a/b/2", "a/b/c/3", "c/5");
    assertThat(flat.splitPoints(List.of("a/1"), 10, NO_PROBE)).isNotEmpty().isSubsetOf("a/b", "a/b/c", "c");
  }

  @Test
  void nothingIsCutForOneRangeOrAnEmptyPage() {
    DirectoriesPlan plan = new DirectoriesPlan(List.of("t/d=1/", "t/d=2/", "t/d=3/"), false);
    assertThat(plan.splitPoints(List.of("t/d=1/a"), 1, NO_PROBE)).isEmpty();
    assertThat(plan.splitPoints(List.of(), 4, NO_PROBE)).isEmpty();
  }

  @Test
  void boundariesAreDirectoriesOfInterestNotYetReached() {
    List<String> dirs = new ArrayList<>();
    for (int d = 0; d < 40; d++) {
      dirs.add(String.format("t/d=%02d/", d));
    }
    DirectoriesPlan plan = new DirectoriesPlan(dirs, false);
    String lastKey = "t/d=09/part-5";
    List<String> points = plan.splitPoints(List.of("t/d=00/part-0", lastKey), 5, NO_PROBE);
    assertThat(points).hasSize(4);
    for (String p : points) {
      assertThat(dirs).contains(p + "/");
      assertThat(KeyOrderTest.UTF8_BYTES.compare(p, lastKey)).isPositive();
    }
    PrefixPlanTest.assertContract(points, List.of(lastKey), 5, plan.prefix());
  }

  @Test
  void theMergeJoinGivesWhatListingEachDirectoryGivesAndSoDoItsRanges() {
    String[] names = {"a", "b", "a-b", "a0", "a.x", "d=1", "d=10", "d=2", "\u00e9", "\ufffd", GRINNING, "Z"};
    Random random = new Random(11);
    for (int round = 0; round < 300; round++) {
      // a tree of keys two or three levels deep under "t/", plus neighbours of it
      List<String> all = new ArrayList<>();
      Set<String> allDirs = new LinkedHashSet<>();
      int n = 20 + random.nextInt(300);
      for (int i = 0; i < n; i++) {
        StringBuilder sb = new StringBuilder(random.nextInt(10) == 0 ? "s/" : "t/");
        int depth = 1 + random.nextInt(3);
        for (int k = 0; k < depth; k++) {
          sb.append(names[random.nextInt(names.length)]).append('/');
          if (random.nextInt(6) == 0) {
            allDirs.add(sb.toString()); // a directory of interest, with keys in it
          }
        }
        // a marker object ("dir/"), or a file in the directory
        all.add(random.nextInt(15) == 0 ? sb.toString() : sb + names[random.nextInt(names.length)]);
      }
      for (int i = 0; i < 3; i++) {
        allDirs.add("t/" + names[random.nextInt(names.length)] + "/"); // maybe with no key at all
        all.add("t/" + names[random.nextInt(names.length)]); // a key named as a directory, without the slash
      }
      Keys keys = new Keys(all);
      for (boolean recursive : new boolean[] {false, true}) {
        // one level down, directories of interest inside others are left to the test of that bug (below)
        Set<String> dirs = recursive ? allDirs : outermost(allDirs);
        DirectoriesPlan plan = new DirectoriesPlan(dirs, recursive);
        List<String> expected = eachDirectory(keys, dirs, recursive);
        assertThat(keys.listWith(plan, List.of())).as("round %d, recursive %s, dirs %s", round, recursive, dirs)
            .isEqualTo(expected);

        List<String> page = keys.firstPage(plan, 1 + random.nextInt(20));
        if (page.isEmpty()) {
          continue;
        }
        int ranges = 2 + random.nextInt(6);
        List<String> points = plan.splitPoints(page, ranges, NO_PROBE);
        PrefixPlanTest.assertContract(points, page, ranges, plan.prefix());
        for (String p : points) {
          assertThat(dirs).contains(p + "/");
        }
        assertThat(keys.listWith(plan, points)).as("round %d, recursive %s, cut at %s", round, recursive, points)
            .isEqualTo(expected);
      }
    }
  }

  @Test
  void withoutRecursionADirectoryOfInterestInsideAnotherDoesNotEndTheListingEarly() {
    Keys keys = new Keys(List.of("a/1", "a/b/2", "a/c", "a/d/3", "b/4"));
    DirectoriesPlan plan = new DirectoriesPlan(List.of("a/", "a/b/"), false);
    assertThat(keys.listWith(plan, List.of())).isEqualTo(eachDirectory(keys, Set.of("a/", "a/b/"), false))
        .containsExactly("a/1", "a/b/2", "a/c");
  }

  /** The directories not inside another one of the set. */
  private static Set<String> outermost(Set<String> dirs) {
    Set<String> out = new LinkedHashSet<>();
    for (String d : dirs) {
      if (dirs.stream().noneMatch(o -> !o.equals(d) && d.startsWith(o))) {
        out.add(d);
      }
    }
    return out;
  }

  /** The reference: each directory listed on its own (recursively or one level), merged in S3 order. */
  private static List<String> eachDirectory(Keys keys, Set<String> dirs, boolean recursive) {
    Set<String> out = new LinkedHashSet<>();
    for (String d : dirs) {
      for (String k : keys.list(d, null)) {
        if (recursive || k.indexOf('/', d.length()) < 0) {
          out.add(k);
        }
      }
    }
    return new Keys(out).all();
  }
}
