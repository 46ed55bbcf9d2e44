/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.testkit;

import com.sun.net.httpserver.HttpExchange;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What {@link ScriptedS3Server} reads off a request and writes back, as S3 spells it: SigV4's credential
 * scope (who signed, for which region), query parameters, {@code Range}, the conditions of a GET,
 * {@code aws-chunked} bodies, the object a path names, and error answers. Tests use the public ones to
 * pick requests in rules ({@link ScriptedS3Server#when}, {@link ScriptedS3Server#refuse}).
 */
public final class S3Wire {
  private static final DateTimeFormatter HTTP_DATE = DateTimeFormatter.RFC_1123_DATE_TIME;

  private S3Wire() {}

  /** The region {@code r} was signed for (SigV4's credential scope), or null if unsigned. */
  public static String signingRegionOf(RequestInfo r) {
    String auth = r.header("authorization");
    int at = auth == null ? -1 : auth.indexOf("Credential=");
    if (at < 0) {
      return null;
    }
    String[] scope = auth.substring(at + "Credential=".length()).split("[/,]");
    return scope.length > 2 ? scope[2] : null;
  }

  /** The access key id {@code r} was signed with (SigV4's {@code Credential=}), or null if unsigned. */
  public static String accessKeyOf(RequestInfo r) {
    String auth = r.header("authorization");
    int at = auth == null ? -1 : auth.indexOf("Credential=");
    if (at < 0) {
      return null;
    }
    int end = auth.indexOf('/', at);
    return end < 0 ? null : auth.substring(at + "Credential=".length(), end);
  }

  /** Whether the If-Match and If-Unmodified-Since of {@code req} hold for a version ({@code etag}, {@code lastModified}). */
  static boolean conditionsHold(RequestInfo req, String etag, Instant lastModified) {
    String ifMatch = req.header("if-match");
    if (ifMatch != null) {
      String bare = ifMatch.strip();
      if (bare.length() >= 2 && bare.startsWith("\"") && bare.endsWith("\"")) {
        bare = bare.substring(1, bare.length() - 1);
      }
      if (!bare.equals("*") && !bare.equals(etag)) {
        return false;
      }
    }
    String since = req.header("if-unmodified-since");
    if (since != null) {
      try {
        Instant t = ZonedDateTime.parse(since, HTTP_DATE).toInstant();
        if (lastModified.isAfter(t)) {
          return false;
        }
      } catch (DateTimeParseException e) {
        // ignored, as servers do with a date they cannot read
      }
    }
    return true;
  }

  /** The decoded value of {@code name} in {@code query} (a raw query string, may be null), or null. */
  public static String queryParam(String query, String name) {
    if (query == null) {
      return null;
    }
    for (String part : query.split("&")) {
      int eq = part.indexOf('=');
      if (eq > 0 && part.substring(0, eq).equals(name)) {
        return URLDecoder.decode(part.substring(eq + 1), StandardCharsets.UTF_8);
      }
    }
    return null;
  }

  /** {@code [first, last]} of a {@code bytes=a-b} or {@code bytes=a-} header, or null without one. */
  static long[] parseRange(String header, long length) {
    if (header == null || !header.startsWith("bytes=")) {
      return null;
    }
    String spec = header.substring(6);
    int dash = spec.indexOf('-');
    long first = Long.parseLong(spec.substring(0, dash));
    String end = spec.substring(dash + 1);
    long last = end.isEmpty() ? length - 1 : Math.min(Long.parseLong(end), length - 1);
    return new long[] {first, last};
  }

  /** An S3 error answer: status, code, and (but to a HEAD) its XML body. */
  static void error(HttpExchange ex, int status, String code, boolean head) throws IOException {
    byte[] body = ("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Error><Code>" + code + "</Code><Message>" + code
        + "</Message></Error>").getBytes(StandardCharsets.UTF_8);
    ex.getResponseHeaders().set("Content-Type", "application/xml");
    if (head) {
      ex.sendResponseHeaders(status, -1);
      return;
    }
    ex.sendResponseHeaders(status, body.length);
    ex.getResponseBody().write(body);
  }

  /** What a test sees of a request. */
  static RequestInfo info(HttpExchange ex) {
    Map<String, String> headers = new LinkedHashMap<>();
    ex.getRequestHeaders().forEach((k, vs) -> headers.put(k, String.join(", ", vs)));
    return new RequestInfo(ex.getRequestMethod(), ex.getRequestURI().getRawPath(),
        ex.getRequestURI().getRawQuery(), headers);
  }

  /** Hex MD5, as an ETag. */
  static String md5(byte[] data) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("MD5").digest(data));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  /**
   * The payload of an {@code aws-chunked} body: chunks of {@code <hex size>[;chunk-signature=...]\r\n<data>\r\n}
   * up to one of size 0, then trailers, which are dropped (their signatures are not checked).
   */
  static byte[] awsChunked(byte[] body) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream(body.length);
    int at = 0;
    while (true) {
      int eol = indexOfCrlf(body, at);
      if (eol < 0) {
        throw new IOException("aws-chunked body without a chunk header at " + at);
      }
      String header = new String(body, at, eol - at, StandardCharsets.US_ASCII);
      int semi = header.indexOf(';');
      int size = Integer.parseInt((semi < 0 ? header : header.substring(0, semi)).trim(), 16);
      at = eol + 2;
      if (size == 0) {
        return out.toByteArray();
      }
      if (at + size > body.length) {
        throw new IOException("aws-chunked body ends inside a chunk of " + size + " bytes");
      }
      out.write(body, at, size);
      at += size + 2;
    }
  }

  private static int indexOfCrlf(byte[] b, int from) {
    for (int i = from; i + 1 < b.length; i++) {
      if (b[i] == '\r' && b[i + 1] == '\n') {
        return i;
      }
    }
    return -1;
  }

  /** The bucket and key of {@code r}, path-style, decoded; for rules that pick one object. */
  public static String objectOf(RequestInfo r) {
    return URLDecoder.decode(r.path().substring(1).replace("+", "%2B"), StandardCharsets.UTF_8);
  }
}
