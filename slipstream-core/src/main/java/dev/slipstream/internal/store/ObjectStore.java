/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.store;

import dev.slipstream.S3Location;
import dev.slipstream.internal.util.ETag;
import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.util.List;

/**
 * The bottom of the read path: HEAD, ranged GET and one page of LIST. Failures come out typed:
 * {@link java.io.FileNotFoundException} (404), {@link java.nio.file.AccessDeniedException} (403),
 * {@link dev.slipstream.ObjectChangedException} (412), {@link TransientStoreException} for what may
 * succeed on a retry. No retries happen here; callers run requests through {@link Retrier}.
 */
public interface ObjectStore extends Closeable {

  /**
   * The length, ETag and Last-Modified of the object. A server whose HEAD gives no length is asked for
   * it with a 1-byte ranged GET; if that tells nothing either, an {@link IOException} names the
   * missing header.
   */
  ObjectMetadata head(S3Location location) throws IOException;

  /**
   * Starts a GET of bytes {@code [start, end)}, asking for the version {@code version} names. The
   * response is returned as the server sent it, unchecked: see {@link Body}. It must be closed or
   * aborted.
   */
  Body get(S3Location location, long start, long end, Version version) throws IOException;

  /**
   * What a GET asks of the version it reads; each part null where not asked.
   *
   * @param ifMatch sent as {@code If-Match}: the store answers 412 for another ETag
   * @param ifUnmodifiedSince sent as {@code If-Unmodified-Since}
   * @param versionId sent as the {@code versionId} parameter: the store serves that version
   */
  record Version(ETag ifMatch, java.time.Instant ifUnmodifiedSince, String versionId) {
    /** Any version: what S3 has now. */
    public static final Version ANY = new Version(null, null, null);
  }

  /**
   * One ListObjectsV2 page: keys under {@code request.prefix()} in S3's order (UTF-8 binary), after
   * {@code startAfter} or from a continuation token. A missing bucket is a
   * {@link java.io.FileNotFoundException}; a missing prefix is an empty page, not an error.
   */
  ListPage list(ListRequest request) throws IOException;

  @Override
  void close();

  /**
   * One ListObjectsV2 request.
   *
   * @param prefix keys must start with this ({@code ""}: the whole bucket)
   * @param startAfter list keys after this one (exclusive), or null; ignored with a continuation token
   * @param delimiter roll keys up to common prefixes at this string (normally {@code "/"}), or null
   * @param maxKeys most keys and common prefixes in the page (S3 caps it at 1,000)
   * @param continuationToken the previous page's {@link ListPage#nextContinuationToken()}, or null
   */
  record ListRequest(String bucket, String prefix, String startAfter, String delimiter, int maxKeys,
      String continuationToken) {}

  /**
   * One page of a listing.
   *
   * @param objects the keys of the page, in S3's order
   * @param commonPrefixes with a delimiter: the prefixes keys were rolled up to, in order
   * @param nextContinuationToken where the next page starts; null on the last page
   */
  record ListPage(List<dev.slipstream.ListEntry> objects, List<String> commonPrefixes,
      String nextContinuationToken) {
    public boolean truncated() {
      return nextContinuationToken != null;
    }
  }

  /**
   * An open response body, with the headers that say what it holds. Nothing here is checked: the
   * fetcher checks every response against its request before it uses a byte. {@link #abort()} may be
   * called from another thread to cancel a read.
   */
  interface Body extends Closeable {
    InputStream stream();

    /** The HTTP status: 206 for a range, 200 for the whole object (or a server that ignored Range). */
    int status();

    /** The ETag of the version served, or null if the server sent none. */
    ETag etag();

    /** The {@code Last-Modified} of the version served, or null if the server sent none. */
    java.time.Instant lastModified();

    /** The version id of the version served ({@code x-amz-version-id}), or null if the server sent none. */
    default String versionId() {
      return null;
    }

    /** Bytes in this response body, from {@code Content-Length}, or -1 if absent (a chunked body). */
    long contentLength();

    /** The {@code Content-Range} header as sent, or null if absent. */
    String contentRange();

    /** Drops the connection without reading the rest of the body. Idempotent, thread-safe. */
    void abort();
  }

  /**
   * Length, ETag and Last-Modified of one version of an object, and whether the answer that gave them
   * proves that S3 would let this client GET it.
   *
   * @param etag null if the server sent none
   * @param lastModified null if the server sent none
   * @param versionId the version id ({@code x-amz-version-id}), null if the server sent none
   * @param provesRead false for the answer to a HEAD of an object encrypted under a KMS key: S3 needs no
   *     {@code kms:Decrypt} for a HEAD, only for a GET, so the HEAD is no proof that a GET would be
   *     allowed ({@link dev.slipstream.S3Clients#headProvesRead})
   */
  record ObjectMetadata(long length, ETag etag, java.time.Instant lastModified, boolean provesRead,
      String versionId) {
    /** The answer to a GET, or to a HEAD that proves a GET would be allowed, with no version id. */
    public ObjectMetadata(long length, ETag etag, java.time.Instant lastModified) {
      this(length, etag, lastModified, true, null);
    }
  }
}
