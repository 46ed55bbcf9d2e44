/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.testkit;

import java.io.IOException;

/**
 * How a message body is delimited: by Content-Length, by chunked encoding, or (responses only) by the
 * end of the connection. Read from the head; {@link BodyRelay} copies the body accordingly.
 */
record Framing(boolean hasBody, boolean chunked, long length, boolean toClose) {
  static final Framing NONE = new Framing(false, false, 0, false);

  boolean isEmpty() {
    return !hasBody || (!chunked && !toClose && length == 0);
  }

  static Framing ofRequest(MessageHead h) throws IOException {
    String te = h.get("transfer-encoding");
    if (te != null) {
      if (!lastCodingIsChunked(te)) {
        throw new IOException("request Transfer-Encoding without chunked: " + te);
      }
      return new Framing(true, true, -1, false);
    }
    long length = contentLength(h);
    return length > 0 ? new Framing(true, false, length, false) : NONE;
  }

  static Framing ofResponse(MessageHead h, boolean headRequest) throws IOException {
    int status = h.status();
    if (headRequest || status < 200 || status == 204 || status == 304) {
      return NONE;
    }
    String te = h.get("transfer-encoding");
    if (te != null) {
      return lastCodingIsChunked(te) ? new Framing(true, true, -1, false) : new Framing(true, false, -1, true);
    }
    long length = contentLength(h);
    return length >= 0 ? new Framing(true, false, length, false) : new Framing(true, false, -1, true);
  }

  private static boolean lastCodingIsChunked(String te) {
    String[] codings = te.split(",");
    return codings[codings.length - 1].trim().equalsIgnoreCase("chunked");
  }

  /** -1 when absent; repeated identical values ("5, 5") are accepted. */
  private static long contentLength(MessageHead h) throws IOException {
    String v = h.get("content-length");
    if (v == null) {
      return -1;
    }
    long length = -1;
    for (String part : v.split(",")) {
      try {
        long l = Long.parseLong(part.trim());
        if (l < 0 || (length >= 0 && l != length)) {
          throw new NumberFormatException();
        }
        length = l;
      } catch (NumberFormatException e) {
        throw new IOException("bad Content-Length: " + v);
      }
    }
    return length;
  }
}
