/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.read;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import dev.slipstream.ReadStatistics;
import dev.slipstream.internal.ahead.AheadBudget;
import dev.slipstream.internal.ahead.AheadFetch;
import dev.slipstream.internal.ahead.HeldSpans;
import dev.slipstream.internal.fetch.FetchRig;
import dev.slipstream.internal.fetch.ObjectHandle;
import dev.slipstream.internal.fetch.Purpose;
import dev.slipstream.internal.fetch.StreamRequests;
import dev.slipstream.internal.orc.OrcBuilder;
import dev.slipstream.internal.orc.OrcChunks;
import dev.slipstream.internal.orc.OrcLayout;
import dev.slipstream.internal.orc.OrcLayouts;
import dev.slipstream.internal.orc.OrcTail;
import dev.slipstream.internal.orc.StreamOrcLayout;
import dev.slipstream.internal.orc.StripeFooters;
import dev.slipstream.internal.orc.StripeStreamsAhead;
import dev.slipstream.internal.parquet.ParquetFooters;
import dev.slipstream.internal.store.ScriptedStore;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The parts that fetch ahead of an ORC reader ({@link StripeFooters}, {@link StripeStreamsAhead}) keep to
 * the stream's budget in what they hold, and a length no reader could fetch is never an allocation nor an error.
 */
@Timeout(60)
class OrcAheadBoundsTest {
  static final int BLOCK = 1 << 20;
  static final int DEPTH = 2;
  /** What a stream may hold ahead: {@code prefetch.blocks} blocks' worth, as {@link ObjectReader} gives it. */
  static final long BUDGET = (long) DEPTH * BLOCK;

  /**
   * A stripe footer said to be 2 GiB long in a file said to be 8 GiB: no plan, so nothing fetched ahead, and
   * no error in the reader's read (the length, cast to an int, was negative, and so was the buffer asked for).
   */
  @Test
  void aStripeFooterOfTwoGibibytesIsNeitherFetchedAheadNorAnErrorInTheRead() throws Exception {
    long length = 8L << 30;
    OrcBuilder.Written w = new OrcBuilder(OrcChunks.ZLIB)
        .stripe(List.of(new OrcBuilder.StreamSpec(1, 1, 100)), 100, null, new long[] {-1, -1, -1, (1L << 31) + 5})
        .build();
    byte[] tail = Arrays.copyOfRange(w.file(), w.file().length - w.tailLength(), w.file().length);
    try (FetchRig rig = new FetchRig(new ScriptedStore(w.file(), FetchRig.ETAG), BLOCK, 2, 64L << 20)) {
      ReadStatistics stats = rig.stats.child();
      ObjectHandle h = new ObjectHandle(FetchRig.WHERE, length, true, FetchRig.ETAG, stats);
      h.answered(h.beforeRequest());
      StreamOrcLayout orc = new StreamOrcLayout(h, new OrcLayouts());
      orc.offerRead(length - tail.length, tail, 0, tail.length);
      HeldSpans spans = new HeldSpans(new AheadBudget(BUDGET));
      AheadFetch ahead = new AheadFetch(spans, rig.pool, (p, dst, n) -> {
        throw new AssertionError("a fetch ahead of " + n + " bytes at " + p);
      }, new StreamRequests(h, 200), stats);
      StripeFooters footers = new StripeFooters(orc, spans, ahead, stats, BLOCK, length, 0, () -> { });
      assertThatCode(() -> footers.onRead(w.footerStarts().get(0), 10)).doesNotThrowAnyException();
      assertThat(rig.pool.inUseBytes()).isZero();
    }
  }

  /**
   * Small streams, none beside another: each comes in a buffer of at least 64 KiB, and the stream holds no
   * more of those than its budget, not its budget's worth of the streams' own bytes (200 streams of 1,000
   * bytes took 200 buffers, 12.5 MiB, against a budget of 2 MiB).
   */
  @Test
  void smallStreamsFetchedAheadHoldAtMostTheBudgetInBuffers() throws Exception {
    int stripes = 101;
    List<OrcBuilder.StreamSpec> streams = List.of(new OrcBuilder.StreamSpec(1, 1, 1_000),
        new OrcBuilder.StreamSpec(1, 2, 100_000), new OrcBuilder.StreamSpec(1, 3, 1_000));
    OrcBuilder b = new OrcBuilder(OrcChunks.SNAPPY);
    for (int s = 0; s < stripes; s++) {
      b.stripe(streams);
    }
    OrcBuilder.Written w = b.build();
    byte[] file = w.file();
    FetchRig fetch = new FetchRig(new ScriptedStore(file, FetchRig.ETAG), BLOCK, 2, 64L << 20);
    try (StreamRig rig = new StreamRig(fetch, DEPTH)) {
      StreamOrcLayout orc = rig.parquet.orc();
      orc.offerRead(file.length - w.tailLength(), file, file.length - w.tailLength(), w.tailLength());
      OrcLayout plan = orc.layout();
      assertThat(plan).isNotNull();
      for (OrcTail.Stripe s : plan.tail().stripes()) { // every footer known, as a wave of footers leaves them
        orc.learn(s, file, (int) s.footerStart(), (int) s.footerLength());
      }
      AheadFetch ahead = new AheadFetch(rig.spans, fetch.pool,
          (p, dst, n) -> rig.ranges.range(p, dst, n, Purpose.STRIPE_AHEAD), rig.requests, rig.h.stats());
      StripeStreamsAhead streamsAhead = new StripeStreamsAhead(orc, new ParquetFooters().columns(), rig.spans, ahead,
          rig.h.stats(), BLOCK, file.length);
      // The reader's first stripe: columns 1 and 3 read whole, column 2 not at all.
      List<OrcTail.Stream> first = plan.streams(plan.tail().stripes().get(0));
      for (OrcTail.Stream x : List.of(first.get(0), first.get(2))) {
        streamsAhead.onRead(x.start(), (int) x.length());
      }
      // It moves on: the next stripes' same streams come ahead, to the split's end.
      OrcTail.Stripe second = plan.tail().stripes().get(1);
      streamsAhead.onRead(second.footerStart(), (int) second.footerLength());
      assertThat(fetch.pool.inUseBytes()).as("held ahead").isPositive().isLessThanOrEqualTo(BUDGET);
    }
  }
}
