/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.testkit;

import java.io.IOException;

/**
 * Paces the response bodies of one client connection: each write takes from the connection's own
 * {@link TokenBucket} and from the one all connections share, then waits out the larger debt. Request
 * bodies (uploads) are not paced: the read path is what the shaper models.
 */
final class Throttle {
  /** Null when the profile leaves per-connection bandwidth unlimited. */
  private final TokenBucket connection;
  /** Shared by all connections; null when the profile leaves aggregate bandwidth unlimited. */
  private final TokenBucket aggregate;
  private final ShaperLifecycle lifecycle;

  Throttle(TokenBucket connection, TokenBucket aggregate, ShaperLifecycle lifecycle) {
    this.connection = connection;
    this.aggregate = aggregate;
    this.lifecycle = lifecycle;
  }

  /**
   * A response starts: each one streams at the link rate from its first byte. Credit saved while the
   * connection idled (or waited out the latency) would make small reads free.
   */
  void responseStarting() {
    if (connection != null) {
      connection.drain();
    }
  }

  /** Takes {@code len} bytes' worth and sleeps as long as the buckets say. */
  void take(int len) throws IOException {
    long wait = 0;
    if (connection != null) {
      wait = connection.take(len);
    }
    if (aggregate != null) {
      wait = Math.max(wait, aggregate.take(len));
    }
    if (wait > 0) {
      lifecycle.sleepUntil(System.nanoTime() + wait);
    }
  }
}
