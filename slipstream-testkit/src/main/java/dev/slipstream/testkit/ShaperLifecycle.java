/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.testkit;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.Socket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;

/**
 * Whether a {@link LinkShaper} has been closed, and every socket it has open: closing a socket is the
 * only way to break a thread out of a blocked read, so {@link LinkShaper#close()} closes them all. A
 * socket is registered before the closed flag is checked, so one opened while close() runs is closed
 * by one side or the other.
 */
final class ShaperLifecycle {
  private final AtomicBoolean closed = new AtomicBoolean();
  private final Set<Socket> sockets = ConcurrentHashMap.newKeySet();

  boolean isClosed() {
    return closed.get();
  }

  /** Marks the shaper closed; false if it already was. */
  boolean markClosed() {
    return closed.compareAndSet(false, true);
  }

  /** Tracks a socket so that close() can break every blocked read; false if already closed. */
  boolean register(Socket s) {
    sockets.add(s);
    if (closed.get()) {
      sockets.remove(s);
      closeQuietly(s);
      return false;
    }
    return true;
  }

  void unregister(Socket s) {
    sockets.remove(s);
  }

  void closeSockets() {
    for (Socket s : sockets) {
      closeQuietly(s);
    }
  }

  /**
   * Sleeps until {@code deadlineNanos}. close() interrupts the shaper's threads, which ends the park
   * early; the sleep then fails rather than let a closed shaper send anything more.
   */
  void sleepUntil(long deadlineNanos) throws IOException {
    while (true) {
      long left = deadlineNanos - System.nanoTime();
      if (left <= 0) {
        return;
      }
      if (closed.get() || Thread.currentThread().isInterrupted()) {
        throw new InterruptedIOException("link shaper closed");
      }
      LockSupport.parkNanos(left);
    }
  }

  static void closeQuietly(AutoCloseable c) {
    try {
      c.close();
    } catch (Exception e) {
      // nothing useful to do about a failing close
    }
  }
}
