/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.read;

import dev.slipstream.Counter;
import dev.slipstream.ReadStatistics;
import dev.slipstream.internal.ahead.AheadFetch;
import dev.slipstream.internal.ahead.HeldSpans;
import dev.slipstream.internal.block.Span;
import dev.slipstream.internal.fetch.ObjectHandle;
import dev.slipstream.internal.fetch.Purpose;
import dev.slipstream.internal.fetch.StreamRequests;
import dev.slipstream.internal.parquet.StreamFooter;
import dev.slipstream.internal.source.RangeThrough;
import dev.slipstream.internal.source.Through;
import java.io.IOException;
import java.util.concurrent.CompletableFuture;

/**
 * Reads that fetch about what is asked for instead of whole blocks: small reads after a jump, and the
 * ranges of a columnar reader. Each comes from the tiers where they hold it, else from S3 in one GET (or
 * parallel parts), through the stream's read-through of ranges ({@link RangeThrough#readThrough}), called
 * once a read, which alone asks the chain; this class decides only what to read and what to hold. On the
 * stream path that GET also fetches bytes the next reads are likely to want, held as spans outside the
 * block grid ({@link HeldSpans}): the object's tail on the first read into it (a Parquet or ORC footer
 * and the metadata before it, {@link #tailSize}), or for a range, its extent ({@link #decide}): after
 * the first read of a dictionary page's header at a Parquet column chunk's start, the whole chunk; after
 * a read among the page indexes, all of them; and never less than {@link #MIN_GET}, so that a page
 * header read field by field through Thrift costs one round trip, not one a field.
 *
 * <p>Rules kept: a span takes free memory only (when memory is short the read goes straight into the
 * caller's array); every GET is one of the stream's requests; spans are released on close and unbuffer,
 * their buffers returned once no reader copies from them.
 */
final class JumpReads {
  /**
   * Bytes a small stream read after a jump fetches beyond what it asked for (S3A's readahead default);
   * at most an eighth of a block.
   */
  static final int READAHEAD = 64 * 1024;
  /** The least a columnar range read fetches, unless the object ends sooner ({@link AheadFetch#MIN_GET}). */
  static final int MIN_GET = AheadFetch.MIN_GET;
  /** Most of the object's end fetched at once when a stream read first jumps into it (see {@link #tailSize}). */
  static final int TAIL = 1024 * 1024;
  /** Least of the object's end fetched at once by a footer read (unless the object is smaller). */
  static final int MIN_TAIL = 8 * 1024;

  private final StreamRequests requests;
  private final ReadStatistics stats;
  private final HeldSpans spans;
  private final StreamFooter parquet;
  private final int blockSize;
  private final long length;
  /** Where every range read here comes from: the tiers, S3, and what is kept. */
  private final RangeThrough ranges;

  /**
   * @param requests the stream's requests: every S3 read here is one, waited for there
   * @param spans the bytes the stream holds outside its blocks: the tail and the spans fetched here
   * @param ranges the stream's read-through of ranges: every read here asks it, never the chain
   */
  JumpReads(ObjectHandle h, StreamRequests requests, HeldSpans spans, StreamFooter parquet,
      RangeThrough ranges, int blockSize) {
    this.requests = requests;
    this.stats = h.stats();
    this.spans = spans;
    this.parquet = parquet;
    this.ranges = ranges;
    this.blockSize = blockSize;
    this.length = h.length();
  }

  /**
   * A read at a jump ({@code d} says which: a small read, or a columnar reader's range): what the stream
   * knows of it is asked first, once ({@link #decide}), and the read it leaves is handed to the read-through
   * of ranges in one call ({@link RangeThrough#readThrough}). The span that call fetched around the read, if
   * any, is then held for the reads that follow (the object's tail, or another span; a columnar extent is a
   * read that fetched more than it asked for, {@link Counter#EXTENDED_READS}).
   *
   * @return the object's tail, if this read fetched it: held, and still pinned for the caller, who offers it
   *     to the stream's footer with the read ({@link StreamFooter#offerRead}) and then unpins it; null
   *     otherwise (the pin on any other span is let go here)
   */
  Span readRange(long position, byte[] dst, int off, int len, ReadPlanner.Decision d, boolean streamPath)
      throws IOException {
    Through through = decide(position, dst, off, len, d, streamPath);
    if (through == null) {
      return null; // the stream held it all: copied
    }
    Span span = ranges.readThrough(through, dst, off + (int) (through.position() - position));
    if (span == null) {
      return null;
    }
    boolean tail = through.around().why() == Purpose.FOOTER;
    boolean handedUp = false;
    try {
      if (tail) {
        spans.setTail(span);
      } else {
        if (through.around().keep()) {
          stats.increment(Counter.EXTENDED_READS);
        }
        spans.add(span);
      }
      if (requests.isClosed()) {
        spans.releaseAll(); // close() may have swept the spans before this one was held
      }
      handedUp = tail;
      return tail ? span : null;
    } finally {
      if (!handedUp) {
        span.unpin();
      }
    }
  }

  /**
   * How a read at a jump goes through, decided from what the stream knows of it: null if the spans it holds
   * had all of it (then copied into {@code dst}).
   * <ul>
   *   <li>A columnar reader's range first waits for the chunks prediction is still fetching into it, then
   *       copies what the stream holds at one of its ends (held bytes in its middle would cut it in two:
   *       then it is read whole), and fetches the rest with its extent: the bytes the layout says come with
   *       it ({@link StreamFooter#around}), at least {@code d.ahead()} beyond it (the planner's guess for a
   *       run in order), and, unless it is a range the reader planned from the footer after a jump, at least
   *       {@link #MIN_GET} from where it starts; never into bytes the stream holds already (that saves no
   *       round trip), past the object's end, or more than a block (the most one span holds).</li>
   *   <li>The first stream read into the object's tail ({@link #tailSize}) fetches the tail instead (a
   *       Parquet or ORC footer and the metadata before it).</li>
   *   <li>A small read ({@link ReadPlanner.Kind#SMALL_JUMP}) comes from the tiers if its blocks are there;
   *       else, on the stream path, one GET also fetches {@link #READAHEAD} more bytes for the reads that
   *       follow; a positional one fetches exactly its bytes.</li>
   * </ul>
   */
  private Through decide(long position, byte[] dst, int off, int len, ReadPlanner.Decision d,
      boolean streamPath) throws IOException {
    boolean small = d.kind() == ReadPlanner.Kind.SMALL_JUMP;
    long tailStart = length - tailSize(length, blockSize);
    boolean tail = streamPath && position >= tailStart && spans.tail() == null;
    if (!tail && !small) {
      CompletableFuture<Void> predicted = spans.pending(position, len);
      if (!predicted.isDone()) {
        requests.awaitShared(predicted);
      }
      HeldSpans.Unheld unheld = spans.copyHeld(position, dst, off, len);
      if (unheld == null) {
        return null;
      }
      position = unheld.start();
      len = unheld.length();
      long held = unheld.nextHeld();
      StreamFooter.Around a = parquet.around(position, len, blockSize);
      long floor = a.why() == Purpose.RANGE && !d.inRun() && a.planned() ? 0 : a.start() + MIN_GET;
      long end = Math.max(a.end(), Math.min(Math.max(floor, position + len + (long) d.ahead()), held));
      end = Math.min(Math.min(end, length), a.start() + Math.max(len, blockSize));
      if (a.start() == position && end == position + len) {
        return new Through(position, len, false, true, Purpose.RANGE, null);
      }
      // The blocks held first; if memory is short for the extent, the read alone.
      return new Through(position, len, true, true, Purpose.RANGE,
          new Through.Extent(a.start(), (int) (end - a.start()), true, a.why()));
    }
    if (tail) {
      Through.Extent around = new Through.Extent(tailStart, (int) (length - tailStart), true, Purpose.FOOTER);
      return small ? new Through(position, len, true, false, Purpose.READAHEAD, around)
          : new Through(position, len, false, true, Purpose.RANGE, around);
    }
    int readahead = Math.min(READAHEAD, blockSize / 8);
    Through.Extent around = !streamPath ? null : new Through.Extent(position,
        (int) Math.min(length - position, (long) len + readahead), false, Purpose.READAHEAD);
    return new Through(position, len, true, false, Purpose.READAHEAD, around);
  }

  /**
   * The tail a footer read fetches: 1/512 of the object, at least {@link #MIN_TAIL}, at most
   * {@link #TAIL} and a quarter of a block. A Parquet footer grows with columns times row groups, and
   * row groups with the file: a few KiB for a file of a few MB and a few columns, tens of KiB for a
   * large one. A footer larger than the tail costs one more GET, of exactly its bytes; a smaller one
   * wastes the rest, which on small files is most of what a projected read would otherwise pay for.
   */
  static int tailSize(long length, int blockSize) {
    long size = Math.max(MIN_TAIL, Math.min(length / 512, Math.min(TAIL, blockSize / 4)));
    return (int) Math.min(length, size);
  }
}
