/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.read;

import dev.slipstream.Counter;
import dev.slipstream.ReadStatistics;
import dev.slipstream.internal.ahead.HeldSpans;
import dev.slipstream.internal.block.BufferPool;
import dev.slipstream.internal.fetch.Purpose;
import dev.slipstream.internal.fetch.StreamRequests;
import dev.slipstream.internal.parquet.ParquetFooter;
import dev.slipstream.internal.parquet.RowGroupsAhead;
import dev.slipstream.internal.parquet.StreamFooter;
import dev.slipstream.internal.source.RangeThrough;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * A stream's asynchronous range reads (Hadoop's vectored reads): a range waits for the predicted chunks
 * being fetched into it ({@link HeldSpans#pending}), then, once the stream has a Parquet footer, takes what
 * the row groups read ahead hold ({@link RowGroupsAhead}, which also fetches the next ones ahead), then
 * what the stream's spans hold (a column chunk a dictionary read fetched whole, say), and the rest goes to
 * {@link RangeThrough#range}, fetched from wherever it is, in parallel parts. Each range passes each of
 * these once, in this order.
 *
 * <p>Rules kept: the row groups read ahead are the stream's requests like any other, so close cancels
 * them; they take free memory only, within the stream's budget for them.
 */
final class VectoredReads {
  private final RangeThrough ranges;
  private final BufferPool pool;
  private final StreamRequests requests;
  private final ReadStatistics stats;
  private final HeldSpans spans;
  private final StreamFooter parquet;
  private final int blockSize;
  private final int pieceSize;
  private final long maxAhead;
  private final long splitEnd;
  private final Object lock = new Object();
  /** Parquet row groups read ahead (guarded by {@code lock}); null until the stream has a footer. */
  private RowGroupsAhead rowGroups;

  /**
   * @param ranges the read-through of ranges: what neither the row groups read ahead nor the spans hold
   * @param spans the bytes the stream holds outside its blocks
   * @param parquet the stream's Parquet footer
   * @param blockSize the stream's block size
   * @param pieceSize the largest piece of a row group read ahead
   * @param maxAhead the most bytes of row groups a stream holds ahead
   * @param splitEnd the end (exclusive) of the caller's split, or 0 or less for none: no row group past it
   *     is read ahead, and the rest of the split is, from the first vectored read
   */
  VectoredReads(RangeThrough ranges, BufferPool pool, StreamRequests requests, ReadStatistics stats,
      HeldSpans spans, StreamFooter parquet, int blockSize, int pieceSize, long maxAhead, long splitEnd) {
    this.ranges = ranges;
    this.pool = pool;
    this.requests = requests;
    this.stats = stats;
    this.spans = spans;
    this.parquet = parquet;
    this.blockSize = blockSize;
    this.pieceSize = pieceSize;
    this.maxAhead = maxAhead;
    this.splitEnd = splitEnd;
  }

  /** Reads {@code [position, position + len)} (inside the object, len > 0) into {@code dst} asynchronously. */
  CompletableFuture<Void> read(long position, byte[] dst, int off, int len) {
    // Chunks being fetched by prediction first (at once if none: a completed future runs it on this thread).
    return spans.pending(position, len).thenCompose(v -> readNow(position, dst, off, len))
        .thenRun(() -> stats.add(Counter.BYTES_READ, len));
  }

  /**
   * What the row groups read ahead hold of the range is copied once fetched, then what the stream's spans
   * hold of each gap they leave (a column chunk a dictionary read fetched whole, say), and the rest of each
   * gap is fetched in one call to the read-through of ranges ({@link RangeThrough#range}): the one gap at an
   * end, or the whole gap if what is held lies inside it (it would cut one GET in two).
   */
  private CompletableFuture<Void> readNow(long position, byte[] dst, int off, int len) {
    RowGroupsAhead ahead = rowGroupPrefetch();
    RowGroupsAhead.Found pieces = ahead == null ? null : ahead.read(position, dst, off, len);
    List<CompletableFuture<Void>> done = new ArrayList<>(2);
    if (pieces != null) {
      done.add(pieces.copied());
    }
    for (long[] gap : pieces == null ? List.of(new long[] {position, position + len}) : pieces.gaps()) {
      int at = off + (int) (gap[0] - position);
      HeldSpans.Unheld g = spans.copyHeld(gap[0], dst, at, (int) (gap[1] - gap[0]));
      if (g != null) {
        done.add(ranges.range(g.start(), dst, off + (int) (g.start() - position), g.length(), Purpose.RANGE).done());
      }
    }
    return done.size() == 1 ? done.get(0) : CompletableFuture.allOf(done.toArray(CompletableFuture[]::new));
  }

  /** The Parquet row-group read-ahead, once the stream has a footer; null otherwise. */
  private RowGroupsAhead rowGroupPrefetch() {
    synchronized (lock) {
      if (rowGroups != null) {
        return rowGroups;
      }
      ParquetFooter footer = parquet.footer();
      if (footer != null && !requests.isClosed()) {
        // Through the chain: a row group fetched ahead by an earlier query is read from disk.
        rowGroups = new RowGroupsAhead(footer, pool,
            (p, d, n) -> ranges.range(p, d, n, Purpose.ROW_GROUP_AHEAD), spans::unheldEnd, stats, blockSize,
            pieceSize, maxAhead, splitEnd, parquet::predictionsOff);
      }
      return rowGroups;
    }
  }

  /**
   * Bytes read ahead to the file's end without a split, released so far, and of them those no read copied:
   * their share of the client's predictions, judged for waste ({@link StreamFooter#closed}).
   */
  long[] fetchedToEnd() {
    RowGroupsAhead rg = rowGroups();
    return rg == null ? new long[2] : new long[] {rg.fetchedToEnd(), rg.unreadToEnd()};
  }

  /** Gives back the row groups read ahead (unbuffer). */
  void clear() {
    RowGroupsAhead rg = rowGroups();
    if (rg != null) {
      rg.clear();
    }
  }

  /** Cancels the row groups being read ahead: before the stream waits for its requests to end. */
  void close() {
    RowGroupsAhead rg = rowGroups();
    if (rg != null) {
      rg.close();
    }
  }

  private RowGroupsAhead rowGroups() {
    synchronized (lock) {
      return rowGroups;
    }
  }
}
