/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.orc;

import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * The layout of one ORC object version: its stripes from the tail ({@link OrcTail}), and the streams of
 * each stripe whose footer a reader has read. Shared by the streams of that version through {@link
 * OrcLayouts}, and held by each of them for its life, in or out of the client's layouts: so it holds at
 * most {@link OrcTail#MAX_LAYOUT_BYTES} of heap, however many stripes and streams the file's footers list
 * (half of that at most for the stripes, which the parser checks). A footer whose streams do not fit in
 * what is left is not learnt: that stripe's reads are plain reads, as in a file with no layout.
 * Thread-safe.
 */
public final class OrcLayout {
  private final OrcTail tail;
  /** Where the range the tail was parsed from starts; -1 if not known. */
  private final long tailStart;
  /** The streams of each stripe, by its index; null while its footer is unread. */
  private final AtomicReferenceArray<List<OrcTail.Stream>> streams;
  /** The heap this layout takes ({@link #heapBytes}): what the streams learnt are reserved against. */
  private final AtomicLong heap;

  public OrcLayout(OrcTail tail) {
    this(tail, -1);
  }

  /**
   * @param tailStart where the range that held the tail starts (it ends at the object's end), as the stream
   *     that parsed it fetched it; -1 if not known
   */
  public OrcLayout(OrcTail tail, long tailStart) {
    this.tail = tail;
    this.tailStart = tailStart;
    this.streams = new AtomicReferenceArray<>(tail.stripes().size());
    this.heap = new AtomicLong(tail.heapBytes() + 16);
  }

  public OrcTail tail() {
    return tail;
  }

  /**
   * Where the range the tail was parsed from starts (it ends at the object's end), -1 if not known: a later
   * stream that wants bytes in it (the last stripe's footer lies there) asks for exactly this range, which
   * the tiers may keep from the stream that fetched it (the memory cache, by the range's bounds).
   */
  public long tailStart() {
    return tailStart;
  }

  /** Whether byte {@code position} is in a stripe: a reader of the file reads there by the layout. */
  public boolean covers(long position) {
    return tail.stripeAt(position) != null;
  }

  /** The stripe whose footer is exactly {@code [position, position + len)}, or null. */
  public OrcTail.Stripe footerAt(long position, int len) {
    OrcTail.Stripe s = tail.stripeAt(position);
    return s != null && s.footerStart() == position && s.footerLength() == len ? s : null;
  }

  /** Whether the streams of {@code stripe} are known. */
  public boolean knows(OrcTail.Stripe stripe) {
    return streams.get(stripe.index()) != null;
  }

  /**
   * Learns the streams of {@code stripe} from its footer {@code b[off..off + len)}, as a reader read it;
   * false if they are known already, these bytes are not its footer, or its streams do not fit in what
   * this layout may still take.
   */
  public boolean learn(OrcTail.Stripe stripe, byte[] b, int off, int len) {
    int i = stripe.index();
    if (i < 0 || i >= streams.length() || streams.get(i) != null) {
      return false;
    }
    long room = OrcTail.MAX_LAYOUT_BYTES - heap.get();
    if (room < OrcTail.STREAMS_LIST_BYTES + OrcTail.STREAM_BYTES) {
      return false; // full: no footer is decompressed and parsed for nothing
    }
    List<OrcTail.Stream> s = tail.streams(stripe, b, off, len, room);
    if (s == null) {
      return false;
    }
    // Reserved before they are shared: footers learnt at once on several threads never pass the bound.
    long bytes = OrcTail.STREAMS_LIST_BYTES + (long) OrcTail.STREAM_BYTES * s.size();
    if (heap.getAndUpdate(h -> h + bytes <= OrcTail.MAX_LAYOUT_BYTES ? h + bytes : h) + bytes > OrcTail.MAX_LAYOUT_BYTES) {
      return false;
    }
    if (streams.compareAndSet(i, null, List.copyOf(s))) {
      return true;
    }
    heap.addAndGet(-bytes); // another thread learnt it first
    return false;
  }

  /** The stream holding byte {@code position}, or null (no stripe there, or its footer unread). */
  public OrcTail.Stream streamAt(long position) {
    OrcTail.Stripe stripe = tail.stripeAt(position);
    if (stripe == null) {
      return null;
    }
    List<OrcTail.Stream> s = streams.get(stripe.index());
    if (s == null) {
      return null;
    }
    for (OrcTail.Stream x : s) {
      if (position >= x.start() && position < x.end()) {
        return x;
      }
    }
    return null;
  }

  /** The streams of {@code stripe}, or null while its footer is unread. */
  public List<OrcTail.Stream> streams(OrcTail.Stripe stripe) {
    return streams.get(stripe.index());
  }

  /** About what this layout takes of the heap, the streams it knows included: at most {@link OrcTail#MAX_LAYOUT_BYTES}. */
  public long heapBytes() {
    return heap.get();
  }
}
