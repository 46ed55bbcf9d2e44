/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.testkit;

/**
 * A token bucket in the "debt" style: a taker may overdraw and then sleeps for the debt, so several
 * threads sharing a bucket queue up behind one another at the configured rate without a lock held
 * while sleeping. The small capacity absorbs sleep overshoot without allowing real bursts.
 */
final class TokenBucket {
  private final double bytesPerNano;
  private final double capacity;
  private double tokens;
  private long last;

  /** A fiftieth of a second's worth of capacity, but never less than one write of {@code writeSize}. */
  TokenBucket(long bytesPerSecond, int writeSize) {
    this.bytesPerNano = bytesPerSecond / 1e9;
    this.capacity = Math.max(writeSize, bytesPerSecond / 50.0);
    this.last = System.nanoTime();
  }

  /** Takes {@code n} bytes' worth; returns how many nanoseconds the caller must wait. */
  synchronized long take(int n) {
    refill();
    tokens -= n;
    return tokens >= 0 ? 0 : (long) Math.ceil(-tokens / bytesPerNano);
  }

  /** Forgets any saved-up credit; debt stays. */
  synchronized void drain() {
    refill();
    tokens = Math.min(tokens, 0);
  }

  private void refill() {
    long now = System.nanoTime();
    tokens = Math.min(capacity, tokens + (now - last) * bytesPerNano);
    last = now;
  }
}
