/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.read;

import dev.slipstream.Counter;
import dev.slipstream.ReadStatistics;
import dev.slipstream.internal.block.Span;
import dev.slipstream.internal.fetch.ObjectHandle;
import dev.slipstream.internal.fetch.Purpose;
import dev.slipstream.internal.format.ParquetFooter;
import dev.slipstream.internal.source.RangeThrough;
import java.io.IOException;
import java.util.List;

/**
 * Reads that fetch about what is asked for instead of whole blocks: small reads after a jump, and the
 * ranges of a columnar reader. Each comes from the tiers where they hold it, else from S3 in one GET (or
 * parallel parts), through the stream's read-through of ranges ({@link RangeThrough#readThrough}), called
 * once a read, which alone asks the chain; this class decides only what to read and what to hold. On the
 * stream path that GET also fetches bytes the next reads are likely to want, held as spans outside the
 * block grid ({@link HeldSpans}): the object's tail on the first read into it (a Parquet or ORC footer
 * and the metadata before it, {@link #tailSize}), or for a range, its extent ({@link #extentEnd}): after
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
  /**
   * The least a columnar range read fetches, unless the object ends sooner: S3A's {@code
   * fs.s3a.readahead.range}. A round trip to S3 (20 ms and more) costs more than 64 KiB at one
   * connection's speed.
   */
  static final int MIN_GET = 64 * 1024;
  /**
   * The most a read at a column chunk's start may ask for and still be a page header's first field read
   * through Thrift (a byte, in practice), not data: a page is larger than this.
   */
  static final int HEADER_READ = 256;
  /** Most of the object's end fetched at once when a stream read first jumps into it (see {@link #tailSize}). */
  static final int TAIL = 1024 * 1024;
  /** Least of the object's end fetched at once by a footer read (unless the object is smaller). */
  static final int MIN_TAIL = 8 * 1024;

  private final ObjectHandle h;
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
    this.h = h;
    this.requests = requests;
    this.stats = h.stats();
    this.spans = spans;
    this.parquet = parquet;
    this.ranges = ranges;
    this.blockSize = blockSize;
    this.length = h.length();
  }

  /**
   * A small read after a jump: from the tiers if its blocks are there; else one GET, which on the stream
   * path also fetches the object's tail (a jump into it) or {@link #READAHEAD} more bytes, kept for the
   * reads that follow. One call to the read-through ({@link RangeThrough#readThrough}).
   */
  void readSmall(long position, byte[] dst, int off, int len, boolean streamPath) throws IOException {
    RangeThrough.Extent around = null;
    if (streamPath) {
      around = tailExtent(position);
      if (around == null) {
        int readahead = Math.min(READAHEAD, blockSize / 8);
        around = new RangeThrough.Extent(position, (int) Math.min(length - position, (long) len + readahead), false,
            Purpose.READAHEAD);
      }
    }
    Span span = ranges.readThrough(position, dst, off, len,
        new RangeThrough.Through(true, false, Purpose.READAHEAD, around));
    if (span != null) {
      hold(span, around.why() == Purpose.FOOTER);
    }
  }

  /**
   * A columnar reader's range: from the tiers where they hold it, else from S3 (a large range in parallel
   * parts). The first stream read into the object's end fetches the tail at once (the footer and the
   * metadata before it); any other read fetches its extent ({@link #extentEnd}), held for the reads that
   * follow when that is more than it asked for.
   *
   * @param ahead bytes a run of reads in order wants beyond this one (the planner's guess)
   * @param inRun the read continues a run of reads in order
   */
  void readRange(long position, byte[] dst, int off, int len, int ahead, boolean inRun, boolean streamPath)
      throws IOException {
    RangeThrough.Extent tail = streamPath ? tailExtent(position) : null;
    if (tail != null) {
      Span span = ranges.readThrough(position, dst, off, len,
          new RangeThrough.Through(false, true, Purpose.RANGE, tail));
      if (span != null) {
        hold(span, true);
      }
      return;
    }
    // What the stream holds at one end of the read (a chunk its dictionary read fetched) is copied, and
    // only the rest is read; held bytes in the middle would cut it in two: then it is read whole. Chunks
    // still being fetched by prediction are waited for, not fetched twice.
    java.util.concurrent.CompletableFuture<Void> predicted = spans.pending(position, len);
    if (!predicted.isDone()) {
      requests.awaitShared(predicted);
    }
    List<long[]> gaps = spans.copyHeld(position, dst, off, len);
    if (gaps.isEmpty()) {
      return;
    }
    if (gaps.size() == 1) {
      long[] g = gaps.get(0);
      off += (int) (g[0] - position);
      len = (int) (g[1] - g[0]);
      position = g[0];
    }
    Purpose why = purposeOf(position, len);
    long start = extentStart(position, len);
    long end = extentEnd(position, len, ahead, inRun, why);
    if (start == position && end == position + len) {
      ranges.readThrough(position, dst, off, len, new RangeThrough.Through(false, true, Purpose.RANGE, null));
      return;
    }
    // The blocks held first; if memory is short for the extent, the read alone.
    RangeThrough.Extent extent = new RangeThrough.Extent(start, (int) (end - start), true, why);
    Span span = ranges.readThrough(position, dst, off, len, new RangeThrough.Through(true, true, Purpose.RANGE, extent));
    if (span != null) {
      stats.increment(Counter.EXTENDED_READS);
      hold(span, false);
    }
  }

  /**
   * Where a columnar read at {@code position} should start fetching: at the start of the Parquet page
   * indexes and bloom filters if it starts among them and they are no larger than a block (the first
   * read of one fetches them all: a filter reads the indexes of each column it filters on), else at
   * {@code position}.
   */
  long extentStart(long position, int len) {
    ParquetFooter footer = parquet.footer();
    if (footer != null && footer.inIndexes(position) && position + len <= footer.indexEnd()
        && footer.indexEnd() - footer.indexStart() <= blockSize) {
      return footer.indexStart();
    }
    return position;
  }

  /**
   * Where a columnar read of {@code [position, position + len)} should stop fetching. A read of a few
   * bytes ({@link #HEADER_READ} at most) at the dictionary page that starts a Parquet column chunk is
   * that page's header read field by field through Thrift (the dictionary filter reads each row group's
   * dictionary page so, and so does a reader about to read pages a column index selected): it fetches
   * the whole chunk, whose data pages follow, unless the footer names an offset index for the chunk:
   * then the reader may read only some of its pages, and the dictionary page alone is fetched. Any other
   * read is a range the reader chose (a chunk, or the pages a column index selected) and gets what it
   * asked for. A read among the page indexes and bloom filters fetches to their end (a reader that reads
   * one reads the others). Every fetch is at least {@code ahead} beyond the read (the planner's guess for
   * a run in order), and, unless it is a range in a known chunk after a jump, at least {@link #MIN_GET}
   * from where it starts; never into bytes the stream holds already (that saves no round trip), past the
   * object's end, or more than a block (the most one span holds).
   *
   * @param why what the read is ({@link #purposeOf}): a dictionary header, an index, or a range
   */
  long extentEnd(long position, int len, int ahead, boolean inRun, Purpose why) {
    long end = position + len;
    switch (why) {
      case CHUNK -> {
        ParquetFooter.Chunk c = parquet.chunkAt(position);
        // A chunk with an offset index may be read page by page: its dictionary page alone, then.
        end = Math.max(end, c.pageIndexed() ? c.dataPages() : c.end());
      }
      case INDEX -> end = Math.max(end, parquet.footer().indexEnd());
      default -> { }
    }
    long start = extentStart(position, len);
    // A range of a known chunk after a jump is one the reader planned from the footer (pages a column
    // index selected): no floor. Nor does an extension reach into bytes the stream holds: it saves no
    // round trip.
    long floor = why == Purpose.RANGE && !inRun && parquet.chunkAt(position) != null ? 0 : start + MIN_GET;
    long more = Math.min(Math.max(floor, position + len + (long) ahead), spans.nextStart(position + len));
    end = Math.max(end, more);
    return Math.min(Math.min(end, length), start + Math.max(len, blockSize));
  }

  /**
   * What a columnar read's extent is ({@link #extentEnd}): a column chunk (the first read of its
   * dictionary page's header), the page indexes (a read among them), or the read's own range.
   */
  private Purpose purposeOf(long position, int len) {
    ParquetFooter footer = parquet.footer();
    if (footer == null) {
      return Purpose.RANGE;
    }
    ParquetFooter.Chunk c = footer.chunkAt(position);
    if (c != null && c.dictionary() && c.start() == position && len <= HEADER_READ) {
      return Purpose.CHUNK;
    }
    return c == null && footer.inIndexes(position) ? Purpose.INDEX : Purpose.RANGE;
  }

  /**
   * The object's tail ({@link #tailSize}), kept, if {@code position} is the first stream read into it;
   * null otherwise. Once fetched it is held for the reads that follow (the footer, then the metadata
   * before it) and offered to the stream's footer.
   */
  private RangeThrough.Extent tailExtent(long position) {
    long tailStart = length - tailSize(length, blockSize);
    if (spans.tail() != null || position < tailStart) {
      return null;
    }
    return new RangeThrough.Extent(tailStart, (int) (length - tailStart), true, Purpose.FOOTER);
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

  /**
   * Holds a span the read-through fetched for the reads that follow (the object's tail, offered to the
   * stream's footer, or another span), then lets go of the caller's pin.
   */
  private void hold(Span span, boolean tail) {
    try {
      if (tail) {
        parquet.offerTail(span.buffer(), span.length());
        spans.setTail(span);
      } else {
        spans.add(span);
      }
      if (requests.isClosed()) {
        spans.releaseAll(); // close() may have swept the spans before this one was held
      }
    } finally {
      span.unpin();
    }
  }
}
