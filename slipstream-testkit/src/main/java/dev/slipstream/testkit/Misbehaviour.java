/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.testkit;

/**
 * What a {@link ScriptedS3Server} can do wrong to one request, each modelled on a server, gateway or
 * proxy met in the field.
 */
public enum Misbehaviour {
  /** A GET's {@code Range} is ignored: {@code 200} with the whole object, chunked (no Content-Length). */
  IGNORE_RANGE,
  /**
   * A GET's {@code Range} is ignored: {@code 200} with the whole object and its Content-Length, as a
   * server without range support sends it.
   */
  IGNORE_RANGE_WITH_LENGTH,
  /**
   * A GET is answered {@code 206} for the range 4 KiB later than asked (clamped to the object's end),
   * with an honest {@code Content-Range} and Content-Length: a range-caching proxy's mistake.
   */
  SHIFT_RANGE,
  /** No {@code ETag} header, on HEAD or GET. */
  NO_ETAG,
  /** A GET's {@code ETag} bare ({@code af31…}) where HEAD sends it quoted ({@code "af31…"}). */
  BARE_ETAG,
  /** A HEAD without {@code Content-Length}. */
  NO_CONTENT_LENGTH,
  /** {@code If-Match} and {@code If-Unmodified-Since} are ignored, as some gateways do. */
  IGNORE_CONDITIONS,
  /**
   * A GET with {@code If-Match} or {@code If-Unmodified-Since} is refused with {@code 501 NotImplemented}, as
   * stores without conditional reads answer (users of such stores set S3A's change detection to none).
   */
  REFUSE_CONDITIONS,
  /** The head and half the body, then silence until the script is reset or the server closed. */
  STALL_BODY,
  /** No response at all to a GET: silence until the script is reset or the server closed. */
  STALL_HEAD
}
