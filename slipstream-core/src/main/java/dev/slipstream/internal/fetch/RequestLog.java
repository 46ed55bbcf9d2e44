/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.fetch;

import dev.slipstream.S3Location;

/**
 * One line per request to S3 at DEBUG on the logger {@value #LOGGER}, of its own so that it can be
 * switched on alone: the method, the object, the range and the bytes received, the first-byte and total
 * time, the stream that made it, why ({@link Purpose}), and whether it was a retry or failed. What a user
 * needs to read the requests of one file without the AWS SDK's header log, which prints far more. No
 * credential, query string or header is in it: the object's bucket and key, as S3A's own logs show them.
 */
public final class RequestLog {
  /** The logger's name. */
  public static final String LOGGER = "dev.slipstream.requests";
  private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(LOGGER);

  private RequestLog() {}

  static boolean on() {
    return LOG.isDebugEnabled();
  }

  /**
   * A GET of {@code [start, end)} that received {@code bytes}; {@code firstByteNanos} -1 if no response
   * came; {@code failure} null if it succeeded.
   */
  static void get(ObjectHandle h, long start, long end, long bytes, long firstByteNanos, long totalNanos,
      Purpose why, int attempt, Throwable failure) {
    LOG.debug("GET {} bytes={}-{} {} B first byte {} total {} stream {} for {}{}{}", h.location(), start, end - 1,
        bytes, millis(firstByteNanos), millis(totalNanos), h.id(), why, attempt > 1 ? ", retry " + (attempt - 1) : "",
        failure == null ? "" : ", failed: " + failure.getClass().getSimpleName());
  }

  static void head(S3Location location, long totalNanos, Purpose why, Throwable failure) {
    LOG.debug("HEAD {} total {} for {}{}", location, millis(totalNanos), why,
        failure == null ? "" : ", failed: " + failure.getClass().getSimpleName());
  }

  private static String millis(long nanos) {
    return nanos < 0 ? "-" : String.format(java.util.Locale.ROOT, "%.1f ms", nanos / 1e6);
  }
}
