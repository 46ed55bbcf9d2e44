/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.hadoop;

import static org.assertj.core.api.Assertions.assertThat;

import dev.slipstream.ListEntry;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The kept directories of flat listings: taken once, within their TTL, never more statuses than the bound. */
class ListingReuseTest {
  private static final long TTL = TimeUnit.SECONDS.toNanos(30);

  static ListingReuse.Directory dir(String key, int files) {
    List<ListEntry> entries = new ArrayList<>();
    for (int i = 0; i < files; i++) {
      entries.add(new ListEntry(key + "/f" + i, 10, "\"e\"", null));
    }
    return new ListingReuse.Directory(key, entries, List.of(), files);
  }

  @Test
  void aDirectoryIsTakenOnceWithinItsTtlAndGoesAfterItEvenIfNobodyAsks() {
    AtomicLong now = new AtomicLong();
    ListingReuse reuse = new ListingReuse(TTL, 1000, 100, now::get);
    reuse.keep(List.of(dir("t/a", 3), dir("t/b", 3)), reuse.generation());
    assertThat(reuse.take("t/a").files()).hasSize(3);
    assertThat(reuse.take("t/a")).as("once").isNull();
    now.addAndGet(TTL);
    assertThat(reuse.entries()).as("t/b expired: its memory given back").isZero();
    assertThat(reuse.take("t/b")).isNull();
  }

  @Test
  void aGlobThatWouldHoldMoreThanTheBoundKeepsWhatFits() {
    AtomicLong now = new AtomicLong();
    ListingReuse reuse = new ListingReuse(TTL, 1000, 100, now::get);
    List<ListingReuse.Directory> dirs = new ArrayList<>();
    for (int d = 0; d < 30; d++) {
      dirs.add(dir("t/d" + d, 10));
    }
    reuse.keep(dirs, reuse.generation());
    assertThat(reuse.entries()).isEqualTo(100);
    assertThat(reuse.take("t/d9")).isNotNull();
    assertThat(reuse.take("t/d10")).as("past the bound").isNull();
    now.addAndGet(TTL); // expired directories make room for the next glob
    reuse.keep(List.of(dir("t/next", 100)), reuse.generation());
    assertThat(reuse.take("t/next")).isNotNull();
  }

  @Test
  void aListingThatStartedBeforeAChangeIsNotKept() {
    ListingReuse reuse = new ListingReuse(TTL, 1000, 100);
    long listedAt = reuse.generation();
    reuse.keep(List.of(dir("t/a", 3)), listedAt);
    reuse.clear();
    assertThat(reuse.take("t/a")).isNull();
    reuse.keep(List.of(dir("t/a", 3)), listedAt);
    assertThat(reuse.take("t/a")).as("listed before the change").isNull();
  }
}
