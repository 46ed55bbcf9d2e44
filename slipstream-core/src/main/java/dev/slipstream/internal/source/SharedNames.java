/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.source;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The names blocks and ranges have in the shared tier: a hash of the namespace and the block's identity
 * (bucket, key, ETag, block size, index) or the range's (bucket, key, ETag, start, length), so that no bucket or key reaches the servers and a new version is a new name.
 * With {@code shared.secret} the hash is an HMAC-SHA256 keyed with it: whoever reaches memcached without the
 * secret can neither tell which objects are cached (a SHA-256 of names one can guess would show it) nor
 * find a block's name to put a chunk under. Without a secret ({@code shared.secret=none}), a SHA-256.
 */
public final class SharedNames {
  private final String namespace;
  /** Null without a secret. Its hashCode derives from the key: never printed (see toString). */
  private final SecretKeySpec key;

  /** @param secret the cluster's secret, or null for none */
  public SharedNames(String namespace, String secret) {
    this.namespace = namespace;
    this.key = secret == null ? null : new SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), "HmacSHA256");
  }

  /** The 32-byte name of block {@code index} of the version {@code etag} of {@code bucket/key}. */
  byte[] block(String bucket, String objectKey, String etag, int blockSize, long index) {
    return name("slipstream-shared-v1", bucket, objectKey, etag,
        ByteBuffer.allocate(12).putInt(blockSize).putLong(index).array());
  }

  /**
   * The 32-byte name of exactly the range {@code [start, start + length)} of the version {@code etag} of
   * {@code bucket/key}, as a columnar reader fetched it: of another domain than blocks' names, so that no
   * range and block share one.
   */
  byte[] range(String bucket, String objectKey, String etag, long start, int length) {
    return name("slipstream-shared-range-v1", bucket, objectKey, etag,
        ByteBuffer.allocate(12).putLong(start).putInt(length).array());
  }

  private byte[] name(String domain, String bucket, String objectKey, String etag, byte[] where) {
    try {
      Mac mac = null;
      MessageDigest md = null;
      if (key != null) {
        mac = Mac.getInstance("HmacSHA256");
        mac.init(key);
      } else {
        md = MessageDigest.getInstance("SHA-256");
      }
      for (String s : new String[] {domain, namespace, bucket, objectKey, etag}) {
        byte[] b = s.getBytes(StandardCharsets.UTF_8);
        update(mac, md, ByteBuffer.allocate(4).putInt(b.length).array());
        update(mac, md, b);
      }
      update(mac, md, where);
      return mac != null ? mac.doFinal() : md.digest();
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("HmacSHA256 or SHA-256 is missing from this JVM", e);
    }
  }

  private static void update(Mac mac, MessageDigest md, byte[] b) {
    if (mac != null) {
      mac.update(b);
    } else {
      md.update(b);
    }
  }

  @Override
  public String toString() {
    return "SharedNames[" + namespace + (key != null ? ", keyed]" : ", unkeyed]"); // never the secret
  }
}
