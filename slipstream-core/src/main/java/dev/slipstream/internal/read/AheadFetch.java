/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.read;

import dev.slipstream.ReadStatistics;
import dev.slipstream.internal.block.BufferPool;
import dev.slipstream.internal.block.Span;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/**
 * One span fetched ahead of the reads, the way the ORC stripe footers and stripe streams are: into a
 * buffer of free pool memory (never waiting, never evicting), held in the stream's spans while it is
 * fetched ({@link HeldSpans#addAhead}), so that a read of its bytes waits for it rather than fetching them
 * again; dropped if its fetch fails (a read then fetches the bytes itself). Thread-safe.
 */
final class AheadFetch {
  private final HeldSpans spans;
  private final BufferPool pool;
  private final RowGroupPrefetch.Fetch fetch;
  private final StreamRequests requests;
  private final ReadStatistics stats;

  /** @param fetch how a range is fetched (the tiers, then S3) */
  AheadFetch(HeldSpans spans, BufferPool pool, RowGroupPrefetch.Fetch fetch, StreamRequests requests,
      ReadStatistics stats) {
    this.spans = spans;
    this.pool = pool;
    this.fetch = fetch;
    this.requests = requests;
    this.stats = stats;
  }

  /**
   * Starts fetching {@code [start, start + n)} into a span held ahead; null if memory is short or the
   * stream is closed. {@code filled} is given the span's buffer once it is in, before a read waiting for
   * it copies; {@code released} is told, once, how many of its bytes reads copied when it goes.
   */
  Span start(long start, int n, Consumer<byte[]> filled, HeldSpans.Released released) {
    byte[] buffer = requests.isClosed() ? null : pool.tryAcquire(BufferPool.sizeFor(n));
    if (buffer == null) {
      return null;
    }
    Span span = new Span(start, buffer, n, pool, stats);
    CompletableFuture<Void> ready = new CompletableFuture<>(); // once the span is filled, or dropped
    spans.addAhead(span, ready, released);
    CompletableFuture<Void> fetched;
    try {
      fetched = fetch.start(start, buffer, 0, n);
    } catch (RuntimeException e) { // a fetch that could not start (the client closing): the span is dropped
      fetched = CompletableFuture.failedFuture(e);
    }
    fetched.whenComplete((v, t) -> {
      try {
        if (t == null) {
          span.filled();
          try {
            filled.accept(buffer);
          } finally {
            span.unpin();
          }
        } else {
          span.unpin();
          spans.dropAhead(span);
        }
      } finally {
        ready.complete(null);
      }
    });
    if (requests.isClosed()) {
      spans.releaseAll(); // close() may have swept the spans before this one was held
    }
    return span;
  }
}
