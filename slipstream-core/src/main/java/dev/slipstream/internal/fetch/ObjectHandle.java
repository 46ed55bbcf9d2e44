/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.fetch;

import dev.slipstream.ObjectChangedException;
import dev.slipstream.ReadStatistics;
import dev.slipstream.S3Location;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The version of one object a stream reads: location, length and the ETag every request is checked
 * against. The ETag is known at open (from a HEAD or the caller), or pinned by the first response.
 */
public final class ObjectHandle {
  private final S3Location location;
  private final long length;
  private final AtomicReference<String> etag;
  private final ReadStatistics stats;

  public ObjectHandle(S3Location location, long length, String etag, ReadStatistics stats) {
    this.location = location;
    this.length = length;
    this.etag = new AtomicReference<>(etag);
    this.stats = stats;
  }

  public S3Location location() {
    return location;
  }

  public long length() {
    return length;
  }

  /** The pinned ETag, or null until the first response. */
  public String etag() {
    return etag.get();
  }

  public ReadStatistics stats() {
    return stats;
  }

  /** Pins {@code seen} if nothing is pinned yet; otherwise fails if it differs. */
  void checkVersion(String seen) throws ObjectChangedException {
    if (seen == null) {
      return; // a server that sends no ETag cannot be checked; If-Match still guards when pinned
    }
    if (etag.compareAndSet(null, seen)) {
      return;
    }
    String pinned = etag.get();
    if (!pinned.equals(seen)) {
      throw new ObjectChangedException(location, "ETag " + pinned + " at open, now " + seen);
    }
  }
}
