/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream;

import java.io.IOException;

/**
 * The object changed while it was being read (S3 answered {@code 412 Precondition Failed} to a GET
 * carrying {@code If-Match}, or a response described a different version). The read fails rather than
 * mix bytes of two versions. Not retried: reopen the object to read the new version.
 */
public class ObjectChangedException extends IOException {
  private final S3Location location;

  public ObjectChangedException(S3Location location, String detail) {
    super("object changed while being read: " + location + " (" + detail + ")");
    this.location = location;
  }

  public S3Location location() {
    return location;
  }
}
