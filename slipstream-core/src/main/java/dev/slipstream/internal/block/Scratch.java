/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.block;

import java.io.InterruptedIOException;

/**
 * Buffers a cache tier reads into before S3's access check lets the bytes through to a caller's array
 * (docs/architecture.md, rule 8): pool memory, under the one budget (rule 4), never the heap beside it.
 *
 * <p>A caller's thread waits for the memory as it would for its own block ({@link BufferPool#acquire}: an
 * idle block is evicted, or a buffer comes back); it holds no pin while it waits. A fetch thread never
 * waits for memory: the fetches that would give memory back may be queued behind it. It gets a buffer only
 * if the pool has one free ({@link BufferPool#tryAcquire}); otherwise none, and the tier's read is a miss
 * (the bytes then come from S3 straight into the caller's array, with no memory of their own).
 */
public final class Scratch {
  private static final ThreadLocal<Boolean> NEVER_WAITS = ThreadLocal.withInitial(() -> false);

  private Scratch() {}

  /** {@code work}, run on a thread that never waits for memory (a fetch thread's whole life). */
  public static Runnable neverWaiting(Runnable work) {
    return () -> {
      NEVER_WAITS.set(true);
      work.run();
    };
  }

  /**
   * A buffer of {@code size} bytes of {@code pool} for the calling thread (see above), or null: none free
   * on a thread that never waits, or the caller was interrupted while it waited (its interrupt status
   * kept: the read that goes on hears of it).
   */
  public static byte[] acquire(BufferPool pool, int size) {
    byte[] b = pool.tryAcquire(size);
    if (b != null || NEVER_WAITS.get() || size > pool.budget()) {
      return b;
    }
    try {
      return pool.acquire(size);
    } catch (InterruptedIOException e) {
      return null; // the interrupt status is kept
    }
  }
}
