/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.testkit;

import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * One request as a {@link LinkShaper} received it, given to the predicates of
 * {@link LinkShaper#injectNext} and {@link LinkShaper#onRequest}.
 *
 * @param method the request method, e.g. {@code GET}
 * @param path the raw (still percent-encoded) path of the request target, without the query
 * @param query the raw query string after {@code ?}, or null when there is none
 * @param headers the request headers by lower-case name; repeated headers are joined with {@code ", "}
 */
public record RequestInfo(String method, String path, String query, Map<String, String> headers) {

  public RequestInfo {
    Objects.requireNonNull(method, "method");
    Objects.requireNonNull(path, "path");
    Map<String, String> lower = new LinkedHashMap<>();
    if (headers != null) {
      headers.forEach((k, v) -> lower.merge(k.toLowerCase(Locale.ROOT), v == null ? "" : v,
          (a, b) -> a + ", " + b));
    }
    headers = Map.copyOf(lower);
  }

  /** The value of header {@code name} (any case), or null. */
  public String header(String name) {
    return headers.get(name.toLowerCase(Locale.ROOT));
  }

  /** The {@code Range} header, or null. */
  public String range() {
    return headers.get("range");
  }

  public boolean isGet() {
    return "GET".equalsIgnoreCase(method);
  }

  public boolean isHead() {
    return "HEAD".equalsIgnoreCase(method);
  }
}
