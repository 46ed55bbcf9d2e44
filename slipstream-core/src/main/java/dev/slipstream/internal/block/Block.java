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
  private final CompletableFuture<Void> done = new CompletableFuture<>();
  private volatile byte[] buffer;
  private volatile Runnable canceller;

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
    return refs.get() == 1 && !ownerReleased.get();
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
    } else if (r < 0) {
      throw new IllegalStateException("block " + index + " unpinned more often than pinned");
    }
  }

  /** The fetch finished; the block becomes an eviction candidate if its owner still holds it. */
  public void complete() {
    done.complete(null);
    if (!ownerReleased.get()) {
      pool.markIdle(this);
    }
  }

  public void fail(Throwable t) {
    done.completeExceptionally(t);
  }

  /** Called by whoever runs the fetch, so that {@link #cancel()} can stop it. */
  public void onCancel(Runnable canceller) {
    this.canceller = canceller;
  }

  /** Stops the fetch if it is still running. The owner reference is untouched. */
  public void cancel() {
    Runnable c = canceller;
    if (c != null) {
      c.run();
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

  /** Counts a prefetched block as used, once. */
  public void markUsed() {
    if (prefetched && used.compareAndSet(false, true)) {
      stats.increment(Counter.PREFETCH_USED);
    }
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
    if (refs.get() != 1 || !isReady()) {
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
