/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.orc;

import dev.slipstream.Counter;
import dev.slipstream.ReadStatistics;
import dev.slipstream.internal.ahead.AheadFetch;
import dev.slipstream.internal.ahead.HeldSpans;
import dev.slipstream.internal.ahead.ReadsAhead;
import dev.slipstream.internal.block.Span;
import java.util.ArrayList;
import java.util.List;

/**
 * The footers of the ORC stripes a reader will read, fetched in one wave. An ORC reader reads a stripe in
 * two round trips, one after the other: its footer (where its streams lie), then the streams of its
 * columns, planned from that footer. Once the stream knows the file's tail ({@link StreamOrcLayout}), every
 * stripe footer's place is known (at the end of its stripe, of the length the tail's stripe list gives), so
 * at the reader's first read of a stripe the footers of that stripe and of the next ones of its split are
 * fetched at once, in parallel, each as a span fetched ahead ({@link HeldSpans#addAhead}), and each teaches
 * the layout its stripe's streams as it arrives: every later stripe then costs one round trip, its streams.
 *
 * <p>Footers closer together than {@link AheadFetch#MIN_GET} come in one request. A footer in the range
 * the tail was parsed from (the last stripe's, next to the file's footer) is asked for as exactly that
 * range ({@link OrcLayout#tailStart}): the tiers may keep it from the stream that read the tail (the split
 * computation's, the schema's), and then it costs no request at all.
 *
 * <p>Bounded: at most {@link #AHEAD} stripes past the read's, never a stripe whose start lies at or past
 * the split's end (another task's, as ORC's reader assigns stripes to splits), never a footer longer than
 * a piece (the tail allows a few MiB), within the stream's one budget for bytes held ahead, and
 * from free memory only (never waiting, never evicting): a footer not fetched here is fetched by the
 * reader's own read, or by a later read's wave. A footer is let go once the reader reads a later stripe.
 * What the footers teach the layout is bounded by the layout ({@link OrcLayout}). Thread-safe.
 */
public final class StripeFooters implements ReadsAhead {
  /**
   * Most stripes past the read's whose footers are fetched: a later read moves the wave on. A footer
   * costs a request and (the pool's smallest buffer) 64 KiB while it is held.
   */
  static final int AHEAD = 32;

  private final ReadStatistics stats;
  private final long length;
  private final long splitEnd;
  private final Runnable learnt;
  /** The last stripe whose footer a wave asked for (or found held); guarded by {@code this}. */
  private int asked = -1;
  /** The spans held, let go as the reader passes their stripes; guarded by {@code this}. */
  private final StripeSpans held;

  /**
   * @param orc the stream's ORC layout: where the footers lie, and what learns from them
   * @param spans what the stream holds already
   * @param ahead how a footer is fetched and held ahead of the reads
   * @param pieceSize the largest span
   * @param length the object's length
   * @param splitEnd the end (exclusive) of the caller's split, or 0 or less for none
   * @param learnt told each time footers came in and the layout learnt them
   */
  public StripeFooters(StreamOrcLayout orc, HeldSpans spans, AheadFetch ahead, ReadStatistics stats, int pieceSize,
      long length, long splitEnd, Runnable learnt) {
    this.held = new StripeSpans(orc, spans, ahead, pieceSize);
    this.stats = stats;
    this.length = length;
    this.splitEnd = splitEnd;
    this.learnt = learnt;
  }

  /**
   * A columnar read of {@code [position, position + len)}: if it is in a stripe, the footers not yet asked
   * for of that stripe (when the read is its footer; a read of its index or data comes after its footer)
   * and of the next ones in the split, up to {@link #AHEAD} stripes on, are fetched now, before the read
   * is served (which then waits for its footer's span instead of fetching it).
   */
  @Override
  public synchronized void onRead(long position, int len) {
    OrcLayout layout = held.orc().layout();
    OrcTail.Stripe at = held.reached(layout, position);
    if (at == null) {
      return;
    }
    List<OrcTail.Stripe> stripes = layout.tail().stripes();
    int from = Math.max(asked + 1, position + len > at.footerStart() ? at.index() : at.index() + 1);
    int to = Math.min(lastInSplit(stripes, splitEnd), at.index() + AHEAD);
    if (from > to) {
      return;
    }
    List<Run> runs = new ArrayList<>();
    long tailStart = layout.tailStart();
    int pieceSize = held.pieceSize();
    for (int i = from; i <= to; i++) {
      OrcTail.Stripe s = stripes.get(i);
      long start = s.footerStart();
      long end = s.end();
      if (held.unheldEnd(start, end) <= start) {
        continue; // the stream holds it (its own tail, say)
      }
      if (tailStart >= 0 && start >= tailStart && length - tailStart <= pieceSize) {
        start = tailStart; // as the stream that read the tail fetched it: the tiers may keep it
        end = length;
      }
      if (end - start > pieceSize) {
        continue; // a footer larger than a span (the tail allows a few MiB): the reader's own read fetches it
      }
      Run last = runs.isEmpty() ? null : runs.get(runs.size() - 1);
      if (last != null && last.start == start && last.end == end) {
        last.stripes.add(s); // another footer in the tail's range
      } else if (last != null && !last.tail && start != tailStart && start - last.end < AheadFetch.MIN_GET
          && end - last.start <= pieceSize) {
        last.end = end; // near the last: one request
        last.stripes.add(s);
      } else {
        runs.add(new Run(start, end, start == tailStart, s));
      }
    }
    asked = to;
    for (int i = 0; i < runs.size(); i++) {
      if (!fetchRun(runs.get(i))) {
        // Out of budget or free memory: the rest is left to the reader's reads and the next waves.
        asked = runs.get(i).stripes.get(0).index() - 1;
        return;
      }
    }
  }

  /** The footers of one request: {@code [start, end)}, the range the tail was parsed from if {@code tail}. */
  private static final class Run {
    final long start;
    long end;
    final boolean tail;
    final List<OrcTail.Stripe> stripes = new ArrayList<>(2);

    Run(long start, long end, boolean tail, OrcTail.Stripe first) {
      this.start = start;
      this.end = end;
      this.tail = tail;
      stripes.add(first);
    }
  }


  /**
   * The last stripe a split ending at {@code splitEnd} (exclusive; 0 or less for none) holds: the last
   * whose start lies before the split's end, as ORC's reader assigns stripes; the file's last without a
   * split; -1 if none.
   */
  static int lastInSplit(List<OrcTail.Stripe> stripes, long splitEnd) {
    if (splitEnd <= 0) {
      return stripes.size() - 1;
    }
    int last = -1;
    for (OrcTail.Stripe s : stripes) {
      if (s.offset() < splitEnd) {
        last = s.index();
      }
    }
    return last;
  }

  /**
   * Fetches {@code run} into a span held ahead of the reader; once it is in, its footers teach the layout
   * their stripes' streams. False if the budget, the free memory or the stream is gone.
   */
  private boolean fetchRun(Run run) {
    int n = (int) (run.end - run.start); // at most a piece: a run never grows past one
    // The layout learns each footer before a read waiting for it copies it: it finds its stripe's streams known.
    StreamOrcLayout orc = held.orc();
    Span span = held.ahead().start(run.start, n, buffer -> {
      for (OrcTail.Stripe s : run.stripes) {
        orc.learn(s, buffer, (int) (s.footerStart() - run.start), (int) s.footerLength());
      }
      learnt.run();
    }, copied -> { });
    if (span == null) {
      return false;
    }
    stats.add(Counter.ORC_STRIPE_FOOTERS_FETCHED, run.stripes.size());
    held.add(span, run.stripes.get(run.stripes.size() - 1).index());
    return true;
  }
}
