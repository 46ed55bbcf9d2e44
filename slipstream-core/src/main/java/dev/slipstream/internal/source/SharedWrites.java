/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.source;

import dev.slipstream.Counter;
import dev.slipstream.ReadStatistics;
import dev.slipstream.internal.block.PooledBytes;
import dev.slipstream.internal.util.DaemonThreads;
import dev.slipstream.spi.SharedBlockStore;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * A client's writes to the shared tier in {@code shared.mode=read-write}, off the read path: one daemon
 * thread, at most {@value #MAX_PENDING} blocks waiting, each pinned until written; a block offered beyond that
 * is dropped and counted ({@link Counter#SHARED_SETS_DROPPED}), never waited for. Shadow mode's lookups and
 * writes have a thread and queue of their own ({@link SharedComparisons}).
 */
final class SharedWrites implements AutoCloseable {
  static final int MAX_PENDING = 8;

  private final SharedBlockStore store;
  private final ThreadPoolExecutor executor;

  SharedWrites(SharedBlockStore store) {
    this.store = store;
    this.executor = new ThreadPoolExecutor(1, 1, 10, TimeUnit.SECONDS, new ArrayBlockingQueue<>(MAX_PENDING),
        DaemonThreads.named("slipstream-shared-writer-"));
    executor.allowCoreThreadTimeOut(true);
  }

  /** Writes {@code data} (ready) under {@code name} in the background, or drops it. Never blocks. */
  void offer(byte[] name, PooledBytes data, ReadStatistics stats) {
    if (!data.isReady() || !data.tryPin()) {
      return;
    }
    try {
      executor.execute(() -> {
        try {
          boolean stored = store.put(name, data.buffer(), 0, data.length());
          stats.increment(stored ? Counter.SHARED_SETS : Counter.SHARED_SETS_DROPPED);
        } catch (RuntimeException e) {
          stats.increment(Counter.SHARED_SETS_DROPPED); // a store that broke its contract: a write not made
        } finally {
          data.unpin();
        }
      });
    } catch (RejectedExecutionException e) {
      data.unpin();
      stats.increment(Counter.SHARED_SETS_DROPPED);
    }
  }

  /** Waits (bounded) for the writes pending, then stops the thread. */
  @Override
  public void close() {
    executor.shutdown();
    try {
      executor.awaitTermination(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
