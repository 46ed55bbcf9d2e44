/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.read;

import dev.slipstream.Counter;
import dev.slipstream.S3Location;
import dev.slipstream.internal.fetch.ObjectHandle;

/**
 * The layout one stream reads a file by (a Parquet footer, an ORC layout): the client's for the version the
 * stream reads, asked once, as soon as a response has pinned the version (its ETag); else the one the stream
 * parsed itself ({@link #set}). Null while none is known. Thread-safe.
 */
final class ClientLayout<T> {
  /** Where the client keeps what it learnt, by object version. */
  @FunctionalInterface
  interface Kept<T> {
    T get(S3Location location, long length, String etag);
  }

  private final ObjectHandle h;
  private final Kept<T> client;
  private final Counter reused;
  private volatile T layout;
  /** The client's were asked for this stream's version (once its ETag is known). */
  private volatile boolean asked;

  /** @param reused counted when the client's layout is the stream's */
  ClientLayout(ObjectHandle h, Kept<T> client, Counter reused) {
    this.h = h;
    this.client = client;
    this.reused = reused;
  }

  /** The layout, the client's asked for once the version is known; or null. */
  T get() {
    T t = layout;
    if (t != null || asked) {
      return t;
    }
    String etag = h.etag();
    if (etag == null) {
      return null; // no version to name yet: asked again once a response pins it
    }
    asked = true;
    t = client.get(h.location(), h.length(), etag);
    if (t != null) {
      layout = t;
      h.stats().increment(reused);
    }
    return t;
  }

  /** The layout known so far, the client's not asked; or null. */
  T known() {
    return layout;
  }

  /** The stream parsed {@code t} itself: the stream's from now on. */
  void set(T t) {
    layout = t;
  }
}
