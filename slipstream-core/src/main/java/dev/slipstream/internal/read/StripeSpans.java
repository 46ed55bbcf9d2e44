/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.read;

import dev.slipstream.internal.block.Span;
import dev.slipstream.internal.format.OrcTail;
import dev.slipstream.internal.learn.OrcLayout;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;

/**
 * The spans a stream holds ahead for an ORC file's stripes ({@link StripeFooters}, {@link
 * StripeStreamsAhead}), each with the last stripe it serves: once the reader reads a later stripe, they
 * are let go ({@link HeldSpans#releaseAhead}), what no read copied of them counted by their owner. Not
 * thread-safe: guarded by its owner's lock.
 */
final class StripeSpans {
  private final HeldSpans spans;
  private final List<Held> held = new ArrayList<>();

  private record Held(Span span, int lastStripe) {}

  StripeSpans(HeldSpans spans) {
    this.spans = spans;
  }

  /** Holds {@code span}, which serves the stripes up to {@code lastStripe}. */
  void add(Span span, int lastStripe) {
    held.add(new Held(span, lastStripe));
  }

  /**
   * The stripe of {@code plan} a read at {@code position} lies in, or null (no plan, or not in a stripe);
   * the spans of the stripes before it are let go: the reader has read past them.
   */
  OrcTail.Stripe reached(OrcLayout plan, long position) {
    OrcTail.Stripe at = plan == null ? null : plan.tail().stripeAt(position);
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
