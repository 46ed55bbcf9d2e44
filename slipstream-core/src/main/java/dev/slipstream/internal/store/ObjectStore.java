/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.store;

import dev.slipstream.S3Location;
import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;

/**
 * The bottom of the read path: HEAD and ranged GET, nothing else. Failures come out typed:
 * {@link java.io.FileNotFoundException} (404), {@link java.nio.file.AccessDeniedException} (403),
 * {@link dev.slipstream.ObjectChangedException} (412), {@link TransientStoreException} for what may
 * succeed on a retry. No retries happen here; the fetcher above owns them.
 */
public interface ObjectStore extends Closeable {

  ObjectMetadata head(S3Location location) throws IOException;

  /**
   * Starts a GET of bytes {@code [start, end)}. With {@code ifMatch} non-null the request carries
   * {@code If-Match}. The returned body must be closed or aborted.
   */
  Body get(S3Location location, long start, long end, String ifMatch) throws IOException;

  @Override
  void close();

  /** An open response body. {@link #abort()} may be called from another thread to cancel a read. */
  interface Body extends Closeable {
    InputStream stream();

    /** The ETag of the version served. */
    String etag();

    /** Bytes in this response body. */
    long contentLength();

    /** The object's total length, from {@code Content-Range}, or -1 if the server did not say. */
    long objectLength();

    /** Drops the connection without reading the rest of the body. Idempotent, thread-safe. */
    void abort();
  }

  /** Length and ETag of one version of an object. */
  record ObjectMetadata(long length, String etag) {}
}
