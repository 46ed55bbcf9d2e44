/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.bench;

import java.nio.ByteBuffer;

/**
 * An order-dependent 64-bit checksum of a column's values, computed the same way when the Parquet file
 * is written and when each reader's copy is decoded: a reader that returned one wrong byte of a column
 * chunk gives a different value (or fails to decode).
 */
final class ValueHash {
  static final long NULL = 0x5bd1e9955bd1e995L;
  static final long START = 0x2545F4914F6CDD1DL;

  private ValueHash() {}

  static long add(long hash, long value) {
    long h = Long.rotateLeft(hash, 5) ^ value;
    return h * 0x9E3779B97F4A7C15L;
  }

  /** FNV-1a over the bytes left in {@code b} (its position is not moved). */
  static long ofBytes(ByteBuffer b) {
    long h = 0xcbf29ce484222325L;
    for (int i = b.position(); i < b.limit(); i++) {
      h ^= b.get(i) & 0xff;
      h *= 0x100000001b3L;
    }
    return h;
  }

  static long ofBytes(byte[] b) {
    return ofBytes(ByteBuffer.wrap(b));
  }
}
