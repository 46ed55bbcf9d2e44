/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.read;

import dev.slipstream.Counter;
import dev.slipstream.ReadStatistics;
import dev.slipstream.internal.ahead.HeldSpans;
import dev.slipstream.internal.fetch.Purpose;
import dev.slipstream.internal.source.RangeThrough;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * A stream's asynchronous range reads (Hadoop's vectored reads): a range waits for the spans fetched ahead
 * into it ({@link HeldSpans#pending}: predicted chunks, row groups' pieces, stripes' streams, whoever fetched
 * them; the parts that fetch ahead were told of the range before, by the stream), then asks the stream's one
 * store once for what it holds ({@link HeldSpans#copyHeldRanges}), and the rest goes to {@link
 * RangeThrough#range}, fetched from wherever it is, in parallel parts. Each range passes each of these once,
 * in this order. Knows no file format.
 */
final class VectoredReads {
  private final RangeThrough ranges;
  private final ReadStatistics stats;
  private final HeldSpans spans;

  /**
   * @param ranges the read-through of ranges: what the store does not hold
   * @param spans the stream's store of the bytes it holds outside its blocks, those fetched ahead included
   */
  VectoredReads(RangeThrough ranges, ReadStatistics stats, HeldSpans spans) {
    this.ranges = ranges;
    this.stats = stats;
    this.spans = spans;
  }

  /** Reads {@code [position, position + len)} (inside the object, len > 0) into {@code dst} asynchronously. */
  CompletableFuture<Void> read(long position, byte[] dst, int off, int len) {
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
}
