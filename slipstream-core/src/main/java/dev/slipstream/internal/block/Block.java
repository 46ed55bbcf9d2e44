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

/**
 * One block of one object: bytes {@code [start, start + length)} in a pooled buffer, being fetched or
 * fetched.
 *
 * <p>Lifetime is a reference count. The owning stream holds one reference while the block is in its
 * map; the fetch holds one while it writes; each reader pins one while it copies. The buffer goes back
 * to the pool when the count reaches zero, and not before, so a block dropped by its owner (a seek,
 * {@code close()}, an eviction) can never be recycled under a fetch or a reader still using it.
 * Exactly one party drops the owner reference: the owner ({@link #releaseOwner}) or the pool
 * ({@link #evict}), whichever comes first.
 *
 * <p>Invariant: {@code refs > 0} if and only if the buffer is valid.
 */
public final class Block {
  private final long index;
  private final long start;
  private final int length;
  private final boolean prefetched;
  private final BufferPool pool;
  private final ReadStatistics stats;
  private final AtomicInteger refs = new AtomicInteger(1);
  private final AtomicBoolean ownerReleased = new AtomicBoolean();
  private final AtomicBoolean used = new AtomicBoolean();
  private final AtomicBoolean onDisk = new AtomicBoolean();
  private final AtomicInteger readEnd = new AtomicInteger();
  private final CompletableFuture<Void> done = new CompletableFuture<>();
  private volatile byte[] buffer;
  private volatile Runnable canceller;
  private volatile Runnable promoter;
  /** Completes when the fetch has ended and dropped its pin. */
  private final CompletableFuture<Void> fetchEnded = new CompletableFuture<>();

  /**
   * A new block holding the owner's reference, plus one pin per {@code extraPins} (a fetch, a reader
   * that asked for it).
   */
  public Block(long index, long start, byte[] buffer, int length, boolean prefetched,
      BufferPool pool, ReadStatistics stats, int extraPins) {
    this.index = index;
    this.start = start;
    this.buffer = buffer;
    this.length = length;
    this.prefetched = prefetched;
    this.pool = pool;
    this.stats = stats;
    this.refs.set(1 + extraPins);
  }

  public long index() {
    return index;
  }

  public long start() {
    return start;
  }

  public long end() {
    return start + length;
  }

  public int length() {
    return length;
  }

  /** The buffer; valid only while the caller holds a reference (owner, fetch or pin). */
  public byte[] buffer() {
    return buffer;
  }

  public boolean isDone() {
    return done.isDone();
  }

  /** Fetched successfully. */
  public boolean isReady() {
    return done.isDone() && !done.isCompletedExceptionally();
  }

  boolean isUnpinned() {
    return refs.get() == 1 && !ownerReleased.get() && done.isDone();
  }

  boolean isOwned() {
    return !ownerReleased.get();
  }

  /** Takes a reader's pin; false if the block is gone (evicted or released) and must be fetched again. */
  public boolean tryPin() {
    while (true) {
      int r = refs.get();
      if (r <= 0) {
        return false;
      }
      if (refs.compareAndSet(r, r + 1)) {
        return true;
      }
    }
  }

  public void unpin() {
    int r = refs.decrementAndGet();
    if (r == 0) {
      byte[] b = buffer;
      buffer = null;
      pool.release(b);
    } else if (r == 1 && done.isDone() && !ownerReleased.get()) {
      pool.evictable(); // only the owner holds it now: a reader waiting for memory may take it
    } else if (r < 0) {
      throw new IllegalStateException("block " + index + " unpinned more often than pinned");
    }
  }

  /** True if a reader holds a pin (beyond the owner's reference and the fetch's pin). */
  public boolean isWanted() {
    int others = (ownerReleased.get() ? 0 : 1) + (fetchEnded.isDone() ? 0 : 1);
    return refs.get() > others;
  }

  /** The fetch finished; the block becomes an eviction candidate if its owner still holds it. */
  public void complete() {
    done.complete(null);
    if (!ownerReleased.get()) {
      pool.markIdle(this);
    }
  }

  /**
   * The fetch failed. The block stays an eviction candidate: its buffer holds nothing of use, and a
   * reader that wants the block again fetches it afresh.
   */
  public void fail(Throwable t) {
    done.completeExceptionally(t);
    if (!ownerReleased.get()) {
      pool.markIdle(this);
    }
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

  private volatile boolean cancelRequested;

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
    if (p != null && !done.isDone()) {
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
    return readEnd.get() >= length;
  }

  /** The block's bytes came from the disk cache, or are being written to it: never write it again. */
  public void markOnDisk() {
    onDisk.set(true);
  }

  /** True once, for the one party that writes this block to the disk cache. */
  public boolean claimDiskWrite() {
    return onDisk.compareAndSet(false, true);
  }

  /** Counts a prefetched block as used, once. */
  public void markUsed() {
    if (prefetched && used.compareAndSet(false, true)) {
      stats.increment(Counter.PREFETCH_USED);
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

  /** The owner drops the block. Its buffer returns to the pool once no fetch or reader holds it. */
  public void releaseOwner() {
    if (ownerReleased.compareAndSet(false, true)) {
      pool.unmarkIdle(this);
      countWasteIfUnused();
      unpin();
    }
  }

  /**
   * The pool takes an idle block back. Fails if the owner already released it or a reader pinned it.
   */
  boolean evict() {
    if (refs.get() != 1 || !isDone()) {
      return false;
    }
    if (ownerReleased.compareAndSet(false, true)) {
      stats.increment(Counter.BLOCKS_EVICTED);
      countWasteIfUnused();
      unpin();
      return true;
    }
    return false;
  }

  private void countWasteIfUnused() {
    if (prefetched && !used.get()) {
      stats.increment(Counter.PREFETCH_WASTED);
    }
  }

  @Override
  public String toString() {
    return "Block[" + index + ": " + start + "+" + length + (done.isDone() ? ", done" : ", fetching") + "]";
  }
}
