/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.source;

import dev.slipstream.Counter;
import dev.slipstream.Latency;
import dev.slipstream.ReadStatistics;
import dev.slipstream.internal.block.BufferPool;
import dev.slipstream.internal.block.PooledBytes;
import dev.slipstream.internal.util.BackgroundQueue;
import dev.slipstream.spi.SharedBlockStore;
import java.util.Arrays;

/**
 * A client's comparisons in {@code shared.mode=shadow}, off the read path: each block (or kept range) S3
 * gave whose name is in the {@link ShadowSample} is looked up in the tier as a read would, what comes back is compared byte for
 * byte, and a block the tier did not hold is written, as read-write would have. One daemon thread and a
 * queue of its own, apart from {@link SharedWrites}', so that a burst of comparisons never costs a write
 * and no write costs a comparison. At most {@value #MAX_PENDING} blocks wait, each pinned in memory until
 * compared: a waiting comparison holds a whole block of the pool (8 MiB by default), not a small request,
 * so the cap is the writes' own. A block beyond it, or one that finds no memory for the tier's bytes, is not
 * compared, and counted ({@link Counter#SHARED_SHADOW_DROPPED}), never waited for.
 */
final class SharedComparisons implements AutoCloseable {
  static final int MAX_PENDING = 8;

  private final SharedBlockStore store;
  private final ShadowSample sample;
  private final BackgroundQueue queue;

  SharedComparisons(SharedBlockStore store, ShadowSample sample) {
    this.store = store;
    this.sample = sample;
    this.queue = new BackgroundQueue("slipstream-shared-shadow-", MAX_PENDING);
  }

  /**
   * Compares {@code data} (S3's bytes, ready) with the block the tier holds under {@code name}, in the
   * background, if the name is in the sample: counts a hit, miss or mismatch with the lookup's latency,
   * and writes the block on a miss. A name outside the sample is neither looked up nor written. Never blocks.
   */
  void compare(byte[] name, PooledBytes data, BufferPool pool, ReadStatistics stats) {
    if (!sample.includes(name) || !data.isReady() || !data.tryPin()) {
      return;
    }
    boolean queued = queue.offer(() -> {
      try {
        compareNow(name, data, pool, stats);
      } finally {
        data.unpin();
      }
    });
    if (!queued) {
      data.unpin();
      stats.increment(Counter.SHARED_SHADOW_DROPPED);
    }
  }

  private void compareNow(byte[] name, PooledBytes data, BufferPool pool, ReadStatistics stats) {
    byte[] theirs = pool.tryAcquire(BufferPool.sizeFor(data.length()));
    if (theirs == null) {
      stats.increment(Counter.SHARED_SHADOW_DROPPED);
      return;
    }
    try {
      long t0 = System.nanoTime();
      boolean hit = store.get(name, data.length(), 0, theirs, 0, data.length());
      stats.record(Latency.SHARED_GET, System.nanoTime() - t0);
      if (!hit) {
        stats.increment(Counter.SHARED_SHADOW_MISSES);
        boolean stored = store.put(name, data.buffer(), 0, data.length());
        stats.increment(stored ? Counter.SHARED_SETS : Counter.SHARED_SETS_DROPPED);
      } else if (Arrays.equals(theirs, 0, data.length(), data.buffer(), 0, data.length())) {
        stats.increment(Counter.SHARED_SHADOW_HITS);
      } else {
        stats.increment(Counter.SHARED_SHADOW_MISMATCHES);
      }
    } catch (RuntimeException e) {
      stats.increment(Counter.SHARED_ERRORS); // a store that broke its contract: nothing compared
    } finally {
      pool.release(theirs);
    }
  }

  /** Waits (bounded) for the comparisons pending, then stops the thread. */
  @Override
  public void close() {
    queue.close();
  }
}
