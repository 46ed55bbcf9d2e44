/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.block;

import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * Free buffers of a {@link BufferPool} that hold nothing worth keeping, by size, waiting for a stream
 * to reuse them (no garbage per block). Each is held softly ({@link IdleBuffer}): the collector may
 * take it back when the heap runs short, and one nobody has reused for {@link #IDLE_NANOS} goes back to
 * the heap when the pool next looks. Guarded by the pool's lock; no method blocks.
 */
final class FreeBuffers {
  /**
   * How long a free buffer waits for a stream to reuse it before it goes back to the heap. A sequential
   * read reuses its buffers within milliseconds; a pool that nobody has asked for a buffer of that size
   * for seconds is done with it.
   */
  static final long IDLE_NANOS = TimeUnit.SECONDS.toNanos(2);

  /** By size, the most recently freed first (the oldest last). */
  private final Map<Integer, ArrayDeque<IdleBuffer>> bySize = new HashMap<>();
  /** The size {@link #ofSize} was last asked for, and its buffers. */
  private int lastSize = -1;
  private ArrayDeque<IdleBuffer> lastQueue;
  /** Bytes of the free buffers the collector has not taken (those it took stay queued until seen). */
  private long bytes;
  /** Bytes of free buffers the collector took. */
  private long collected;
  /** When the buffers are next looked at for having waited too long (the pool's clock). */
  private long nextLook;

  FreeBuffers(long now) {
    this.nextLook = now;
  }

  long bytes() {
    return bytes;
  }

  long collected() {
    return collected;
  }

  /** {@code held}, handed back at {@code now}, waits here. */
  void push(IdleBuffer held, long now) {
    held.where = IdleBuffer.Where.FREE;
    held.handedOut = null;
    held.freeSince = now;
    ofSize(held.size).push(held);
    bytes += held.cost;
  }

  /**
   * The most recently freed buffer of {@code size} bytes the collector has not taken, out of here and
   * held strongly ({@link IdleBuffer#handedOut}); or null.
   */
  IdleBuffer pop(int size) {
    ArrayDeque<IdleBuffer> q = ofSize(size);
    for (IdleBuffer h; (h = q.poll()) != null; ) {
      byte[] b = h.get();
      if (b != null) {
        bytes -= h.cost;
        h.handedOut = b;
        return h;
      }
      cleared(h); // taken by the collector, not yet queued
    }
    return null;
  }

  /** Drops one free buffer of any size to the heap; its bytes, or -1 if there is none. */
  long dropAny() {
    for (ArrayDeque<IdleBuffer> q : bySize.values()) {
      IdleBuffer h = q.poll();
      if (h != null) {
        boolean counted = h.where == IdleBuffer.Where.FREE;
        drop(h);
        return counted ? h.cost : 0;
      }
    }
    return -1;
  }

  /**
   * Buffers that have waited {@link #IDLE_NANOS} by {@code now} go back to the heap; looked for a few
   * times in that period, not at every call, unless {@code always}.
   */
  void dropIdle(long now, boolean always) {
    if (!always && now - nextLook < 0) {
      return;
    }
    nextLook = now + IDLE_NANOS / 4;
    long cutoff = now - IDLE_NANOS;
    for (ArrayDeque<IdleBuffer> q : bySize.values()) {
      for (IdleBuffer oldest; (oldest = q.peekLast()) != null && oldest.freeSince - cutoff < 0; ) {
        drop(q.pollLast());
      }
    }
  }

  /** The collector took {@code held}: its bytes are gone (it stays queued until popped or dropped). */
  void cleared(IdleBuffer held) {
    if (held.where == IdleBuffer.Where.FREE) {
      bytes -= held.cost;
      collected += held.cost;
    }
    held.where = IdleBuffer.Where.GONE;
  }

  /** Every free buffer: softly reachable only, as the collector sees them. */
  void forEach(Consumer<IdleBuffer> action) {
    for (ArrayDeque<IdleBuffer> q : bySize.values()) {
      q.forEach(action);
    }
  }

  /**
   * The buffers of {@code size} bytes. The last size asked is remembered: a sequential read asks for one
   * size, and looking it up in the map would box it on every block.
   */
  private ArrayDeque<IdleBuffer> ofSize(int size) {
    if (size != lastSize) {
      lastQueue = bySize.computeIfAbsent(size, k -> new ArrayDeque<>());
      lastSize = size;
    }
    return lastQueue;
  }

  private void drop(IdleBuffer held) {
    if (held.where == IdleBuffer.Where.FREE) {
      bytes -= held.cost;
    }
    held.where = IdleBuffer.Where.GONE;
    held.clear();
  }
}
