/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.ahead;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The one budget of a stream's bytes fetched ahead: the buffers of the spans its store holds ahead ({@link
 * HeldSpans#addAhead}), being fetched or filled, counted from the moment a buffer is taken for one ({@link
 * AheadFetch#buffer}) until the store lets its span go (read, passed by the reader, failed, or the stream
 * unbuffered or closed). Every part that fetches ahead (predicted Parquet columns, Parquet row groups, ORC
 * stripe footers and streams) takes from it, so that what a stream holds ahead together stays within
 * {@code prefetch.blocks} blocks, as many as a sequential reader may have in flight, whichever part asks.
 * Counted in buffers, not the bytes asked for: a stream of a few bytes takes a buffer of {@code
 * BufferPool.SIZE_UNIT}, and small spans apart from one another would otherwise hold many times the bound.
 *
 * <p>A part that waits for room (the row groups' plans) is told when some is given back ({@link #whenRoom}),
 * on the thread that gave it back, never under the store's locks. Thread-safe.
 */
public final class AheadBudget {
  private final long bound;
  /** Guarded by {@code this}. */
  private long held;
  /** The most {@link #held} has been; guarded by {@code this}. */
  private long most;
  private final List<Runnable> room = new CopyOnWriteArrayList<>();

  /** @param bound the most bytes of buffers a stream holds ahead at once; 0 or less fetches nothing ahead */
  public AheadBudget(long bound) {
    this.bound = Math.max(0, bound);
  }

  /** The most bytes of buffers a stream holds ahead at once. */
  public long bound() {
    return bound;
  }

  /** Takes {@code bytes}; false, taking nothing, if that is more than is left. */
  synchronized boolean take(long bytes) {
    if (held + bytes > bound) {
      return false;
    }
    held += bytes;
    most = Math.max(most, held);
    return true;
  }

  /** Gives back {@code bytes} just taken for a buffer the pool had no memory for: no room to tell of. */
  synchronized void untake(long bytes) {
    held -= bytes;
  }

  /** Gives back {@code bytes} taken; those waiting for room are told. */
  void give(long bytes) {
    synchronized (this) {
      held -= bytes;
    }
    room.forEach(Runnable::run);
  }

  /** Bytes of buffers held ahead now. */
  public synchronized long held() {
    return held;
  }

  /** The most bytes of buffers the stream held ahead at once so far. */
  public synchronized long mostHeld() {
    return most;
  }

  /** {@code r} runs each time bytes are given back, on the thread that gave them. */
  public void whenRoom(Runnable r) {
    room.add(r);
  }
}
