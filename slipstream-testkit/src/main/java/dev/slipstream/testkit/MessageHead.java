/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.testkit;

import java.io.EOFException;
import java.io.IOException;
import java.net.ProtocolException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * A request or response head as received, relayed byte for byte up to line endings: the header lines
 * are kept as they came (so the {@code Host} header and everything else a signature covers is
 * unchanged), and a by-name view serves the few headers the shaper reads itself.
 */
final class MessageHead {
  /** Also bounds the lines of a chunked body (sizes, trailers), which are read like head lines. */
  static final int MAX_HEAD_BYTES = 64 * 1024;

  private final String startLine;
  private final List<String> lines;
  private final Map<String, String> byName;

  private MessageHead(String startLine, List<String> lines, Map<String, String> byName) {
    this.startLine = startLine;
    this.lines = lines;
    this.byName = byName;
  }

  /** Reads a head; null on a clean end of stream before its first byte. */
  static MessageHead read(Wire in, boolean request) throws IOException {
    String start = in.readLine(MAX_HEAD_BYTES);
    // Robustness: a client may send stray empty lines between requests.
    while (start != null && request && start.isEmpty()) {
      start = in.readLine(MAX_HEAD_BYTES);
    }
    if (start == null) {
      return null;
    }
    List<String> lines = new ArrayList<>();
    Map<String, String> byName = new LinkedHashMap<>();
    int total = start.length();
    while (true) {
      String line = in.readLine(MAX_HEAD_BYTES);
      if (line == null) {
        throw new EOFException("connection closed inside a message head");
      }
      if (line.isEmpty()) {
        break;
      }
      total += line.length() + 2;
      if (total > MAX_HEAD_BYTES) {
        throw new IOException("message head larger than " + MAX_HEAD_BYTES + " bytes");
      }
      lines.add(line);
      int colon = line.indexOf(':');
      if (colon > 0) {
        String name = line.substring(0, colon).trim().toLowerCase(Locale.ROOT);
        String value = line.substring(colon + 1).trim();
        byName.merge(name, value, (a, b) -> a + ", " + b);
      }
    }
    MessageHead head = new MessageHead(start, lines, byName);
    try {
      if (request) {
        head.requestParts();
      } else {
        head.status();
      }
    } catch (IllegalArgumentException e) {
      throw new ProtocolException(e.getMessage());
    }
    return head;
  }

  String get(String lowerName) {
    return byName.get(lowerName);
  }

  boolean hasToken(String lowerName, String token) {
    String v = byName.get(lowerName);
    if (v == null) {
      return false;
    }
    for (String t : v.split(",")) {
      if (t.trim().equalsIgnoreCase(token)) {
        return true;
      }
    }
    return false;
  }

  /** Whether this message ends its connection, by HTTP/1.1 and HTTP/1.0 rules. */
  boolean wantsClose() {
    if (hasToken("connection", "close")) {
      return true;
    }
    String version = isRequestLine() ? requestParts()[2] : startLine.substring(0, startLine.indexOf(' '));
    return version.equalsIgnoreCase("HTTP/1.0") && !hasToken("connection", "keep-alive");
  }

  private boolean isRequestLine() {
    return !startLine.startsWith("HTTP/");
  }

  private String[] requestParts() {
    String[] parts = startLine.split(" ");
    if (parts.length != 3 || !parts[2].startsWith("HTTP/1.")) {
      throw new IllegalArgumentException("malformed request line: " + startLine);
    }
    return parts;
  }

  String method() {
    return requestParts()[0].toUpperCase(Locale.ROOT);
  }

  int status() {
    if (startLine.length() < 12 || !startLine.startsWith("HTTP/1.")) {
      throw new IllegalArgumentException("malformed status line: " + startLine);
    }
    try {
      return Integer.parseInt(startLine.substring(9, 12));
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("malformed status line: " + startLine, e);
    }
  }

  RequestInfo toRequestInfo() {
    String target = requestParts()[1];
    // Absolute form (http://host/path) only comes from clients that think we are a forward proxy.
    int scheme = target.indexOf("://");
    if (scheme > 0 && !target.startsWith("/")) {
      int slash = target.indexOf('/', scheme + 3);
      target = slash < 0 ? "/" : target.substring(slash);
    }
    int q = target.indexOf('?');
    String path = q < 0 ? target : target.substring(0, q);
    String query = q < 0 ? null : target.substring(q + 1);
    return new RequestInfo(method(), path, query, byName);
  }

  byte[] toBytes() {
    StringBuilder sb = new StringBuilder(startLine.length() + 32 * lines.size() + 4);
    sb.append(startLine).append("\r\n");
    for (String line : lines) {
      sb.append(line).append("\r\n");
    }
    sb.append("\r\n");
    return sb.toString().getBytes(StandardCharsets.ISO_8859_1);
  }
}
