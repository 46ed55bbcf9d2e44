/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.cache;

import dev.slipstream.Counter;
import dev.slipstream.ReadStatistics;
import dev.slipstream.internal.block.PooledBytes;
import dev.slipstream.internal.util.DaemonThreads;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;

/**
 * The disk cache's background writer: at most {@value #MAX_PENDING} blocks waiting or being written, and
 * one daemon thread that writes them, started when needed and ending after ten idle seconds.
 *
 * <p>It keeps the disk off the reader's path: {@link #offer} never blocks, and a block offered while
 * {@value #MAX_PENDING} are pending is skipped and counted ({@link Counter#DISK_CACHE_WRITES_SKIPPED}),
 * a chance to cache lost, never a failed read (docs/architecture.md, rule 2). A block's buffer stays pinned
 * from the offer until its write has ended, and is unpinned before the pending count drops: whoever sees
 * no write pending sees the memory back. What a write does on disk, and the rules it keeps there, are
 * {@link DiskCache#write}'s.
 */
final class CacheWriter {
  static final int MAX_PENDING = 8;

  private static final AtomicInteger THREADS = new AtomicInteger();

  private final ThreadPoolExecutor executor;
  private final AtomicInteger pending = new AtomicInteger();

  CacheWriter() {
    this.executor = new ThreadPoolExecutor(1, 1, 10, TimeUnit.SECONDS, new LinkedBlockingQueue<>(),
        DaemonThreads.named("slipstream-disk-cache-" + THREADS.incrementAndGet() + "-"));
    executor.allowCoreThreadTimeOut(true);
  }

  /**
   * Runs {@code write} on the writer's thread, {@code block} pinned until it has ended. Nothing is done if
   * the block can no longer be pinned; the write is skipped, counted, if too many are pending. Never blocks.
   */
  void offer(PooledBytes block, Runnable write, ReadStatistics stats) {
    if (!block.tryPin()) {
      return;
    }
    if (pending.incrementAndGet() > MAX_PENDING) {
      pending.decrementAndGet();
      block.unpin();
      stats.increment(Counter.DISK_CACHE_WRITES_SKIPPED);
      return;
    }
    try {
      executor.execute(() -> {
        try {
          write.run();
        } finally {
          block.unpin(); // before the count drops: whoever sees no pending write sees the memory back
          pending.decrementAndGet();
        }
      });
    } catch (RejectedExecutionException e) {
      pending.decrementAndGet();
      block.unpin();
      stats.increment(Counter.DISK_CACHE_WRITES_SKIPPED);
    }
  }

  /** Blocks offered and not yet written. */
  int pending() {
    return pending.get();
  }

  /** Waits, at most {@code millis}, until no write is pending; true if none is. */
  boolean awaitIdle(long millis) {
    return await(millis, () -> pending.get() == 0);
  }

  /** Waits, at most {@code millis}, until {@code idleNow} holds; true if it does. */
  static boolean await(long millis, BooleanSupplier idleNow) {
    long deadline = System.nanoTime() + millis * 1_000_000L;
    while (true) {
      if (idleNow.getAsBoolean()) {
        return true;
      }
      if (System.nanoTime() > deadline) {
        return false;
      }
      try {
        Thread.sleep(2);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return false;
      }
    }
  }
}
