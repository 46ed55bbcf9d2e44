/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.orc;

import dev.slipstream.internal.ahead.AheadFetch;
import dev.slipstream.internal.ahead.HeldSpans;
import dev.slipstream.internal.block.Span;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;

/**
 * The spans a stream holds ahead for an ORC file's stripes ({@link StripeFooters}, {@link
 * StripeStreamsAhead}, one each), with what both start from: the stream's ORC layout, the spans it holds,
 * the way a span is fetched ahead (within the stream's one budget for bytes held ahead, which both share
 * with every other part that fetches ahead), and the largest span. Each span is held with the last stripe
 * it serves: once the reader reads a later stripe, they are let go ({@link HeldSpans#releaseAhead}), what
 * no read copied of them counted by their owner, their buffers given back to the budget. Not thread-safe:
 * guarded by its owner's lock.
 */
final class StripeSpans {
  private final StreamOrcLayout orc;
  private final HeldSpans spans;
  private final AheadFetch ahead;
  private final int pieceSize;
  private final List<Held> held = new ArrayList<>();

  private record Held(Span span, int lastStripe) {}

  /**
   * @param orc the stream's ORC layout
   * @param spans what the stream holds already
   * @param ahead how a span is fetched and held ahead of the reads
   * @param pieceSize the largest span
   */
  StripeSpans(StreamOrcLayout orc, HeldSpans spans, AheadFetch ahead, int pieceSize) {
    this.orc = orc;
    this.spans = spans;
    this.ahead = ahead;
    this.pieceSize = pieceSize;
  }

  /** The stream's ORC layout. */
  StreamOrcLayout orc() {
    return orc;
  }

  /** How a span is fetched ahead. */
  AheadFetch ahead() {
    return ahead;
  }

  /** The largest span. */
  int pieceSize() {
    return pieceSize;
  }

  /** Where the bytes of {@code [start, end)} the stream does not hold at its end stop ({@link HeldSpans#unheldEnd}). */
  long unheldEnd(long start, long end) {
    return spans.unheldEnd(start, end);
  }

  /** Holds {@code span}, which serves the stripes up to {@code lastStripe}. */
  void add(Span span, int lastStripe) {
    held.add(new Held(span, lastStripe));
  }

  /**
   * The stripe of {@code layout} a read at {@code position} lies in, or null (no layout, or not in a stripe);
   * the spans of the stripes before it are let go: the reader has read past them.
   */
  OrcTail.Stripe reached(OrcLayout layout, long position) {
    OrcTail.Stripe at = layout == null ? null : layout.tail().stripeAt(position);
    if (at != null) {
      for (Iterator<Held> i = held.iterator(); i.hasNext(); ) {
        Held h = i.next();
        if (h.lastStripe() < at.index()) {
          i.remove();
          spans.releaseAhead(h.span());
        }
      }
    }
    return at;
  }
}
