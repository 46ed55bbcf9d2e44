/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.source;

import dev.slipstream.Counter;
import dev.slipstream.Latency;
import dev.slipstream.ReadStatistics;
import dev.slipstream.internal.block.BufferPool;
import dev.slipstream.internal.block.PooledBytes;
import dev.slipstream.internal.util.DaemonThreads;
import dev.slipstream.spi.SharedBlockStore;
import java.util.Arrays;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * A client's writes to the shared tier (and, in shadow mode, its comparisons), off the read path: one daemon thread, at most {@value #MAX_PENDING}
 * blocks waiting, each pinned until written; a block offered beyond that is dropped and counted
 * ({@link Counter#SHARED_SETS_DROPPED}), never waited for.
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

  /**
   * shared.mode=shadow, in the background: looks {@code data} (S3's bytes, ready) up in the tier as a read
   * would, compares what comes back, counts a hit, miss or mismatch with the lookup's latency, and writes
   * the block on a miss, as read-write would. Dropped, counted, when behind or when memory is short.
   */
  void compare(byte[] name, PooledBytes data, BufferPool pool, ReadStatistics stats) {
    if (!data.isReady() || !data.tryPin()) {
      return;
    }
    try {
      executor.execute(() -> {
        byte[] theirs = pool.tryAcquire(BufferPool.sizeFor(data.length()));
        try {
          if (theirs == null) {
            stats.increment(Counter.SHARED_SETS_DROPPED);
            return;
          }
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
          if (theirs != null) {
            pool.release(theirs);
          }
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
