/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.block;

import dev.slipstream.Counter;
import dev.slipstream.ReadStatistics;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Bytes {@code [start, start + length)} of one object in a buffer of a {@link BufferPool}: a {@link Block}
 * of a stream's grid, or a {@link Span} outside it.
 *
 * <p>Lifetime is a reference count. The owner holds one reference while it keeps the bytes; whoever
 * fills them holds one while it writes; each reader pins one while it copies; a disk-cache write pins
 * one until written. The buffer goes back to the pool when the count reaches zero, and not before, so
 * bytes dropped by their owner (a seek, {@code close()}, an eviction) can never be recycled under a
 * writer or a reader still using them. Exactly one party drops the owner reference: the owner ({@link
 * #releaseOwner}) or the pool ({@link #evict}), whichever comes first; once filled, bytes only their owner
 * holds are the pool's to evict when a reader waits for memory.
 *
 * <p>Invariant: {@code refs > 0} if and only if the buffer is valid.
 */
public abstract sealed class PooledBytes extends Evictable permits Block, Span {
  private final long start;
  private final int length;
  private final BufferPool pool;
  private final ReadStatistics stats;
  private final AtomicInteger refs = new AtomicInteger(1);
  private final AtomicBoolean ownerReleased = new AtomicBoolean();
  private final AtomicBoolean onDisk = new AtomicBoolean();
  private volatile byte[] buffer;
  /** The name the bytes are kept under in the pool's free memory once the buffer goes back, or null. */
  private volatile Object keepAs;
  /** Read past by a read that declared it reads once: kept, but the first kept bytes to give up their buffer. */
  private volatile boolean passed;

  /** New bytes holding the owner's reference, plus one pin per {@code extraPins}. */
  PooledBytes(long start, byte[] buffer, int length, BufferPool pool, ReadStatistics stats, int extraPins) {
    this.start = start;
    this.buffer = buffer;
    this.length = length;
    this.pool = pool;
    this.stats = stats;
    this.refs.set(1 + extraPins);
  }

  public final long start() {
    return start;
  }

  public final long end() {
    return start + length;
  }

  public final int length() {
    return length;
  }

  /** The buffer; valid only while the caller holds a reference (owner, writer or pin). */
  public final byte[] buffer() {
    return buffer;
  }

  /** The filling ended, well or not. */
  public abstract boolean isDone();

  /** Filled: the bytes may be read. */
  public abstract boolean isReady();

  /** The owner drops its reference for good, before the buffer may go (a prefetched block counts its waste). */
  void ownerDropped() {}

  final ReadStatistics stats() {
    return stats;
  }

  final BufferPool pool() {
    return pool;
  }

  @Override
  final boolean isUnpinned() {
    return refs.get() == 1 && !ownerReleased.get() && isDone();
  }

  @Override
  final boolean isOwned() {
    return !ownerReleased.get();
  }

  /** References beyond the owner's: a writer or readers. */
  final int pins() {
    return refs.get() - (ownerReleased.get() ? 0 : 1);
  }

  /** Takes a reader's pin; false if the bytes are gone (evicted or released) and must be fetched again. */
  public final boolean tryPin() {
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

  public final void unpin() {
    int r = refs.decrementAndGet();
    if (r == 0) {
      byte[] b = buffer;
      buffer = null;
      Object name = keepAs;
      if (name != null && isReady()) {
        pool.release(b, name, passed, length, stats);
      } else {
        pool.release(b);
      }
    } else if (r == 1 && isDone() && !ownerReleased.get()) {
      pool.evictable(); // only the owner holds it now: a reader waiting for memory may take it
    } else if (r < 0) {
      throw new IllegalStateException(this + " unpinned more often than pinned");
    }
  }

  /** Filling ended: the bytes become an eviction candidate if their owner still holds them. */
  final void becameIdle() {
    if (!ownerReleased.get()) {
      pool.markIdle(this);
    }
  }

  /** The owner drops the bytes. The buffer returns to the pool once no writer or reader holds it. */
  public final void releaseOwner() {
    if (ownerReleased.compareAndSet(false, true)) {
      pool.unmarkIdle(this);
      ownerDropped();
      unpin();
    }
  }

  /** The pool takes idle bytes back. Fails if the owner already released them or a reader pinned them. */
  @Override
  final boolean evict() {
    if (refs.get() != 1 || !isDone()) {
      return false;
    }
    if (ownerReleased.compareAndSet(false, true)) {
      keepAs = null; // taken because memory is wanted now
      stats.increment(Counter.BLOCKS_EVICTED);
      ownerDropped();
      unpin();
      return true;
    }
    return false;
  }

  /**
   * Once the last holder lets go, the bytes (if filled) stay in the pool's free memory under {@code name}
   * (see {@link BufferPool}), for a later stream to read again.
   */
  public final void keepInMemory(Object name) {
    if (isReady()) {
      keepAs = name;
    }
  }

  /**
   * A read that declared it reads the object once has read past these bytes: if kept in memory, their
   * buffer is the first one a new buffer of its size takes (see {@link BufferPool}).
   */
  public final void passed() {
    passed = true;
  }

  /** The bytes came from the disk cache, or are being written to it: never write them again. */
  public final void markOnDisk() {
    onDisk.set(true);
  }

  /** True once, for the one party that writes these bytes to the disk cache. */
  public final boolean claimDiskWrite() {
    return onDisk.compareAndSet(false, true);
  }
}
