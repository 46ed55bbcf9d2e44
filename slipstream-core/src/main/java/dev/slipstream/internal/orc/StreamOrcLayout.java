/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.orc;

import dev.slipstream.Counter;
import dev.slipstream.internal.fetch.ObjectHandle;
import dev.slipstream.internal.learn.ClientLayout;

/**
 * One stream's ORC layout ({@link OrcLayout}): the client's for the version the stream reads, from the first
 * read on; else the one parsed from the tail this stream read, given to the client for its later streams.
 * A reader's read of a stripe's footer teaches the layout that stripe's streams, for this stream and the
 * later ones. With a layout, a stream whose first read lands in a stripe reads ranges ({@link
 * ReadPlanner}), as one whose first read is the tail does: the record reader that Hive and Spark open
 * after a first reader read the tail (for the split or the schema) starts at a stripe's footer, and
 * without the layout it would be read as a file read in order, whole. Null while none is known. Thread-safe.
 */
public final class StreamOrcLayout {
  private final ObjectHandle h;
  private final OrcLayouts layouts;
  private final ClientLayout<OrcLayout> layout;

  public StreamOrcLayout(ObjectHandle h, OrcLayouts layouts) {
    this.h = h;
    this.layouts = layouts;
    this.layout = new ClientLayout<>(h.location(), h.length(), h::etag, h.stats(), layouts::get,
        Counter.ORC_LAYOUTS_REUSED);
  }

  /** The layout, or null. */
  public OrcLayout layout() {
    return layout.get();
  }

  /**
   * Whether byte {@code position} lies in a data stream of its stripe, as a column chunk: a range in it is
   * one the reader planned from the stripe's footer ({@code parquet.StreamFooter#around}). Index streams are
   * read as a filter needs them: not planned.
   */
  public boolean inDataStream(long position) {
    OrcLayout p = layout();
    OrcTail.Stream s = p == null ? null : p.streamAt(position);
    return s != null && !s.index();
  }

  /** Whether the layout has a stripe at {@code position}. */
  public boolean covers(long position) {
    OrcLayout p = layout();
    return p != null && p.covers(position);
  }

  /**
   * A read of {@code b[off..off + len)} at {@code position} is done: with no layout yet, a read that ended
   * at the object's end may hold an ORC tail, the layout then; with one, a read of exactly a stripe's footer
   * teaches the layout that stripe's streams. Anything else, or bytes that parse as neither, change nothing.
   */
  public void offerRead(long position, byte[] b, int off, int len) {
    OrcLayout p = layout();
    long length = h.length();
    if (p == null) {
      if (position + len != length || len < 5 || b[off + len - 2] != 'C' || b[off + len - 3] != 'R'
          || b[off + len - 4] != 'O') {
        return; // not a read of an ORC file's end
      }
      OrcTail tail = OrcTail.parse(b, off, len, length);
      if (tail != null) {
        p = new OrcLayout(tail, position);
        layout.set(p);
        h.stats().increment(Counter.ORC_TAILS_PARSED);
        layouts.put(h.location(), length, h.etag(), p);
      }
      return;
    }
    OrcTail.Stripe s = p.footerAt(position, len);
    if (s != null) {
      learn(s, b, off, len);
    }
  }

  /**
   * {@code b[off..off + len)} is {@code stripe}'s footer (read by the reader, or fetched ahead of it by
   * {@link StripeFooters}): the layout learns that stripe's streams, for this stream and the later ones.
   */
  public void learn(OrcTail.Stripe stripe, byte[] b, int off, int len) {
    OrcLayout p = layout();
    if (p != null && p.learn(stripe, b, off, len)) {
      layouts.put(h.location(), h.length(), h.etag(), p); // weighed again, with its new streams
    }
  }
}
