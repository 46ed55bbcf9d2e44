/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.parquet;

import dev.slipstream.Counter;
import dev.slipstream.ReadStatistics;
import dev.slipstream.internal.ahead.AheadFetch;
import dev.slipstream.internal.ahead.HeldSpans;
import dev.slipstream.internal.ahead.ReadsAhead;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;

/**
 * Predicted columns in one stream, the stream's share of the client's {@link
 * dev.slipstream.internal.learn.PredictedColumns}: when a stream first touches a column that the client's
 * readers read whole from the last files of this schema, that column's chunks from the read's row group to
 * the file's end are fetched at once, in parallel, and held in the stream's spans as spans fetched ahead
 * ({@link HeldSpans#addAhead}); what reads copied of each is counted here, and what they did not is counted
 * unread when it goes ({@link #predictedBytes}, {@link #unreadBytes}): what the client judges a schema's
 * predictions by when the stream closes. A reader then finds the
 * dictionary pages its filter reads, row group after row group, and the chunks it decodes in memory: one
 * round trip for the column, not one per row group in turn. A column the stream does not touch is never
 * fetched: a query that reads other columns than the last one wastes nothing on them.
 *
 * <p>A stream that read the page indexes before touching a column filters pages by a column index: the
 * chunks with an offset index, of which it may read only some pages, are left out.
 *
 * <p>Bounded by the stream's one budget for bytes held ahead ({@link
 * dev.slipstream.internal.ahead.AheadBudget}, shared with every other part that fetches ahead), and by the
 * pool's free memory (never waiting, never evicting). Bytes the stream holds already are left out.
 * Thread-safe.
 */
public final class ColumnsAhead implements ReadsAhead {
  private final StreamFooter parquet;
  private final HeldSpans spans;
  private final AheadFetch ahead;
  private final ReadStatistics stats;
  private final int pieceSize;
  /** The most bytes of pieces one fetch fills: whole pieces, up to a block. */
  private final int runMax;
  /** The columns touched so far, each fetched ahead at most once; guarded by {@code this}. */
  private final BitSet touched = new BitSet();
  /** The columns to fetch ahead, asked once the stream has a footer; guarded by {@code this}. */
  private BitSet predicted;
  private final long length;
  /** Bytes of predicted chunks fetched and gone so far, and how many of them no read copied; guarded by itself. */
  private final long[] accounts = new long[2];
  private final long splitEnd;

  /**
   * @param spans the bytes the stream holds: what a prediction leaves out, and where the chunks fetched here
   *     are held
   * @param ahead how a run of pieces is fetched and held, into their buffers end to end
   * @param blockSize the stream's block size: a run of pieces up to it is one fetch
   * @param pieceSize the largest span: a block at most, and below half a G1 region ({@link
   *     dev.slipstream.internal.block.HeapRegions#largestOrdinary})
   * @param length the object's length
   * @param splitEnd the end (exclusive) of the caller's split, or 0 or less for none: the row groups after
   *     the split's last ({@link SplitRowGroups}) are another reader's, and are not fetched
   */
  public ColumnsAhead(StreamFooter parquet, HeldSpans spans, AheadFetch ahead, ReadStatistics stats, int blockSize,
      int pieceSize, long length, long splitEnd) {
    this.parquet = parquet;
    this.spans = spans;
    this.ahead = ahead;
    this.stats = stats;
    this.pieceSize = pieceSize;
    this.runMax = Math.max(1, blockSize / pieceSize) * pieceSize;
    this.length = length;
    this.splitEnd = splitEnd;
  }

  /**
   * A columnar read of {@code [position, position + len)}: the predicted columns it touches for the first
   * time are fetched from its row group on (the read's own chunk among them: the read then waits for
   * that fetch instead of making its own).
   */
  @Override
  public void onRead(long position, int len) {
    ParquetFooter footer = parquet.footer();
    if (footer == null) {
      return;
    }
    BitSet fresh = new BitSet();
    BitSet others;
    int fromGroup = Integer.MAX_VALUE;
    synchronized (this) {
      if (predicted == null) {
        BitSet p = parquet.predictedColumns();
        predicted = p == null ? new BitSet() : p;
      }
      for (ParquetFooter.Chunk c = footer.chunkFrom(position); c != null && c.start() < position + len;
          c = footer.chunkAfter(c)) {
        if (!touched.get(c.column())) {
          touched.set(c.column());
          if (predicted.get(c.column())) {
            fresh.set(c.column());
            fromGroup = Math.min(fromGroup, c.group());
          }
        }
      }
      others = (BitSet) predicted.clone();
      others.andNot(touched);
    }
    if (!fresh.isEmpty()) {
      fetchAhead(footer, fresh, others, fromGroup);
    }
  }

  /**
   * Fetches the chunks of {@code columns} in row groups {@code fromGroup} on, adjacent chunks in one
   * request. A chunk under {@link AheadFetch#MIN_GET} takes its neighbours of the {@code others} predicted
   * columns (not touched yet) along, up to that size: a reader that reads two small adjacent columns
   * touches one first, and the other would otherwise cost a small request of its own.
   */
  private void fetchAhead(ParquetFooter footer, BitSet columns, BitSet others, int fromGroup) {
    boolean pagesFiltered = parquet.indexesRead();
    List<long[]> runs = new ArrayList<>();
    int lastGroup = SplitRowGroups.last(footer, splitEnd);
    for (int g = fromGroup; g <= lastGroup; g++) {
      List<ParquetFooter.Chunk> chunks = footer.rowGroup(g);
      boolean[] take = new boolean[chunks.size()];
      for (int i = 0; i < take.length; i++) {
        ParquetFooter.Chunk c = chunks.get(i);
        // Not predicted; or a reader that filters pages may read only some of this chunk's.
        take[i] = columns.get(c.column()) && !(pagesFiltered && c.pageIndexed());
      }
      for (int i = 0; i < take.length; i++) {
        // Small neighbours only: a large one would be a large waste if the reader does not read it.
        if (!columns.get(chunks.get(i).column()) || !take[i] || chunks.get(i).length() >= AheadFetch.MIN_GET) {
          continue;
        }
        long size = chunks.get(i).length();
        for (int j = i - 1; j >= 0 && size < AheadFetch.MIN_GET && takesAlong(chunks.get(j), chunks.get(j + 1), others, pagesFiltered); j--) {
          take[j] = true;
          size += chunks.get(j).length();
        }
        for (int j = i + 1; j < take.length && size < AheadFetch.MIN_GET && takesAlong(chunks.get(j), chunks.get(j - 1), others, pagesFiltered); j++) {
          take[j] = true;
          size += chunks.get(j).length();
        }
      }
      for (int i = 0; i < take.length; i++) {
        ParquetFooter.Chunk c = chunks.get(i);
        if (!take[i]) {
          continue;
        }
        long[] last = runs.isEmpty() ? null : runs.get(runs.size() - 1);
        if (last != null && last[1] == c.start()) {
          last[1] = c.end(); // adjacent columns: one run, one request
        } else {
          runs.add(new long[] {c.start(), c.end()});
        }
      }
    }
    for (int i = 0; i < runs.size(); i++) {
      long previous = i > 0 ? runs.get(i - 1)[1] : 0;
      long next = i + 1 < runs.size() ? runs.get(i + 1)[0] : length;
      if (!fetchRun(runs.get(i)[0], runs.get(i)[1], previous, next)) {
        return;
      }
    }
  }

  /** Whether {@code c}, next to {@code neighbour} in the file, is of a predicted column not touched yet. */
  private static boolean takesAlong(ParquetFooter.Chunk c, ParquetFooter.Chunk neighbour, BitSet others,
      boolean pagesFiltered) {
    return others.get(c.column()) && !(pagesFiltered && c.pageIndexed()) && c.length() < AheadFetch.MIN_GET
        && (c.end() == neighbour.start() || neighbour.end() == c.start());
  }

  /**
   * Fetches {@code [start, end)} but for what the stream holds at its end, in pieces, within the stream's budget;
   * false once the budget, the free memory or the stream is gone. A run under {@link AheadFetch#MIN_GET}
   * is fetched with bytes around it up to that floor (a round trip costs more): first those before it,
   * back to {@code from} (the run before), then those after it, up to {@code limit} (the next run); never
   * bytes the stream holds. Before first: a reader that reads the chunk before this one would otherwise
   * find this span where its own read's floor would reach, and make a small request. The bytes around
   * are not counted as predicted.
   */
  private boolean fetchRun(long start, long end, long from, long limit) {
    end = spans.unheldEnd(start, end);
    if (end <= start) {
      return true; // held already
    }
    long fetchStart = start;
    long fetchEnd = end;
    if (end - start < AheadFetch.MIN_GET) {
      fetchStart = Math.max(Math.max(from, spans.previousEnd(start)), end - AheadFetch.MIN_GET);
      fetchEnd = Math.max(end, Math.min(Math.min(fetchStart + AheadFetch.MIN_GET, limit), Math.min(spans.nextStart(end), length)));
    }
    long chunkStart = start;
    for (long p = fetchStart; p < fetchEnd; ) {
      // A run of pieces up to a block, one fetch into their buffers end to end: the GETs of one buffer.
      List<byte[]> buffers = new ArrayList<>();
      int len = 0;
      boolean stopped = false;
      while (len < runMax && p + len < fetchEnd) {
        // Never a piece cut short by the budget: a tier finds a range only by its bounds, and another
        // stream (another host) cuts the same run into whole pieces (RangeThrough).
        int n = (int) Math.min(pieceSize, fetchEnd - p - len);
        byte[] buffer = ahead.buffer(n);
        if (buffer == null) {
          stopped = true; // over the budget, memory is short, or the stream closed: no more predictions now
          break;
        }
        buffers.add(buffer);
        len += n;
      }
      if (!buffers.isEmpty()) {
        fetchPieces(p, buffers, len, chunkStart, end);
      }
      if (stopped) {
        return false;
      }
      p += len;
    }
    return true;
  }

  /**
   * Holds {@code buffers}, pieces of {@code [p, p + len)} end to end, as spans fetched ahead, and fetches
   * them with one range; of their bytes, those of {@code [chunkStart, chunkEnd)} are counted predicted.
   */
  private void fetchPieces(long p, List<byte[]> buffers, int len, long chunkStart, long chunkEnd) {
    ahead.start(p, buffers, len, pieceSize, buffer -> { }, span -> {
      // The bytes around a small run are not predicted.
      long chunkBytes = Math.max(0, Math.min(span.end(), chunkEnd) - Math.max(span.start(), chunkStart));
      stats.add(Counter.PREDICTED_COLUMN_BYTES, chunkBytes);
      return copied -> gone(chunkBytes, copied);
    }, false);
  }

  /**
   * A span fetched here went (released, or dropped when its fetch failed): of its {@code chunkBytes} of
   * predicted chunks, those no read copied are counted unread.
   */
  private void gone(long chunkBytes, long copied) {
    long unread = Math.max(0, chunkBytes - copied);
    synchronized (accounts) {
      accounts[0] += chunkBytes;
      accounts[1] += unread;
    }
    stats.add(Counter.PREDICTED_COLUMN_BYTES_UNREAD, unread);
  }

  /** Bytes of predicted chunks fetched and gone so far (close, unbuffer). */
  public long predictedBytes() {
    synchronized (accounts) {
      return accounts[0];
    }
  }

  /** Of {@link #predictedBytes}, the bytes no read copied. */
  public long unreadBytes() {
    synchronized (accounts) {
      return accounts[1];
    }
  }
}
