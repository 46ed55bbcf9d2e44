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
import dev.slipstream.internal.source.RangeThrough;
import dev.slipstream.internal.store.ScriptedStore;
import java.io.InterruptedIOException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A read that claimed a row group piece still being fetched is not failed because another thread, reading
 * the same stream, was interrupted (issue 42, item 4): the interrupt cancels that thread's own range, not
 * the piece. Scripted by latches on the store's answers, not by timing.
 */
class ClaimedPieceInterruptTest {
  private static final int CHUNK = 512 * 1024;
  private static final int COLUMNS = 2;
  private static final int GROUP = COLUMNS * CHUNK;

  private final byte[] file = parquetFile();
  private final StreamRig rig = new StreamRig(new FetchRig(new ScriptedStore(file, FetchRig.ETAG), CHUNK, 4,
      64L << 20), 4);
  private final CountDownLatch piecesAsked = new CountDownLatch(2);
  private final CountDownLatch piecesAnswer = new CountDownLatch(1);
  private final CountDownLatch otherAsked = new CountDownLatch(2);
  private final CountDownLatch otherAnswer = new CountDownLatch(1);

  private static byte[] parquetFile() {
    try {
      return ParquetTestFiles.file(4, COLUMNS, CHUNK, 0, 0, 7);
    } catch (java.io.IOException e) {
      throw new AssertionError(e);
    }
  }

  @AfterEach
  void close() {
    piecesAnswer.countDown();
    otherAnswer.countDown();
    rig.close();
  }

  private static long groupStart(int g) {
    return 4 + (long) g * GROUP;
  }

  /** Every GET: row group 1's held until {@link #piecesAnswer}, those from row group 2 on until {@link #otherAnswer}. */
  private ScriptedStore.Answer answer() {
    return (start, end) -> {
      if (start >= groupStart(1) && start < groupStart(2)) {
        piecesAsked.countDown();
        await(piecesAnswer);
      } else if (start >= groupStart(2)) {
        otherAsked.countDown();
        await(otherAnswer);
      }
      return rig.fetch.store.whole().to(start, end);
    };
  }

  private static void await(CountDownLatch latch) {
    try {
      latch.await(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  @Test
  void anotherThreadsInterruptNeverFailsAReadOfAPieceInFlight() throws Exception {
    for (int i = 0; i < 20; i++) {
      rig.fetch.store.then(answer());
    }
    RowGroupsAhead ahead = new RowGroupsAhead(ParquetFooter.parse(file, file.length, file.length), rig.spans,
        AheadFetch.of(rig.ranges, Purpose.ROW_GROUP_AHEAD, rig.spans, rig.fetch.pool, rig.requests, rig.h.stats()),
        rig.h.stats(), CHUNK, CHUNK, 0, () -> false);
    rig.vectoredRead(ahead, groupStart(0), new byte[GROUP]).get(10, TimeUnit.SECONDS);
    assertThat(piecesAsked.await(10, TimeUnit.SECONDS)).as("row group 1's pieces are in flight").isTrue();

    // Another thread reads a large range of the same stream (parts on the fetch executor), and waits.
    int len = RangeThrough.PART + 100;
    CompletableFuture<Throwable> other = new CompletableFuture<>();
    Thread reader = new Thread(() -> {
      try {
        rig.jumps.readRange(groupStart(2), new byte[len], 0, len,
            new ReadPlanner.Decision(ReadPlanner.Kind.EXACT, 0, false), false);
        other.complete(null);
      } catch (Throwable t) {
        other.complete(t);
      }
    }, "interrupted-reader");
    reader.start();
    assertThat(otherAsked.await(10, TimeUnit.SECONDS)).as("its parts are in flight").isTrue();

    byte[] group1 = new byte[GROUP];
    CompletableFuture<Void> claimed = rig.vectoredRead(ahead, groupStart(1), group1); // claims the pieces
    reader.interrupt();
    assertThat(other.get(10, TimeUnit.SECONDS)).isInstanceOf(InterruptedIOException.class);
    piecesAnswer.countDown();

    claimed.get(10, TimeUnit.SECONDS);
    assertThat(group1).isEqualTo(rig.data(groupStart(1), groupStart(2)));
  }
}
