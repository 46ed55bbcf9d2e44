/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.fetch;

import java.util.concurrent.PriorityBlockingQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The one bounded executor every fetch runs on, shared by all streams. Blocks a caller is waiting
 * for run before prefetches (a priority queue), so a stream that seeks is not stuck behind other
 * streams' read-ahead. Threads are daemons named {@code slipstream-fetch-N} and end when idle.
 */
public final class FetchExecutor {
  private static final AtomicInteger POOLS = new AtomicInteger();

  private final ThreadPoolExecutor executor;
  private final AtomicLong sequence = new AtomicLong();

  public FetchExecutor(int threads) {
    int pool = POOLS.incrementAndGet();
    AtomicInteger n = new AtomicInteger();
    ThreadFactory tf = r -> {
      Thread t = new Thread(r, "slipstream-fetch-" + pool + "-" + n.incrementAndGet());
      t.setDaemon(true);
      return t;
    };
    this.executor = new ThreadPoolExecutor(threads, threads, 30, TimeUnit.SECONDS,
        new PriorityBlockingQueue<>(), tf);
    executor.allowCoreThreadTimeOut(true);
  }

  /** A task that can be taken back out of the queue before it starts. */
  public abstract static class Task implements Runnable, Comparable<Task> {
    private final boolean urgent;
    private long seq;

    protected Task(boolean urgent) {
      this.urgent = urgent;
    }

    @Override
    public int compareTo(Task o) {
      if (urgent != o.urgent) {
        return urgent ? -1 : 1;
      }
      return Long.compare(seq, o.seq);
    }
  }

  public void execute(Task task) {
    task.seq = sequence.incrementAndGet();
    executor.execute(task);
  }

  /** Removes a task that has not started; true if it was still queued. */
  public boolean remove(Task task) {
    return executor.remove(task);
  }

  public int activeThreads() {
    return executor.getActiveCount();
  }

  public void shutdown() {
    executor.shutdownNow();
  }

  public boolean awaitTermination(long millis) throws InterruptedException {
    return executor.awaitTermination(millis, TimeUnit.MILLISECONDS);
  }
}
