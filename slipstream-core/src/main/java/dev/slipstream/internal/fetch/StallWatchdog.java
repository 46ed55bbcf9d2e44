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
 */
final class StallWatchdog {
  private static final AtomicInteger THREADS = new AtomicInteger();
  /** How often it looks at least: a stall is found within this much of the timeout. */
  static final long POLL_MILLIS = 100;

  private final long stallNanos;
  private final long intervalMillis;
  /** About two seconds without a body to watch, and the thread ends. */
  private final int idleRoundsBeforeExit;
  private final Set<Watch> watches = ConcurrentHashMap.newKeySet();
  private Thread thread;

  StallWatchdog(long stallMillis) {
    this.stallNanos = stallMillis * 1_000_000L;
    this.intervalMillis = Math.max(10, Math.min(stallMillis / 4, POLL_MILLIS));
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
    Watch w = new Watch(body);
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
        if (now - w.lastProgress > stallNanos) {
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
    private volatile long lastProgress = System.nanoTime();
    private volatile boolean stalled;

    private Watch(ObjectStore.Body body) {
      this.body = body;
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

    /**
     * The read of the body is over, one way or the other: no longer watched, no longer {@code token}'s to
     * abort, and then closed if it was read to its end ({@code fullyRead}: the connection goes back to the
     * pool), else aborted (a body no longer wanted is never drained). Every GET that reads a body ends so.
     */
    void end(CancelToken token, boolean fullyRead) throws java.io.IOException {
      close();
      token.detach();
      if (fullyRead) {
        body.close();
      } else {
        body.abort();
      }
    }
  }
}
