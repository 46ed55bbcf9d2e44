/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.fetch;

import dev.slipstream.internal.store.ObjectStore;
import dev.slipstream.internal.store.Retrier;
import dev.slipstream.internal.store.TransientStoreException;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;

/**
 * Lets {@code close()} stop one request from another thread: it aborts the response body being read
 * (the connection is dropped, not drained) and cuts a backoff sleep short. As a {@link Retrier.Stop},
 * a cancelled token ends the retries with its closed error.
 */
public final class CancelToken implements Retrier.Stop {
  private final Supplier<IOException> closedError;
  private final Purpose purpose;
  private volatile boolean cancelled;
  private ObjectStore.Body body;
  /** A thread parked until this token's request answers, unparked by a cancel (see {@link #wakeOnCancel}). */
  private volatile Thread parked;
  /** Tokens of the parts of this token's read that run on other threads: cancelled with it. */
  private java.util.List<CancelToken> children;

  /** A token for a {@link Purpose#RANGE} read. */
  public CancelToken(Supplier<IOException> closedError) {
    this(closedError, Purpose.RANGE);
  }

  /**
   * @param closedError the exception a cancelled request ends with, e.g. "stream closed: s3://b/k"
   * @param purpose why the request is made, for the request log
   */
  public CancelToken(Supplier<IOException> closedError, Purpose purpose) {
    this.closedError = closedError;
    this.purpose = purpose;
  }

  /** Why the request is made. */
  public Purpose purpose() {
    return purpose;
  }

  public boolean isCancelled() {
    return cancelled;
  }

  public void cancel() {
    ObjectStore.Body b;
    java.util.List<CancelToken> parts;
    synchronized (this) {
      cancelled = true;
      b = body;
      body = null;
      parts = children;
      children = null;
      notifyAll();
    }
    LockSupport.unpark(parked);
    if (b != null) {
      b.abort();
    }
    if (parts != null) {
      parts.forEach(CancelToken::cancel);
    }
  }

  /**
   * A token for one part of this token's read, run on another thread (a token stops one request at a
   * time): cancelled when this one is, at once if it already is. {@link #forget} it when the part ends.
   */
  public CancelToken child() {
    CancelToken c = new CancelToken(closedError, purpose);
    synchronized (this) {
      if (!cancelled) {
        if (children == null) {
          children = new java.util.ArrayList<>(4);
        }
        children.add(c);
        return c;
      }
    }
    c.cancel();
    return c;
  }

  /** Drops a child whose part has ended. */
  public synchronized void forget(CancelToken child) {
    if (children != null) {
      children.remove(child);
    }
  }

  /** Throws the closed error if cancelled. */
  @Override
  public void check() throws IOException {
    if (cancelled) {
      throw closedError.get();
    }
  }

  public IOException closedError() {
    return closedError.get();
  }

  /** The closed error if cancelled (a failure of a cancelled request is the cancel's doing), else null. */
  @Override
  public IOException stopped(IOException failure) {
    return cancelled ? closedError.get() : null;
  }

  /** Sleeps unless cancelled first, then throws the closed error. */
  @Override
  public void sleep(long millis, TransientStoreException retrying) throws IOException {
    sleep(millis);
  }

  /**
   * {@code waiter} (null: none) parks until this token's request answers and must wake when the token is
   * cancelled: a cancel unparks it. The waiter looks at {@link #isCancelled} after setting this and
   * before each park, so a cancel is never missed.
   */
  void wakeOnCancel(Thread waiter) {
    parked = waiter;
  }

  /** Registers the body being read; aborts it at once if already cancelled. */
  void attach(ObjectStore.Body b) throws IOException {
    synchronized (this) {
      if (!cancelled) {
        body = b;
        return;
      }
    }
    b.abort();
    throw closedError.get();
  }

  synchronized void detach() {
    body = null;
  }

  /** Sleeps unless cancelled first. */
  void sleep(long millis) throws IOException {
    long deadline = System.currentTimeMillis() + millis;
    synchronized (this) {
      long left;
      while (!cancelled && (left = deadline - System.currentTimeMillis()) > 0) {
        try {
          wait(left);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new InterruptedIOException("interrupted during retry backoff");
        }
      }
    }
    check();
  }
}
