/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.fetch;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The requests an owner (a stream, open-ahead) has started and that have not ended, by their cancel
 * tokens: what it cancels and waits for when it closes, bounded, so that no request outlives it
 * (docs/architecture.md, rule 6). A request is added when it starts and removed when it ends, whatever
 * the way. Thread-safe.
 */
public final class InFlight {
  private final Set<CancelToken> tokens = ConcurrentHashMap.newKeySet();

  /** A request started. */
  public void add(CancelToken token) {
    tokens.add(token);
  }

  /** A request ended. */
  public void remove(CancelToken token) {
    tokens.remove(token);
  }

  /** Requests not yet ended. */
  public int size() {
    return tokens.size();
  }

  /**
   * Cancels every request not yet ended, and again each millisecond (a request may start while this
   * runs), until none is left or {@code waitMillis} have passed. True if none is left; false if some
   * were still ending then, or if the thread was interrupted (its status kept).
   */
  public boolean cancelAndAwait(long waitMillis) {
    long deadline = System.nanoTime() + waitMillis * 1_000_000L;
    while (!tokens.isEmpty()) {
      for (CancelToken t : tokens) {
        t.cancel();
      }
      if (System.nanoTime() > deadline) {
        return false;
      }
      try {
        Thread.sleep(1);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return false;
      }
    }
    return true;
  }
}
