/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.store;

import java.time.Instant;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.http.SdkHttpResponse;
import software.amazon.awssdk.services.s3.model.GetObjectRequest;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;
import software.amazon.awssdk.utils.DateUtils;

/**
 * A GET's {@code Last-Modified}, parsed once per distinct value instead of once per response.
 *
 * <p>Why: the SDK unmarshals every header of a {@link GetObjectResponse}, and its RFC 1123 date parser
 * ({@code DateTimeFormatter}) took 7% of {@code getObject}'s CPU on a declared read (async-profiler), for a
 * value that is the same on every GET of one object version. On the client of the read path's GETs
 * ({@link S3ClientFactory#createForReads}), this interceptor moves the header out of the SDK's reach, under
 * {@link #MOVED}, before the response is unmarshalled; {@link #of} then reads it through a small cache of the
 * values seen, parsed by the SDK's own parser ({@link DateUtils#parseRfc822Date}), so the same text gives the
 * same instant, and a value that parser refuses fails the GET, as it did in the SDK. A response of a client
 * without the interceptor (a caller's) keeps its header, and its {@code lastModified()} is used.
 *
 * <p>Only for a client of GETs whose other interceptors do not read a response's Last-Modified: after this
 * one they find none (response hooks run in reverse order, so this one, added last, runs first).
 */
public final class LastModifiedHeader implements ExecutionInterceptor {
  static final String HEADER = "Last-Modified";
  /** Where the header goes: a name no S3 response uses, and outside the {@code x-amz-meta-} user metadata. */
  static final String MOVED = "x-slipstream-last-modified";

  private static final int SLOTS = 64;
  /** Values seen and their instants, by the text's hash: an entry's fields are final, so a racy slot is safe. */
  private static final Parsed[] CACHE = new Parsed[SLOTS];

  private record Parsed(String text, Instant at) {}

  @Override
  public SdkHttpResponse modifyHttpResponse(Context.ModifyHttpResponse context,
      ExecutionAttributes executionAttributes) {
    SdkHttpResponse r = context.httpResponse();
    if (!(context.request() instanceof GetObjectRequest)) {
      return r; // a HEAD's or any other answer keeps the SDK's parse: only a GET's is read through of()
    }
    java.util.Optional<String> value = r.firstMatchingHeader(HEADER);
    if (value.isEmpty()) {
      return r;
    }
    return r.toBuilder().removeHeader(HEADER).putHeader(MOVED, value.get()).build();
  }

  /**
   * The Last-Modified of {@code r}: the SDK's, where it parsed one, else the moved header's, parsed here;
   * null if the response had none.
   *
   * @throws java.time.format.DateTimeParseException if the value is no date the SDK's parser reads
   */
  static Instant of(GetObjectResponse r) {
    if (r.lastModified() != null) {
      return r.lastModified();
    }
    return r.sdkHttpResponse().firstMatchingHeader(MOVED).map(LastModifiedHeader::parse).orElse(null);
  }

  static Instant parse(String text) {
    int slot = text.hashCode() & (SLOTS - 1);
    Parsed p = CACHE[slot];
    if (p != null && p.text().equals(text)) {
      return p.at();
    }
    Instant at = DateUtils.parseRfc822Date(text);
    CACHE[slot] = new Parsed(text, at);
    return at;
  }
}
