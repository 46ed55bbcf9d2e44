/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.testkit;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Responses the shaper makes up without asking the upstream — the status faults, and 400 or 502 when a
 * request cannot be forwarded — shaped like S3's XML errors so that clients parse them as they would
 * the real thing. Each carries its own {@code x-amz-request-id}, numbered across the shaper.
 */
final class LocalResponses {
  static final String SLOW_DOWN_BODY =
      "<Error><Code>SlowDown</Code><Message>Please reduce your request rate.</Message></Error>";
  static final String INTERNAL_ERROR_BODY =
      "<Error><Code>InternalError</Code><Message>We encountered an internal error. Please try again."
          + "</Message></Error>";

  static final String ACCESS_DENIED_BODY =
      "<Error><Code>AccessDenied</Code><Message>Access Denied</Message></Error>";

  private final AtomicInteger requestIds = new AtomicInteger();

  /**
   * Writes a complete response with {@code xml} as its body (only its length for a HEAD request);
   * returns how many body bytes were written.
   */
  int write(OutputStream out, int status, String reason, String xml, boolean headRequest, boolean close)
      throws IOException {
    byte[] body = xml.getBytes(StandardCharsets.UTF_8);
    StringBuilder head = new StringBuilder(256)
        .append("HTTP/1.1 ").append(status).append(' ').append(reason).append("\r\n")
        .append("Content-Type: application/xml\r\n")
        .append("Content-Length: ").append(body.length).append("\r\n")
        .append("x-amz-request-id: SLIPSTREAMSHAPER").append(requestIds.incrementAndGet()).append("\r\n");
    if (close) {
      head.append("Connection: close\r\n");
    }
    head.append("\r\n");
    out.write(head.toString().getBytes(StandardCharsets.ISO_8859_1));
    if (headRequest) {
      return 0;
    }
    out.write(body);
    return body.length;
  }
}
