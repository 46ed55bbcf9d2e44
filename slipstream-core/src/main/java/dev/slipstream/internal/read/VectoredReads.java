/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.read;

import dev.slipstream.Counter;
import dev.slipstream.ReadStatistics;
import dev.slipstream.internal.block.BufferPool;
import dev.slipstream.internal.fetch.Purpose;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * A stream's asynchronous range reads (Hadoop's vectored reads): what the stream's spans hold is copied
 * ({@link HeldSpans}: a column chunk a dictionary read fetched whole, say), the rest fetched by {@link
 * RangeFetches} (from wherever it is, in parallel parts). Once the stream has a Parquet plan, the row
 * groups a reader is about to ask for are fetched ahead ({@link RowGroupAhead}), and a read takes what
 * they hold.
 *
 * <p>Rules kept: the row groups read ahead are the stream's requests like any other, so close cancels
 * them; they take free memory only, within the stream's budget for them.
 */
final class VectoredReads {
  private final RangeFetches ranges;
  private final BufferPool pool;
  private final StreamRequests requests;
  private final ReadStatistics stats;
  private final HeldSpans spans;
  private final StreamPlan plan;
  private final int blockSize;
  private final int pieceSize;
  private final long maxAhead;
  private final Object lock = new Object();
  /** Parquet row groups read ahead (guarded by {@code lock}); null until the stream has a plan. */
  private RowGroupAhead rowGroups;

  /**
   * @param ranges what fetches the bytes the spans do not hold
   * @param spans the bytes the stream holds outside its blocks
   * @param plan the stream's Parquet plan
   * @param blockSize the stream's block size
   * @param pieceSize the largest piece of a row group read ahead
   * @param maxAhead the most bytes of row groups a stream holds ahead
   */
  VectoredReads(RangeFetches ranges, BufferPool pool, StreamRequests requests, ReadStatistics stats,
      HeldSpans spans, StreamPlan plan, int blockSize, int pieceSize, long maxAhead) {
    this.ranges = ranges;
    this.pool = pool;
    this.requests = requests;
    this.stats = stats;
    this.spans = spans;
    this.plan = plan;
    this.blockSize = blockSize;
    this.pieceSize = pieceSize;
    this.maxAhead = maxAhead;
  }

  /** Reads {@code [position, position + len)} (inside the object, len > 0) into {@code dst} asynchronously. */
  CompletableFuture<Void> read(long position, byte[] dst, int off, int len) {
    CompletableFuture<Void> predicted = spans.pending(position, len); // chunks being fetched by prediction
    CompletableFuture<Void> done = predicted.isDone() ? readNow(position, dst, off, len)
        : predicted.thenCompose(v -> readNow(position, dst, off, len));
    return done.thenRun(() -> stats.add(Counter.BYTES_READ, len));
  }

  private CompletableFuture<Void> readNow(long position, byte[] dst, int off, int len) {
    RowGroupAhead ahead = rowGroupAhead();
    return ahead == null ? heldOrRange(position, dst, off, len) : ahead.read(position, dst, off, len, this::heldOrRange);
  }

  /**
   * Copies what the stream's spans hold of a range now, and reads the rest: one range, or the whole if
   * what is held lies inside it and would cut it in two.
   */
  private CompletableFuture<Void> heldOrRange(long position, byte[] dst, int off, int len) {
    List<long[]> gaps = spans.copyHeld(position, dst, off, len);
    if (gaps.isEmpty()) {
      return CompletableFuture.completedFuture(null);
    }
    if (gaps.size() > 1 || gaps.get(0)[0] == position && gaps.get(0)[1] == position + len) {
      // Held bytes in the middle of a range would split one GET into two: fetch it whole.
      return ranges.range(position, dst, off, len, Purpose.RANGE).done();
    }
    long[] g = gaps.get(0);
    return ranges.range(g[0], dst, off + (int) (g[0] - position), (int) (g[1] - g[0]), Purpose.RANGE).done();
  }

  /** The Parquet row-group read-ahead, once the stream has a plan; null otherwise. */
  private RowGroupAhead rowGroupAhead() {
    synchronized (lock) {
      if (rowGroups != null) {
        return rowGroups;
      }
      ParquetFooter footer = plan.footer();
      if (footer != null && !requests.isClosed()) {
        // Through the chain: a row group fetched ahead by an earlier query is read from disk.
        rowGroups = new RowGroupAhead(footer, pool,
            (p, d, o, n) -> ranges.range(p, d, o, n, Purpose.ROW_GROUP_AHEAD), spans::unheldEnd, stats, blockSize,
            pieceSize, maxAhead);
      }
      return rowGroups;
    }
  }

  /** Gives back the row groups read ahead (unbuffer). */
  void clear() {
    RowGroupAhead rg = rowGroups();
    if (rg != null) {
      rg.clear();
    }
  }

  /** Cancels the row groups being read ahead: before the stream waits for its requests to end. */
  void close() {
    RowGroupAhead rg = rowGroups();
    if (rg != null) {
      rg.close();
    }
  }

  private RowGroupAhead rowGroups() {
    synchronized (lock) {
      return rowGroups;
    }
  }
}
