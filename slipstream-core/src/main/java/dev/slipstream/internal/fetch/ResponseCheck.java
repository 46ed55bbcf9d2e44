/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.fetch;

import dev.slipstream.internal.store.ContentRange;
import dev.slipstream.internal.store.ObjectStore;
import java.io.IOException;

/**
 * Checks one GET response against its request before a byte of it is used (docs/architecture.md,
 * rule 1): the version (ETag, or Last-Modified where there is none), then the shape; only a response
 * that passed every check pins the version of a stream that did not know it yet. A range is a
 * {@code 206} whose {@code Content-Range} start, end and total are the ones asked for, and whose
 * {@code Content-Length}, if sent, is the range's length (the reader then checks that the body has
 * exactly that many bytes).
 *
 * <p>Proxies and S3-compatible servers exist that ignore {@code Range} and answer {@code 200} with the
 * whole object, chunked or with its Content-Length, or that answer another range than the one asked. A
 * {@code 200} is taken where the request covered the whole object, or where the whole object is at most
 * one block: then it is read for the range asked, wherever the range lies (the bytes before it are
 * skipped, the range taken, and those after it never read: the response ends there, its connection
 * dropped); anywhere else its bytes are refused with an error that names the server's behaviour.
 * Refusals are not retried: the server would answer the same way again.
 */
final class ResponseCheck {
  private ResponseCheck() {}

  /**
   * Where the range lies in a body that passed the checks: {@code before} bytes come before it, to be
   * skipped, and {@code after} bytes of the object follow it, never to be read. Both are 0 for a
   * {@code 206}, whose body is the range.
   */
  record Around(long before, long after) {
    static final Around NONE = new Around(0, 0);
  }

  /**
   * Checks {@code body}, the response to a GET of bytes {@code [start, end)}.
   *
   * @param readThroughMax the largest object whose {@code 200} is read through to the range
   * @return where the range lies in the body
   */
  static Around check(ObjectHandle h, long start, long end, ObjectStore.Body body, long readThroughMax)
      throws IOException {
    h.checkVersion(body.etag(), body.lastModified(), body.versionId());
    Around around = checkShape(h, start, end, body, readThroughMax);
    h.pinVersion(body.etag(), body.lastModified(), body.versionId()); // only a response that passed every check names the version
    return around;
  }

  /** The length and the shape of {@code body}; returns where the range lies in it (see {@link #check}). */
  private static Around checkShape(ObjectHandle h, long start, long end, ObjectStore.Body body,
      long readThroughMax) throws IOException {
    String request = "GET " + h.location() + " bytes " + start + "-" + (end - 1);
    long want = end - start;
    long contentLength = body.contentLength();
    switch (body.status()) {
      case 206: {
        ContentRange range = ContentRange.parse(body.contentRange());
        if (range == null) {
          throw new IOException(request + ": the server answered 206 " + (body.contentRange() == null
              ? "without a Content-Range" : "with a malformed Content-Range [" + body.contentRange() + "]")
              + "; its bytes are not used");
        }
        if (range.total() < 0) {
          throw new IOException(request + ": the server answered " + range + " without the object's length;"
              + " its bytes are not used");
        }
        h.checkLength(range.total());
        if (range.first() != start || range.last() != end - 1) {
          throw new IOException(request + ": the server answered " + range + ", another range than the one"
              + " asked for (a proxy that caches or aligns ranges?); its bytes are not used");
        }
        if (contentLength >= 0 && contentLength != want) {
          throw new IOException(request + ": the server answered " + range + " with a Content-Length of "
              + contentLength + " instead of " + want + "; its bytes are not used");
        }
        return Around.NONE;
      }
      case 200: {
        // A 200 carries the whole object, whatever was asked: the range lies inside it.
        h.checkLength(contentLength);
        if ((start == 0 && end == h.length()) || h.length() <= readThroughMax) {
          return new Around(start, h.length() - end);
        }
        throw new IOException(request + ": the server answered 200 with the whole object ("
            + (contentLength >= 0 ? contentLength + " bytes" : "chunked, no Content-Length")
            + ") instead of 206 with the range: it ignores Range requests (a proxy that drops the Range"
            + " header, or a server without range support); Slipstream reads objects larger than one block ("
            + readThroughMax + " bytes) only by ranges");
      }
      default:
        throw new IOException(request + ": the server answered " + body.status()
            + ", neither 206 (the range) nor 200 (the whole object); its bytes are not used");
    }
  }
}
