/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.spi;

/**
 * Heap a {@link SharedBlockStore} takes outside Slipstream's buffers, counted against {@code memory.max} as
 * the buffers are: the arrays a client library reads each value into, or sends each value from, when it
 * cannot use a buffer it is given. A store takes room before it makes a request that allocates such arrays,
 * and gives it back once they are garbage: when the request has ended, answered or failed, not when the
 * store stopped waiting for it. With no room now, the store makes no request: a lookup is a miss, a write
 * is not made.
 */
public interface HeapAllowance {
  /**
   * Room for {@code count} arrays of at most {@code length} bytes each, counted until {@link Lease#release};
   * null if {@code memory.max} has none now. Never waits, and never takes memory a read is using.
   *
   * @throws IllegalArgumentException if {@code count} or {@code length} is not positive
   */
  Lease tryTake(int count, int length);

  /** Room taken; {@link #release} gives it back, once (a second call does nothing). */
  interface Lease {
    void release();
  }

  /** Counts nothing: for a store opened outside a client (a tool, a test of the store alone). */
  HeapAllowance UNCOUNTED = (count, length) -> {
    if (count <= 0 || length <= 0) {
      throw new IllegalArgumentException("room for " + count + " arrays of " + length + " bytes");
    }
    return () -> { };
  };
}
