/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.ahead;

import dev.slipstream.ReadStatistics;
import dev.slipstream.internal.block.BufferPool;
import dev.slipstream.internal.block.Destination;
import dev.slipstream.internal.block.Span;
import dev.slipstream.internal.fetch.Purpose;
import dev.slipstream.internal.fetch.StreamRequests;
import dev.slipstream.internal.source.RangeThrough;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * Spans fetched ahead of the reads, the way predicted Parquet columns, Parquet row groups and ORC stripe
 * footers and streams are: into buffers of free pool memory (never waiting, never evicting) within the
 * stream's one budget for bytes held ahead ({@link AheadBudget}), held in the stream's spans while
 * they are fetched ({@link HeldSpans#addAhead}), so that a read of their bytes waits for them rather than
 * fetching them again; dropped if their fetch fails (a read then fetches the bytes itself). A run of
 * pieces is one fetch into their buffers end to end ({@link Destination#pieces}): the GETs of one buffer.
 * Such a fetch is a guess ({@link Purpose#fetchedAhead}): it queues behind every read a caller of any stream
 * waits for, until a read of this stream comes to wait for one of its spans ({@link HeldSpans#pending});
 * then it is promoted ahead of every prefetch, as a block is when its reader arrives. Thread-safe.
 */
public final class AheadFetch {
  /**
   * The least a range read is worth fetching, unless the object ends sooner: S3A's {@code
   * fs.s3a.readahead.range}. A round trip to S3 (20 ms and more) costs more than 64 KiB at one connection's
   * speed, so ranges closer together than this come in one request, and a range read fetches at least this.
   */
  public static final int MIN_GET = 64 * 1024;

  /**
   * Fetches {@code [position, position + len)} ahead into {@code dst} (pieces end to end), as a prefetch:
   * {@link RangeThrough.Fetch#promote}d once a read claims one of its pieces.
   */
  @FunctionalInterface
  public interface Range {
    RangeThrough.Fetch start(long position, Destination dst, int len);
  }

  private final HeldSpans spans;
  private final BufferPool pool;
  private final Range fetch;
  private final StreamRequests requests;
  private final ReadStatistics stats;

  /** Spans fetched ahead for {@code why} (a purpose {@linkplain Purpose#fetchedAhead fetched ahead}), through {@code ranges}. */
  public static AheadFetch of(RangeThrough ranges, Purpose why, HeldSpans spans, BufferPool pool, StreamRequests requests,
      ReadStatistics stats) {
    if (!why.fetchedAhead()) {
      throw new IllegalArgumentException("not a purpose fetched ahead: " + why);
    }
    return new AheadFetch(spans, pool, (p, dst, n) -> ranges.range(p, dst, n, why), requests, stats);
  }

  /** @param fetch how a range is fetched (the tiers, then S3) into pieces end to end */
  public AheadFetch(HeldSpans spans, BufferPool pool, Range fetch, StreamRequests requests,
      ReadStatistics stats) {
    this.spans = spans;
    this.pool = pool;
    this.fetch = fetch;
    this.requests = requests;
    this.stats = stats;
  }

  /**
   * A buffer of free pool memory for {@code n} bytes, taken from the stream's budget for bytes held ahead
   * until the span it becomes goes ({@link #start}); null if the budget or memory is short, the stream is
   * closed, or {@code n} is no length (a length from a file's metadata that passed every check is still
   * never an allocation error in a read).
   */
  public byte[] buffer(int n) {
    if (requests.isClosed() || n <= 0) {
      return null;
    }
    int size = BufferPool.sizeFor(n);
    AheadBudget budget = spans.budget();
    if (!budget.take(size)) {
      return null;
    }
    byte[] buffer = pool.tryAcquire(size);
    if (buffer == null) {
      budget.untake(size);
    }
    return buffer;
  }

  /**
   * Starts fetching {@code [start, start + n)} into a span held ahead; null if memory is short or the
   * stream is closed. {@code filled} is given the span's buffer once it is in, before a read waiting for
   * it copies; {@code released} is told, once, how many of its bytes reads copied when it goes.
   */
  public Span start(long start, int n, Consumer<byte[]> filled, HeldSpans.Released released) {
    byte[] buffer = buffer(n);
    return buffer == null ? null : start(start, List.of(buffer), n, n, filled, span -> released, false).get(0);
  }

  /**
   * Holds {@code buffers} (each from {@link #buffer}), pieces of {@code [start, start + len)} of {@code
   * pieceSize} bytes end to end (the last may be shorter), as spans fetched ahead, and fetches them with one
   * range. {@code filled} is given each buffer once the range is in; {@code released} names what each span
   * is told when it goes; with {@code untilRead}, each goes once reads have copied all of it ({@link
   * HeldSpans#addAhead}).
   */
  public List<Span> start(long start, List<byte[]> buffers, int len, int pieceSize, Consumer<byte[]> filled,
      Function<Span, HeldSpans.Released> released, boolean untilRead) {
    List<Span> held = new ArrayList<>(buffers.size());
    List<CompletableFuture<Void>> ready = new ArrayList<>(buffers.size()); // each span filled, or dropped
    // The spans are held before the fetch starts: a read that claims one meanwhile promotes it once it has.
    CompletableFuture<RangeThrough.Fetch> started = new CompletableFuture<>();
    Runnable claimed = () -> started.thenAccept(RangeThrough.Fetch::promote);
    for (int i = 0; i < buffers.size(); i++) {
      long at = start + (long) i * pieceSize;
      Span span = new Span(at, buffers.get(i), (int) Math.min(pieceSize, start + len - at), pool, stats);
      CompletableFuture<Void> done = new CompletableFuture<>();
      spans.addAhead(span, done, released.apply(span), claimed, untilRead);
      held.add(span);
      ready.add(done);
    }
    CompletableFuture<Void> fetched;
    try {
      RangeThrough.Fetch f = fetch.start(start, Destination.pieces(buffers, pieceSize), len);
      started.complete(f);
      fetched = f.done();
    } catch (RuntimeException e) { // a fetch that could not start (the client closing): the spans are dropped
      started.completeExceptionally(e);
      fetched = CompletableFuture.failedFuture(e);
    }
    for (int i = 0; i < held.size(); i++) {
      Span span = held.get(i);
      CompletableFuture<Void> done = ready.get(i);
      fetched.whenComplete((v, t) -> {
        try {
          if (t == null) {
            span.filled();
            try {
              filled.accept(span.buffer());
            } finally {
              span.unpin();
            }
          } else {
            span.unpin();
            spans.dropAhead(span);
          }
        } finally {
          done.complete(null);
        }
      });
    }
    if (requests.isClosed()) {
      spans.releaseAll(); // close() may have swept the spans before these were held
    }
    return held;
  }
}
