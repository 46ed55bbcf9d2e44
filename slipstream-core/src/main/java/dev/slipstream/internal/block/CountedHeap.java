/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.block;

import dev.slipstream.spi.HeapAllowance;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The heap a shared tier's store takes outside the pool's buffers (its client's value arrays), counted in
 * the pool's budget while the store holds it ({@link BufferPool#tryReserve}), at what each array costs the
 * heap ({@link HeapRegions}: a chunk of 512 KiB is humongous under G1's regions of 1 MiB, and takes one).
 */
public final class CountedHeap implements HeapAllowance {
  private final BufferPool pool;
  private final HeapRegions regions;

  public CountedHeap(BufferPool pool) {
    this(pool, HeapRegions.current());
  }

  CountedHeap(BufferPool pool, HeapRegions regions) {
    this.pool = pool;
    this.regions = regions;
  }

  @Override
  public Lease tryTake(int count, int length) {
    if (count <= 0 || length <= 0) {
      throw new IllegalArgumentException("room for " + count + " arrays of " + length + " bytes");
    }
    long cost = count * regions.cost(length);
    if (!pool.tryReserve(cost)) {
      return null;
    }
    AtomicBoolean given = new AtomicBoolean();
    return () -> {
      if (given.compareAndSet(false, true)) {
        pool.unreserve(cost);
      }
    };
  }
}
