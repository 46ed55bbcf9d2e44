/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream;

import dev.slipstream.internal.util.ETag;
import java.time.Instant;
import java.util.Objects;

/**
 * One object as a listing saw it. Its length and ETag are what {@link Slipstream#open(S3Location,
 * OpenOptions)} needs to skip the HEAD request: {@code slipstream.open(location, entry.openOptions())}.
 *
 * @param key the object's key
 * @param size its length in bytes
 * @param etag its ETag as S3 sends it (quoted), or null if the server gave none
 * @param lastModified when it was last written, or null if the server gave no date
 */
public record ListEntry(String key, long size, String etag, Instant lastModified) {
  public ListEntry {
    Objects.requireNonNull(key, "key");
  }

  /** A key ending in {@code /}: an empty "directory" object, as Hadoop's S3A and the S3 console make them. */
  public boolean isDirectoryMarker() {
    return key.endsWith("/");
  }

  /**
   * The ETag's value without its quotes ({@code af31…}), as tools print it; null if the server gave none
   * (or one that is no ETag).
   */
  public String etagValue() {
    ETag e = ETag.fromServer(etag);
    return e == null ? null : e.opaque();
  }

  /** Options that open this object with no HEAD request, pinned to this ETag. */
  public OpenOptions openOptions() {
    return OpenOptions.known(size, etag);
  }
}
