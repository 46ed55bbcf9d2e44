/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream;

/** Why a request was retried. */
public enum RetryCause {
  /** The connection was reset or closed while the response was being read. */
  CONNECTION_RESET,
  /** Connecting or waiting for the first byte timed out. */
  TIMEOUT,
  /** The body stopped delivering bytes for {@code read.stall.timeout}. */
  STALL,
  /** The body ended before its declared length. */
  TRUNCATED,
  /** {@code 500}, {@code 502} or {@code 504}. */
  SERVER_ERROR,
  /** {@code 503 SlowDown} (or another throttling answer). */
  THROTTLED,
  /** Any other I/O failure the client reported as transient. */
  OTHER
}
