/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.util;

import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * Work its callers never wait for: one daemon thread (started on demand, gone after 10 s idle) and a queue of
 * at most a given number of tasks; a task offered beyond that is refused at once, for the caller to count.
 */
public final class BackgroundQueue implements AutoCloseable {
  private final ThreadPoolExecutor executor;

  /** A queue whose thread is named {@code threadPrefix} and a number, holding at most {@code capacity} tasks. */
  public BackgroundQueue(String threadPrefix, int capacity) {
    executor = new ThreadPoolExecutor(1, 1, 10, TimeUnit.SECONDS, new ArrayBlockingQueue<>(capacity),
        DaemonThreads.named(threadPrefix));
    executor.allowCoreThreadTimeOut(true);
  }

  /** Queues {@code work}; false, at once, when the queue is full or closed (the work will not run). */
  public boolean offer(Runnable work) {
    try {
      executor.execute(work);
      return true;
    } catch (RejectedExecutionException e) {
      return false;
    }
  }

  /** Waits (10 s at most) for the work queued, then stops the thread. */
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
