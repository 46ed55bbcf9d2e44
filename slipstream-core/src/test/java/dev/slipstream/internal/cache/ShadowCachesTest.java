/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.cache;

import static org.assertj.core.api.Assertions.assertThat;

import dev.slipstream.ShadowCache;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The simulated caches against an exact, plainly written LRU simulation of the same trace. */
class ShadowCachesTest {
  /** The reference: a list, most recently used last, scanned and trimmed from the front. */
  static ShadowCache simulate(long size, List<String> names, List<Long> lengths) {
    List<String> kept = new ArrayList<>();
    List<Long> keptLengths = new ArrayList<>();
    long used = 0;
    long hits = 0;
    long hitBytes = 0;
    for (int i = 0; i < names.size(); i++) {
      String n = names.get(i);
      long len = lengths.get(i);
      int at = kept.indexOf(n);
      if (at >= 0) {
        hits++;
        hitBytes += len;
        kept.add(kept.remove(at));
        keptLengths.add(keptLengths.remove(at));
        continue;
      }
      if (len > size) {
        continue;
      }
      kept.add(n);
      keptLengths.add(len);
      used += len;
      while (used > size) {
        kept.remove(0);
        used -= keptLengths.remove(0);
      }
    }
    return new ShadowCache(size, names.size(), hits, hitBytes);
  }

  @Test
  void aGeneratedTraceGivesExactlyTheHitsOfAPlainLruSimulation() {
    Random r = new Random(42);
    List<String> names = new ArrayList<>();
    List<Long> lengths = new ArrayList<>();
    for (int i = 0; i < 20_000; i++) {
      // a skewed working set: most lookups among a few hundred blocks, some among thousands
      int block = r.nextDouble() < 0.8 ? r.nextInt(300) : r.nextInt(5_000);
      names.add("obj-" + (block % 7) + "/" + block);
      lengths.add(block % 10 == 9 ? 3_000L : 8_192L); // last blocks of objects are shorter
    }
    List<Long> sizes = List.of(8_192L, 100_000L, 1_000_000L, 10_000_000L, 100_000_000L);
    ShadowCaches caches = new ShadowCaches(sizes);
    for (int i = 0; i < names.size(); i++) {
      caches.fetched(names.get(i), lengths.get(i));
    }
    List<ShadowCache> got = caches.results();
    for (int s = 0; s < sizes.size(); s++) {
      assertThat(got.get(s)).as("size %d", sizes.get(s)).isEqualTo(simulate(sizes.get(s), names, lengths));
    }
    // larger caches never do worse on the same trace (LRU is a stack algorithm)
    for (int s = 1; s < sizes.size(); s++) {
      assertThat(got.get(s).hits()).isGreaterThanOrEqualTo(got.get(s - 1).hits());
    }
    assertThat(got.get(4).hitRatio()).isGreaterThan(0.5);
  }

  @Test
  void noneConfiguredIsEmpty() {
    assertThat(new ShadowCaches(List.of()).isEmpty()).isTrue();
    assertThat(new ShadowCaches(List.of(1L)).results().get(0).hitRatio()).isNaN();
  }
}
