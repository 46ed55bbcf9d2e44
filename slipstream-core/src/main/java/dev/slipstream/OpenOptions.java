/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream;

import java.util.OptionalLong;

/**
 * What the caller already knows about the object. With a known length no HEAD request is made; the
 * ETag, when known too, pins the version from the first GET on (every GET carries {@code If-Match});
 * without it, the ETag of the first response is pinned instead.
 *
 * @param length the object's length in bytes, or -1 if unknown
 * @param etag the object's ETag as S3 returns it (quotes optional), or null
 */
public record OpenOptions(long length, String etag) {
  public static final OpenOptions NONE = new OpenOptions(-1, null);

  public OpenOptions {
    if (length < -1) {
      throw new IllegalArgumentException("length must be >= 0 (or -1 for unknown): " + length);
    }
    if (etag != null && etag.isBlank()) {
      throw new IllegalArgumentException("etag must not be blank");
    }
    if (etag != null && !etag.startsWith("\"") && !etag.startsWith("W/")) {
      etag = '"' + etag + '"';
    }
  }

  /** Length and ETag, e.g. from a listing: no HEAD request. */
  public static OpenOptions known(long length, String etag) {
    return new OpenOptions(length, etag);
  }

  public static OpenOptions length(long length) {
    return new OpenOptions(length, null);
  }

  public OptionalLong knownLength() {
    return length >= 0 ? OptionalLong.of(length) : OptionalLong.empty();
  }
}
