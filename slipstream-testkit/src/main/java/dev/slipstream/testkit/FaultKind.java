/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.testkit;

/**
 * The failures a {@link LinkShaper} can inject into one request, modelled on what readers meet on a
 * real S3 link.
 *
 * <p>The body faults ({@link #RESET_MID_BODY}, {@link #STALL}, {@link #TRUNCATE}) let the upstream
 * answer, forward the response head, and cut the body at a point derived from the shaper's seed and
 * the request, somewhere in its middle. When the response has no body (HEAD, 204, 304, or an empty
 * body) they degrade to closing the connection before the head. The status faults answer in place of
 * the server: the request is never forwarded upstream. {@link #STATUS_403} is never drawn at random:
 * a refusal is a policy, not a fault of the link; tests script it ({@link LinkShaper#injectNext}).
 */
public enum FaultKind {
  /** Part of the body, then a TCP reset (linger 0): the client sees "connection reset". */
  RESET_MID_BODY,
  /** {@code 503 Slow Down} with the S3 {@code SlowDown} error body, as S3 throttles. */
  STATUS_503,
  /** {@code 500 Internal Server Error} with the S3 {@code InternalError} error body. */
  STATUS_500,
  /**
   * The head and part of the body, then silence for {@link LinkShaper#stallMillis(long) stallMillis},
   * then the connection is closed: exercises the reader's stall detection and timeouts.
   */
  STALL,
  /** The head with the full Content-Length, part of the body, then a clean close (FIN). */
  TRUNCATE,
  /**
   * {@code 403 Forbidden} with the S3 {@code AccessDenied} error body: what S3 answers a request the
   * caller's IAM policy does not allow (e.g. a LIST outside the prefixes an {@code s3:prefix} condition
   * grants). Scripted only.
   */
  STATUS_403;

  /** Whether this fault lets the request through and cuts the response body. */
  public boolean cutsBody() {
    return this == RESET_MID_BODY || this == STALL || this == TRUNCATE;
  }

  /** Whether this fault answers with an error status instead of forwarding the request. */
  public boolean isStatus() {
    return this == STATUS_503 || this == STATUS_500 || this == STATUS_403;
  }
}
