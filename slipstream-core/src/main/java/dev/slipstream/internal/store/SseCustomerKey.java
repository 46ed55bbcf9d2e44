/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.store;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;
import java.util.Optional;
import software.amazon.awssdk.services.s3.model.GetObjectRequest;
import software.amazon.awssdk.services.s3.model.HeadObjectRequest;

/**
 * The SSE-C key a client's GETs and HEADs carry ({@code sse.customer.key}), or none: the one place where it
 * meets a request. S3 serves an object stored with a customer-provided key only to a request that names the
 * algorithm, the key and the key's MD5 (AES256, both in base64); without them it answers 400, with another key
 * 403. So every GET and HEAD of the store goes through here: the reader's blocks, the access check's 1-byte GET,
 * open-ahead, footers and vectored reads alike.
 *
 * <p>The key is never shown: {@link #toString()} says only whether there is one. The SDK marks the key's
 * field of a request as sensitive, so a request's own {@code toString()} hides it too.
 */
public final class SseCustomerKey {
  /** No key: requests go out as they are. */
  public static final SseCustomerKey NONE = new SseCustomerKey(null, null);

  private static final String AES256 = "AES256";
  private final String keyBase64;
  private final String md5Base64;

  private SseCustomerKey(String keyBase64, String md5Base64) {
    this.keyBase64 = keyBase64;
    this.md5Base64 = md5Base64;
  }

  /** The key of {@code sse.customer.key}, already checked to be 32 bytes in base64; empty: {@link #NONE}. */
  public static SseCustomerKey of(Optional<String> keyBase64) {
    return keyBase64.map(SseCustomerKey::of).orElse(NONE);
  }

  private static SseCustomerKey of(String keyBase64) {
    byte[] key = Base64.getDecoder().decode(keyBase64.getBytes(StandardCharsets.US_ASCII));
    try {
      byte[] md5 = MessageDigest.getInstance("MD5").digest(key);
      return new SseCustomerKey(keyBase64, Base64.getEncoder().encodeToString(md5));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("this JVM has no MD5, which every Java platform must have", e);
    } finally {
      java.util.Arrays.fill(key, (byte) 0);
    }
  }

  /** Whether requests carry a key. */
  public boolean present() {
    return keyBase64 != null;
  }

  /** Adds the key's headers to a GET, if there is a key. */
  void addTo(GetObjectRequest.Builder get) {
    if (keyBase64 != null) {
      get.sseCustomerAlgorithm(AES256).sseCustomerKey(keyBase64).sseCustomerKeyMD5(md5Base64);
    }
  }

  /** Adds the key's headers to a HEAD, if there is a key. */
  void addTo(HeadObjectRequest.Builder head) {
    if (keyBase64 != null) {
      head.sseCustomerAlgorithm(AES256).sseCustomerKey(keyBase64).sseCustomerKeyMD5(md5Base64);
    }
  }

  @Override
  public String toString() {
    return keyBase64 == null ? "no SSE-C key" : "SSE-C key ****";
  }
}
