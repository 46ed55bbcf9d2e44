/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.read;

import dev.slipstream.Counter;
import dev.slipstream.ReadStatistics;
import dev.slipstream.internal.ahead.AheadFetch;
import dev.slipstream.internal.ahead.HeldSpans;
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
 * A stream's asynchronous range reads (Hadoop's vectored reads): once the stream has a Parquet footer, a
 * range first tells the row groups read ahead ({@link RowGroupsAhead#onRead}, which may start the next ones'
 * chunks beside it), then waits for the spans fetched ahead into it ({@link HeldSpans#pending}: predicted
 * chunks, row groups' pieces, whoever fetched them), then asks the stream's one store once for what it holds
 * ({@link HeldSpans#copyHeldRanges}), and the rest goes to {@link RangeThrough#range}, fetched from wherever
 * it is, in parallel parts. Each range passes each of these once, in this order.
 *
 * <p>Rules kept: the row groups read ahead are the stream's requests like any other, so close cancels
 * them; they take free memory only, within the stream's one budget for bytes held ahead.
 */
final class VectoredReads {
  private final RangeThrough ranges;
  private final StreamRequests requests;
  private final ReadStatistics stats;
  private final HeldSpans spans;
  private final StreamFooter parquet;
  private final AheadFetch rowGroupsFetch;
  private final int blockSize;
  private final int pieceSize;
  private final long splitEnd;
  private final Object lock = new Object();
  /** Parquet row groups read ahead (guarded by {@code lock}); null until the stream has a footer. */
  private RowGroupsAhead rowGroups;

  /**
   * @param ranges the read-through of ranges: what the store does not hold
   * @param spans the stream's store of the bytes it holds outside its blocks, those fetched ahead included
   * @param parquet the stream's Parquet footer
   * @param rowGroupsFetch how the row groups' pieces are fetched ahead and held in {@code spans}
   * @param blockSize the stream's block size
   * @param pieceSize the largest piece of a row group read ahead
   * @param splitEnd the end (exclusive) of the caller's split, or 0 or less for none: no row group past it
   *     is read ahead, and the rest of the split is, from the first vectored read
   */
  VectoredReads(RangeThrough ranges, StreamRequests requests, ReadStatistics stats, HeldSpans spans,
      StreamFooter parquet, AheadFetch rowGroupsFetch, int blockSize, int pieceSize, long splitEnd) {
    this.ranges = ranges;
    this.requests = requests;
    this.stats = stats;
    this.spans = spans;
    this.parquet = parquet;
    this.rowGroupsFetch = rowGroupsFetch;
    this.blockSize = blockSize;
    this.pieceSize = pieceSize;
    this.splitEnd = splitEnd;
  }

  /** Reads {@code [position, position + len)} (inside the object, len > 0) into {@code dst} asynchronously. */
  CompletableFuture<Void> read(long position, byte[] dst, int off, int len) {
    RowGroupsAhead ahead = rowGroupsAhead();
    if (ahead != null) {
      ahead.onRead(position, len);
    }
    // What is being fetched ahead into the range first (at once if none: a completed future runs it here).
    return spans.pending(position, len).thenCompose(v -> readNow(position, dst, off, len))
        .thenRun(() -> stats.add(Counter.BYTES_READ, len));
  }

  /**
   * What the store holds of the range is copied, and each part it leaves is fetched in one call to the
   * read-through of ranges ({@link RangeThrough#range}).
   */
  private CompletableFuture<Void> readNow(long position, byte[] dst, int off, int len) {
    List<HeldSpans.Unheld> gaps = spans.copyHeldRanges(position, dst, off, len);
    List<CompletableFuture<Void>> done = new ArrayList<>(gaps.size());
    for (HeldSpans.Unheld g : gaps) {
      done.add(ranges.range(g.start(), dst, off + (int) (g.start() - position), g.length(), Purpose.RANGE).done());
    }
    return done.isEmpty() ? CompletableFuture.completedFuture(null)
        : done.size() == 1 ? done.get(0) : CompletableFuture.allOf(done.toArray(CompletableFuture[]::new));
  }

  /** The Parquet row groups read ahead, once the stream has a footer; null otherwise. */
  private RowGroupsAhead rowGroupsAhead() {
    synchronized (lock) {
      if (rowGroups != null) {
        return rowGroups;
      }
      ParquetFooter footer = parquet.footer();
      if (footer != null && !requests.isClosed()) {
        // Through the chain: a row group fetched ahead by an earlier query is read from disk.
        rowGroups = new RowGroupsAhead(footer, spans, rowGroupsFetch, stats, blockSize, pieceSize, splitEnd,
            parquet::predictionsOff);
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

  /** Gives back the row groups read ahead, and their plans (unbuffer). */
  void clear() {
    RowGroupsAhead rg = rowGroups();
    if (rg != null) {
      rg.clear();
    }
  }

  /** Ends the row groups' plans and lets their pieces go: before the stream waits for its requests to end. */
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
