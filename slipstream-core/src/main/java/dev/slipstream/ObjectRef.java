/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream;

import java.util.Objects;

/**
 * An object as a listing describes it: where it is, how long it is, and which version it is. Used to
 * name the objects a caller will open next ({@link Slipstream#hintNext}, {@link Slipstream#readingInOrder}),
 * so that their first bytes are fetched before they are opened.
 *
 * <p>The ETag pins the version: a first block fetched ahead for an {@code ObjectRef} is fetched with
 * {@code If-Match} on it, and is only handed to a stream opened with the same length and ETag. Without an
 * ETag the version is learnt from the response, and the block can only be handed over once it has arrived.
 *
 * @param location the bucket and key
 * @param length the object's length in bytes
 * @param etag the ETag as S3 returns it (quotes optional), or null if unknown
 */
public record ObjectRef(S3Location location, long length, String etag) {
  public ObjectRef {
    Objects.requireNonNull(location, "location");
    if (length < 0) {
      throw new IllegalArgumentException("length must be >= 0: " + length + " for " + location);
    }
    if (etag != null && etag.isBlank()) {
      throw new IllegalArgumentException("etag must not be blank for " + location);
    }
    if (etag != null) {
      etag = dev.slipstream.internal.util.ETag.parse(etag).toString(); // one spelling: quoted
    }
  }

  /** {@code s3://bucket/key} with its length and ETag (null if unknown). */
  public static ObjectRef of(String uri, long length, String etag) {
    return new ObjectRef(S3Location.parse(uri), length, etag);
  }

  /** Options that open this object without a HEAD request: its length and ETag. */
  public OpenOptions openOptions() {
    return OpenOptions.NONE.withLength(length).withEtag(etag);
  }
}
