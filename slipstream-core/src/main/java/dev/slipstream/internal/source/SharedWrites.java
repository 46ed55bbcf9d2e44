/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.source;

import dev.slipstream.Counter;
import dev.slipstream.ReadStatistics;
import dev.slipstream.internal.block.PooledBytes;
import dev.slipstream.internal.util.BackgroundQueue;
import dev.slipstream.spi.SharedBlockStore;

/**
 * A client's writes to the shared tier in {@code shared.mode=read-write}, off the read path: one daemon
 * thread, at most {@value #MAX_PENDING} blocks waiting, each pinned until written; a block offered beyond that
 * is dropped and counted ({@link Counter#SHARED_SETS_DROPPED}), never waited for. Shadow mode's lookups and
 * writes have a thread and queue of their own ({@link SharedComparisons}).
 */
final class SharedWrites implements AutoCloseable {
  static final int MAX_PENDING = 8;

  private final SharedBlockStore store;
  private final BackgroundQueue queue;

  SharedWrites(SharedBlockStore store) {
    this.store = store;
    this.queue = new BackgroundQueue("slipstream-shared-writer-", MAX_PENDING);
  }

  /** Writes {@code data} (ready) under {@code name} in the background, or drops it. Never blocks. */
  void offer(byte[] name, PooledBytes data, ReadStatistics stats) {
    if (!data.isReady() || !data.tryPin()) {
      return;
    }
    boolean queued = queue.offer(() -> {
      try {
        boolean stored = store.put(name, data.buffer(), 0, data.length());
        stats.increment(stored ? Counter.SHARED_SETS : Counter.SHARED_SETS_DROPPED);
      } catch (RuntimeException e) {
        stats.increment(Counter.SHARED_SETS_DROPPED); // a store that broke its contract: a write not made
      } finally {
        data.unpin();
      }
    });
    if (!queued) {
      data.unpin();
      stats.increment(Counter.SHARED_SETS_DROPPED);
    }
  }

  /** Waits (bounded) for the writes pending, then stops the thread. */
  @Override
  public void close() {
    queue.close();
  }
}
