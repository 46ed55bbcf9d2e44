/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.cache;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * A thread's SHA-256 of a block's key (the disk cache's block ids): the object version's part (bucket, key,
 * ETag) is hashed once and kept while the thread's keys name that version, as a fetch thread's successive
 * blocks of one stream do; each block then hashes only its size and index onto a copy of it.
 */
final class ObjectDigest {
  static final ThreadLocal<ObjectDigest> THREADS = ThreadLocal.withInitial(ObjectDigest::new);

  private final MessageDigest version = sha256();
  private final ByteBuffer place = ByteBuffer.allocate(12);
  private String bucket;
  private String key;
  private String etag;

  byte[] id(String bucket, String key, String etag, int blockSize, long index) {
    if (!etag.equals(this.etag) || !key.equals(this.key) || !bucket.equals(this.bucket)) {
      version.reset();
      for (String s : new String[] {bucket, key, etag}) {
        byte[] b = s.getBytes(StandardCharsets.UTF_8);
        version.update(ByteBuffer.allocate(4).putInt(b.length).array());
        version.update(b);
      }
      this.bucket = bucket;
      this.key = key;
      this.etag = etag;
    }
    MessageDigest md;
    try {
      md = (MessageDigest) version.clone();
    } catch (CloneNotSupportedException e) {
      throw new IllegalStateException("this JVM's SHA-256 cannot be copied", e);
    }
    place.clear();
    md.update(place.putInt(blockSize).putLong(index).array());
    return md.digest();
  }

  private static MessageDigest sha256() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is missing from this JVM", e);
    }
  }
}
