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
  private final boolean lengthGiven;
  private final AtomicReference<String> etag;
  private final ReadStatistics stats;
  private final AccessCheck access = new AccessCheck();

  /** @param lengthGiven the length came from the caller, not from S3 */
  public ObjectHandle(S3Location location, long length, boolean lengthGiven, String etag, ReadStatistics stats) {
    this.location = location;
    this.length = length;
    this.lengthGiven = lengthGiven;
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

  /** Whether S3 has answered this open yet: the gate every cached byte passes (see {@link AccessCheck}). */
  AccessCheck access() {
    return access;
  }

  /** The HEAD of this open succeeded: S3 has answered it, cached bytes may be served. */
  public void headAnswered() {
    access.grant();
  }

  /** Fails if the object's length, as a response states it, is not the length this stream reads. */
  void checkLength(long objectLength) throws java.io.IOException {
    if (objectLength < 0 || objectLength == length) {
      return;
    }
    if (lengthGiven && etag.get() == null) {
      throw new java.io.IOException(location + ": length " + length + " was given at open, but the object has "
          + objectLength + " bytes");
    }
    throw new ObjectChangedException(location, "length " + length + " at open, the object now has " + objectLength
        + " bytes");
  }

  /** The error for a 416 on bytes from {@code start}: the object is shorter than this stream's length. */
  java.io.IOException shorterThanLength(long start, java.io.IOException cause) {
    String what = "the object is shorter than the length " + length + (lengthGiven && etag.get() == null
        ? " given at open" : " seen at open") + ": bytes from " + start + " are not there";
    java.io.IOException e = lengthGiven && etag.get() == null
        ? new java.io.IOException(location + ": " + what)
        : new ObjectChangedException(location, what);
    e.initCause(cause);
    return e;
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
