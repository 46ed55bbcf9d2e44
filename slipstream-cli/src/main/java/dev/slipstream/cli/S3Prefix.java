/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.cli;

import dev.slipstream.S3Location;

/**
 * What {@code ls} and {@code du} list: a bucket and a key prefix, which may be empty ({@code s3://bucket}
 * or {@code s3://bucket/}: the whole bucket). The prefix is a plain key prefix, as S3 takes it:
 * {@code s3://b/logs} also matches {@code logs.csv} and {@code logs2/}; {@code s3://b/logs/} only what is
 * inside {@code logs/}.
 */
record S3Prefix(String bucket, String prefix) {
  /**
   * Parses {@code s3://bucket[/prefix]} (also {@code s3a://}, {@code s3n://}); anything else is a
   * {@link UsageException}. Scheme and bucket are checked by {@link S3Location}, as for {@code cp}.
   */
  static S3Prefix parse(String uri) {
    int schemeEnd = uri.indexOf("://");
    int slash = schemeEnd < 0 ? -1 : uri.indexOf('/', schemeEnd + 3);
    String prefix = slash < 0 ? "" : uri.substring(slash + 1);
    String base = slash < 0 ? uri : uri.substring(0, slash);
    try {
      // S3Location wants a key, which a listing may not have: lend it one to check the rest.
      S3Location checked = S3Location.parse(base + "/" + (prefix.isEmpty() ? "-" : prefix));
      return new S3Prefix(checked.bucket(), prefix);
    } catch (IllegalArgumentException e) {
      throw new UsageException("not an S3 prefix (expected s3://bucket/prefix): '" + uri + "'", e);
    }
  }

  @Override
  public String toString() {
    return "s3://" + bucket + "/" + prefix;
  }
}
