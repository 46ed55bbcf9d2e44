/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.read;

import static org.assertj.core.api.Assertions.assertThat;

import dev.slipstream.internal.ahead.AheadFetch;
import dev.slipstream.internal.fetch.FetchRig;
import dev.slipstream.internal.fetch.Purpose;
import dev.slipstream.internal.parquet.ParquetFooter;
import dev.slipstream.internal.parquet.ParquetTestFiles;
import dev.slipstream.internal.parquet.RowGroupsAhead;
import dev.slipstream.internal.store.ScriptedStore;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A row group read ahead is a prefetch until a read claims it; then it goes ahead of every prefetch (issue
 * 42, item 6), as a block does when its reader arrives. Told by the order in which the fetch executor's
 * one thread sends the GETs, not by timing: the thread is held while the work is queued.
 */
class RowGroupsAheadPromotionTest {
  private static final int CHUNK = 64 * 1024;
  private static final int COLUMNS = 2;
  private static final int GROUP = COLUMNS * CHUNK;

  private final byte[] file = parquetFile();
  private final StreamRig rig = new StreamRig(new FetchRig(new ScriptedStore(file, FetchRig.ETAG), CHUNK, 1,
      64L << 20), 4);

  private static byte[] parquetFile() {
    try {
      return ParquetTestFiles.file(3, COLUMNS, CHUNK, 0, 0, 42);
    } catch (java.io.IOException e) {
      throw new AssertionError(e);
    }
  }

  @AfterEach
  void close() {
    rig.close();
  }

  private static long groupStart(int g) {
    return 4 + (long) g * GROUP;
  }

  @Test
  void aPieceAReadClaimsGoesAheadOfEveryPrefetch() throws Exception {
    ParquetFooter footer = ParquetFooter.parse(file, file.length, file.length);
    RowGroupsAhead ahead = new RowGroupsAhead(footer, rig.spans,
        AheadFetch.of(rig.ranges, Purpose.ROW_GROUP_AHEAD, rig.spans, rig.fetch.pool, rig.requests, rig.h.stats()),
        rig.h.stats(), CHUNK, CHUNK, 0, () -> false);
    CountDownLatch running = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    // The executor's one thread is busy: everything below waits in its queue.
    CompletableFuture<Void> busy = rig.fetch.fetcher.submitRead(true, FetchRig.token(Purpose.RANGE), () -> {
      running.countDown();
      try {
        release.await(10, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }, () -> { });
    assertThat(running.await(10, TimeUnit.SECONDS)).isTrue();
    List<CompletableFuture<Void>> all = new ArrayList<>();
    List<String> prefetches = new ArrayList<>();
    for (int i = 0; i < 3; i++) { // prefetch work queued first: row group 2's chunks, read ahead for others
      long p = groupStart(2) + i * 1000L;
      all.add(rig.ranges.range(p, new byte[1000], 0, 1000, Purpose.ROW_GROUP_AHEAD).done());
      prefetches.add(StreamRig.get(p, p + 1000));
    }
    byte[] group0 = new byte[GROUP];
    byte[] group1 = new byte[GROUP];
    all.add(rig.vectoredRead(ahead, groupStart(0), group0)); // plans row group 1's pieces, queued
    all.add(rig.vectoredRead(ahead, groupStart(1), group1)); // claims them: a reader waits for them now

    release.countDown();
    busy.get(10, TimeUnit.SECONDS);
    CompletableFuture.allOf(all.toArray(CompletableFuture[]::new)).get(10, TimeUnit.SECONDS);

    assertThat(group1).isEqualTo(rig.data(groupStart(1), groupStart(2)));
    List<String> order = rig.fetch.store.ranges();
    List<String> pieces = List.of(StreamRig.get(groupStart(1), groupStart(1) + CHUNK),
        StreamRig.get(groupStart(1) + CHUNK, groupStart(2)));
    assertThat(order).containsAll(pieces).containsAll(prefetches);
    int lastPiece = pieces.stream().mapToInt(order::indexOf).max().orElseThrow();
    int firstPrefetch = prefetches.stream().mapToInt(order::indexOf).min().orElseThrow();
    assertThat(lastPiece).as("GETs in the order sent: %s", order).isLessThan(firstPrefetch);
  }
}
