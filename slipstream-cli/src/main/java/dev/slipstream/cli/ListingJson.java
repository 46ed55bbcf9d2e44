/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.cli;

import dev.slipstream.ListEntry;
import dev.slipstream.bench.JsonStrings;

/**
 * {@code ls --json}: one JSON object per line, for {@code jq} and scripts.
 *
 * <pre>
 * {"key":"logs/a.csv","size":1234,"lastModified":"2026-11-27T10:04:12Z","etag":"9e107d9d372bb6826bd81d3542a419d6"}
 * {"prefix":"logs/2026/"}
 * </pre>
 *
 * {@code lastModified} is ISO-8601 in UTC and {@code etag} has no quotes; either is null if the server
 * gave none.
 */
final class ListingJson implements ListingFormat {
  @Override
  public String object(ListEntry e) {
    String etag = e.etagValue();
    return "{\"key\":" + JsonStrings.quote(e.key())
        + ",\"size\":" + e.size()
        + ",\"lastModified\":" + (e.lastModified() == null ? "null" : JsonStrings.quote(e.lastModified().toString()))
        + ",\"etag\":" + (etag == null ? "null" : JsonStrings.quote(etag))
        + "}";
  }

  @Override
  public String prefix(String prefix) {
    return "{\"prefix\":" + JsonStrings.quote(prefix) + "}";
  }
}
