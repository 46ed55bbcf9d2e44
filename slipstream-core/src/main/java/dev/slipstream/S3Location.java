/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream;

import java.util.Objects;

/** A bucket and key. {@link #toString()} gives the {@code s3://bucket/key} form used in every message. */
public record S3Location(String bucket, String key) {
  public S3Location {
    Objects.requireNonNull(bucket, "bucket");
    Objects.requireNonNull(key, "key");
    if (bucket.isEmpty()) {
      throw new IllegalArgumentException("empty bucket name in s3://" + bucket + "/" + key);
    }
    if (key.isEmpty()) {
      throw new IllegalArgumentException("empty object key in s3://" + bucket + "/");
    }
  }

  /**
   * Parses {@code s3://bucket/key} (also {@code s3a://} and {@code s3n://}). The key is taken as
   * written, not URL-decoded: S3 keys may contain {@code %} and spaces.
   */
  public static S3Location parse(String uri) {
    Objects.requireNonNull(uri, "uri");
    int schemeEnd = uri.indexOf("://");
    if (schemeEnd < 0) {
      throw new IllegalArgumentException("not an S3 URI (expected s3://bucket/key): '" + uri + "'");
    }
    String scheme = uri.substring(0, schemeEnd);
    if (!scheme.equals("s3") && !scheme.equals("s3a") && !scheme.equals("s3n")) {
      throw new IllegalArgumentException("unsupported scheme '" + scheme + "' in '" + uri + "' (expected s3://bucket/key)");
    }
    String rest = uri.substring(schemeEnd + 3);
    int slash = rest.indexOf('/');
    if (slash <= 0 || slash == rest.length() - 1) {
      throw new IllegalArgumentException("expected s3://bucket/key, got '" + uri + "'");
    }
    return new S3Location(rest.substring(0, slash), rest.substring(slash + 1));
  }

  @Override
  public String toString() {
    return "s3://" + bucket + "/" + key;
  }
}
