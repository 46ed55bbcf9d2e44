/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.fetch;

import dev.slipstream.internal.store.ObjectStore;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Aborts response bodies that deliver no bytes for the stall timeout, whatever HTTP client carries
 * them: the client Slipstream builds has a socket timeout to match, but the client Hadoop's S3A
 * hands over has S3A's (minutes). One daemon thread per client ({@code slipstream-stall-watchdog-N}),
 * started when the first body is watched and ending when none has been for a while.
 *
 * <p>It also aborts the body a caller's thread is reading when that thread is interrupted: a blocking
 * socket read does not notice an interrupt, and a task being killed (Spark interrupts and waits) must
 * not wait for the stall timeout. Hence it looks at least every {@link #INTERRUPT_POLL_MILLIS}.
 */
final class StallWatchdog {
  private static final AtomicInteger THREADS = new AtomicInteger();
  /** How soon an interrupt of a reading thread aborts its body, at most. */
  static final long INTERRUPT_POLL_MILLIS = 100;

  private final long stallNanos;
  private final long intervalMillis;
  /** About two seconds without a body to watch, and the thread ends. */
  private final int idleRoundsBeforeExit;
  private final Set<Watch> watches = ConcurrentHashMap.newKeySet();
  private Thread thread;

  StallWatchdog(long stallMillis) {
    this.stallNanos = stallMillis * 1_000_000L;
    this.intervalMillis = Math.max(10, Math.min(stallMillis / 4, INTERRUPT_POLL_MILLIS));
    this.idleRoundsBeforeExit = (int) Math.max(1, 2000 / intervalMillis);
  }

  /** Stops the thread; a later watch starts a new one. */
  synchronized void shutdown() {
    if (thread != null) {
      thread.interrupt();
      thread = null;
    }
  }

  /** Watches {@code body} until the returned watch is closed. */
  Watch watch(ObjectStore.Body body) {
    return watch(body, null);
  }

  /**
   * Watches {@code body} until the returned watch is closed; if {@code reader} is not null, an
   * interrupt of that thread aborts the body too.
   */
  Watch watch(ObjectStore.Body body, Thread reader) {
    Watch w = new Watch(body, reader);
    watches.add(w);
    synchronized (this) {
      if (thread == null) {
        thread = new Thread(this::run, "slipstream-stall-watchdog-" + THREADS.incrementAndGet());
        thread.setDaemon(true);
        thread.start();
      }
    }
    return w;
  }

  private void run() {
    int idle = 0;
    while (true) {
      try {
        Thread.sleep(intervalMillis);
      } catch (InterruptedException e) {
        return; // shutdown() already forgot this thread
      }
      long now = System.nanoTime();
      for (Watch w : watches) {
        if (w.reader != null && w.reader.isInterrupted()) {
          w.interrupted = true;
          watches.remove(w);
          w.body.abort();
        } else if (now - w.lastProgress > stallNanos) {
          w.stalled = true;
          watches.remove(w);
          w.body.abort();
        }
      }
      idle = watches.isEmpty() ? idle + 1 : 0;
      if (idle >= idleRoundsBeforeExit) {
        synchronized (this) {
          if (watches.isEmpty()) {
            if (thread == Thread.currentThread()) {
              thread = null;
            }
            return;
          }
        }
        idle = 0;
      }
    }
  }

  /** One body being read. */
  final class Watch implements AutoCloseable {
    private final ObjectStore.Body body;
    private final Thread reader;
    private volatile long lastProgress = System.nanoTime();
    private volatile boolean stalled;
    private volatile boolean interrupted;

    private Watch(ObjectStore.Body body, Thread reader) {
      this.body = body;
      this.reader = reader;
    }

    /** True if the watchdog aborted the body because its reader was interrupted. */
    boolean interrupted() {
      return interrupted;
    }

    void progress() {
      lastProgress = System.nanoTime();
    }

    /** True if the watchdog aborted the body for stalling. */
    boolean stalled() {
      return stalled;
    }

    @Override
    public void close() {
      watches.remove(this);
    }
  }
}
