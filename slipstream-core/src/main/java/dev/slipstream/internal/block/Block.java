/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.block;

import dev.slipstream.Counter;
import dev.slipstream.ReadStatistics;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Block {@code index} of a stream's grid, being fetched or fetched, in a pooled buffer (see {@link
 * PooledBytes} for its lifetime: the owning stream holds a reference while the block is in its map; the
 * fetch holds one while it writes; each reader pins one while it copies).
 *
 * <p>Its fetch has an explicit {@link State}: {@code FETCHING}, then {@code FILLED} or {@code FAILED},
 * exactly once ({@link #complete}, {@link #fail}); a second ending is a bug, caught by an assertion and
 * otherwise ignored. Readers wait for the ending ({@link #await}); a failed block is dropped by its stream
 * and fetched afresh when wanted again. Cancelling ({@link #cancel}) asks the fetcher to stop, which then
 * fails the block.
 */
public final class Block extends PooledBytes {
  /** Where a block's fetch stands. */
  public enum State {
    FETCHING,
    FILLED,
    FAILED
  }

  private final long index;
  private final boolean prefetched;
  private final AtomicReference<State> state = new AtomicReference<>(State.FETCHING);
  /** Completes with the state's change: what readers wait on. */
  private final CompletableFuture<Void> done = new CompletableFuture<>();
  /** Completes when the fetch has ended and dropped its pin. */
  private final CompletableFuture<Void> fetchEnded = new CompletableFuture<>();
  private final AtomicBoolean used = new AtomicBoolean();
  private final AtomicInteger readEnd = new AtomicInteger();
  private volatile Runnable canceller;
  private volatile Runnable promoter;
  private volatile boolean cancelRequested;
  /** Who lent the buffer that came holding the block's bytes (the memory cache), or null. */
  private volatile Object lender;

  /**
   * A new block holding the owner's reference, plus one pin per {@code extraPins} (a fetch, a reader
   * that asked for it). {@code prefetched}: fetched before a reader asked, so counted as used or wasted.
   */
  public Block(long index, long start, byte[] buffer, int length, boolean prefetched,
      BufferPool pool, ReadStatistics stats, int extraPins) {
    super(start, buffer, length, pool, stats, extraPins);
    if (index < 0) {
      throw new IllegalArgumentException("block index " + index + ": bytes outside the grid are a Span");
    }
    this.index = index;
    this.prefetched = prefetched;
  }

  /** The buffer came from {@code lender} holding the block's bytes already: its fetch only asks the lender. */
  public void lentBy(Object lender) {
    this.lender = lender;
  }

  /** Who lent the buffer holding the block's bytes, or null if they are to be fetched. */
  public Object lender() {
    return lender;
  }

  public long index() {
    return index;
  }

  public State state() {
    return state.get();
  }

  @Override
  public boolean isDone() {
    return state.get() != State.FETCHING;
  }

  @Override
  public boolean isReady() {
    return state.get() == State.FILLED;
  }

  /** The fetch wrote every byte. */
  public void complete() {
    if (finish(State.FILLED)) {
      done.complete(null);
      becameIdle();
    }
  }

  /**
   * The fetch failed. The block stays an eviction candidate: its buffer holds nothing of use, and a
   * reader that wants the block again fetches it afresh.
   */
  public void fail(Throwable t) {
    if (finish(State.FAILED)) {
      done.completeExceptionally(t);
      becameIdle();
    }
  }

  private boolean finish(State to) {
    if (state.compareAndSet(State.FETCHING, to)) {
      return true;
    }
    assert false : this + ": its fetch ended twice (" + state.get() + ", then " + to + ")";
    return false;
  }

  /** True if a reader holds a pin (beyond the owner's reference and the fetch's pin). */
  public boolean isWanted() {
    return pins() > (fetchEnded.isDone() ? 0 : 1);
  }

  /** Called by the fetcher after it dropped its pin. */
  public void fetchEnded() {
    fetchEnded.complete(null);
  }

  /** Waits, at most {@code millis}, until the fetch has ended and dropped its pin. */
  public boolean awaitFetchEnd(long millis) {
    try {
      fetchEnded.get(millis, java.util.concurrent.TimeUnit.MILLISECONDS);
      return true;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    } catch (ExecutionException | java.util.concurrent.TimeoutException e) {
      return false;
    }
  }

  /**
   * Called by the fetcher: {@code canceller} stops the fetch, {@code promoter} moves it ahead of
   * prefetches if it has not started. A cancel asked for before this call runs now.
   */
  public void onCancel(Runnable canceller, Runnable promoter) {
    this.canceller = canceller;
    this.promoter = promoter;
    if (cancelRequested) {
      canceller.run();
    }
  }

  /** Stops the fetch if it is still running (or as soon as it is submitted). The owner reference is untouched. */
  public void cancel() {
    cancelRequested = true;
    Runnable c = canceller;
    if (c != null) {
      c.run();
    }
  }

  /** A reader is about to wait for this block: if its fetch is still queued, it becomes urgent. */
  public void promote() {
    Runnable p = promoter;
    if (p != null && !isDone()) {
      p.run();
    }
  }

  /**
   * Waits until the block is fetched. Rethrows the fetch's failure. The caller must hold a pin.
   *
   * @return nanoseconds waited (0 if it was already there)
   */
  public long await() throws IOException {
    if (done.isDone()) {
      rethrowIfFailed();
      return 0;
    }
    long t0 = System.nanoTime();
    try {
      done.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted while waiting for block " + index);
    } catch (ExecutionException e) {
      throw asIOException(e.getCause());
    }
    return System.nanoTime() - t0;
  }

  /** The failure of a finished fetch, or null. */
  public Throwable failure() {
    if (!done.isCompletedExceptionally()) {
      return null;
    }
    try {
      done.getNow(null);
      return null;
    } catch (java.util.concurrent.CompletionException e) {
      return e.getCause();
    } catch (java.util.concurrent.CancellationException e) {
      return e;
    }
  }

  private void rethrowIfFailed() throws IOException {
    Throwable t = failure();
    if (t != null) {
      throw asIOException(t);
    }
  }

  private static IOException asIOException(Throwable t) {
    if (t instanceof IOException io) {
      return io;
    }
    if (t instanceof RuntimeException re) {
      throw re;
    }
    if (t instanceof Error err) {
      throw err;
    }
    return new IOException(t);
  }

  /** A reader copied bytes of this block up to {@code endInBlock} (exclusive). */
  public void noteRead(int endInBlock) {
    readEnd.accumulateAndGet(endInBlock, Math::max);
  }

  /** True if some reader read this block up to its last byte: it was consumed, not left behind. */
  public boolean readToEnd() {
    return readEnd.get() >= length();
  }

  /** Counts a prefetched block as used, once. */
  public void markUsed() {
    if (prefetched && used.compareAndSet(false, true)) {
      stats().increment(Counter.PREFETCH_USED);
    }
  }

  /**
   * Undoes a block that lost the race to be inserted in its stream's map: never submitted, never
   * counted as wasted. {@code pins} is how many pins beyond the owner's it was created with.
   */
  public void discard(int pins) {
    used.set(true);
    for (int i = 0; i < pins; i++) {
      unpin();
    }
    releaseOwner();
  }

  @Override
  void ownerDropped() {
    if (prefetched && !used.get()) {
      stats().increment(Counter.PREFETCH_WASTED);
    }
  }

  @Override
  public String toString() {
    return "Block[" + index + ": " + start() + "+" + length() + ", " + state.get() + "]";
  }
}
