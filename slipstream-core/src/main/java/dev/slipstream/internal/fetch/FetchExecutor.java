/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.fetch;

import dev.slipstream.internal.block.Scratch;
import dev.slipstream.internal.util.DaemonThreads;
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
    ThreadFactory named = DaemonThreads.named("slipstream-fetch-" + pool + "-");
    // A fetch thread never waits for memory: the fetches that would give it back may be queued behind it.
    ThreadFactory tf = r -> named.newThread(Scratch.neverWaiting(r));
    this.executor = new ThreadPoolExecutor(threads, threads, 30, TimeUnit.SECONDS,
        new PriorityBlockingQueue<>(), tf);
    executor.allowCoreThreadTimeOut(true);
  }

  /** A task that can be taken back out of the queue before it starts. */
  public abstract static class Task implements Runnable, Comparable<Task> {
    private volatile boolean urgent;
    private long seq;

    protected Task(boolean urgent) {
      this.urgent = urgent;
    }

    /** Ends a task that will never run (the executor shut down), releasing what it holds. */
    protected abstract void abandon(java.io.IOException why);

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

  /** Moves a queued task ahead of every prefetch: a caller is now waiting for it. */
  public void promote(Task task) {
    if (!task.urgent && executor.remove(task)) {
      task.urgent = true;
      execute(task);
    }
  }

  public int activeThreads() {
    return executor.getActiveCount();
  }

  /** How many tasks run at once at most. */
  public int threads() {
    return executor.getMaximumPoolSize();
  }

  /**
   * Threads that would start a task submitted now: none busy and none owed to a task already queued (a
   * reading, not a promise: other streams submit meanwhile).
   */
  public int idleThreads() {
    return Math.max(0, threads() - executor.getActiveCount() - executor.getQueue().size());
  }

  /** The S3 reads of whole blocks in progress on this executor ({@link ParallelParts}), parted or not. */
  private final AtomicInteger blockReads = new AtomicInteger();

  /** A block read from S3 begins; returns how many are in progress, this one included. */
  int blockReadStarted() {
    return blockReads.incrementAndGet();
  }

  /** Tasks waiting for a thread: block reads not started yet, and parts of started ones. */
  int queued() {
    return executor.getQueue().size();
  }

  void blockReadEnded() {
    blockReads.decrementAndGet();
  }

  /** Stops the threads; tasks still queued are abandoned, so that no reader waits for them. */
  public void shutdown() {
    for (Runnable r : executor.shutdownNow()) {
      if (r instanceof Task t) {
        t.abandon(new java.io.IOException("the Slipstream client was closed before this read could be served"));
      }
    }
  }

  public boolean awaitTermination(long millis) throws InterruptedException {
    return executor.awaitTermination(millis, TimeUnit.MILLISECONDS);
  }
}
