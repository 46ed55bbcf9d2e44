/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.block;

import java.lang.ref.ReferenceQueue;
import java.lang.ref.SoftReference;

/**
 * One buffer of a {@link BufferPool}, as the pool refers to it: softly. While the buffer is handed out
 * (a stream's block, a reader's pin on kept bytes) something else holds it strongly and the collector
 * leaves it alone; once it lies idle in the pool (free, or kept by name for the memory cache) this is
 * its only reference, and the collector may take it back. The JVM clears every softly reachable object
 * before it throws an {@link OutOfMemoryError}, so memory the pool holds idle never starves the engine
 * it lives in; the pool notices through its reference queue and counts the bytes as gone.
 *
 * <p>One of these lives as long as its buffer and is handed over with it, so that reusing a buffer
 * allocates nothing. Guarded by the pool's lock.
 */
final class IdleBuffer extends SoftReference<byte[]> {
  /** Where the buffer is, for the pool's accounting. */
  enum Where {
    IN_USE,
    FREE,
    KEPT,
    /** Dropped or cleared by the collector, and no longer counted. */
    GONE
  }

  /** The array's length: what a request for a buffer asks. */
  final int size;
  /** The heap it takes ({@link HeapRegions#cost}): what the pool's budget counts. */
  final long cost;
  Where where = Where.IN_USE;
  /** The buffer while handed out (strongly held then anyway); null while idle, so that only this holds it. */
  byte[] handedOut;
  /** The name its bytes are kept under, while {@link Where#KEPT}. */
  Object keptAs;
  /** When it became free ({@link System#nanoTime()}), for dropping free buffers idle too long. */
  long freeSince;

  IdleBuffer(byte[] buffer, long cost, ReferenceQueue<byte[]> cleared) {
    super(buffer, cleared);
    this.size = buffer.length;
    this.cost = cost;
    this.handedOut = buffer;
  }
}
