/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.memcached;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.zip.CRC32C;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * How a block is stored in memcached: as chunks of at most {@value #CHUNK} bytes (under memcached's default
 * item limit of 1 MiB with key and header), each under a key of its own and carrying a header that names the
 * block, the chunk's place and length, a CRC32C of its bytes and, with a secret, an HMAC-SHA256 over key,
 * header and bytes. A chunk is used only if every field matches what the reader expects: a stale, foreign,
 * truncated or forged value is a miss, never bytes.
 *
 * <p>Layout, big-endian: magic {@code SSB1} (4), flags (1; bit 0: signed), chunk index (2), chunk count (2),
 * block length (4), payload length (4), block name (32), CRC32C of the payload (4), then the HMAC (32) if
 * signed, then the payload.
 */
final class Chunks {
  /** Payload bytes per chunk: 512 KiB, so that a chunk with its header and key fits memcached's default -I 1m. */
  static final int CHUNK = 512 * 1024;
  static final int NAME = 32;
  private static final int MAGIC = 0x53534231; // "SSB1"
  private static final int HEADER = 4 + 1 + 2 + 2 + 4 + 4 + NAME + 4;
  private static final int HMAC = 32;
  private static final HexFormat HEX = HexFormat.of();

  /** Why a chunk was not used. */
  enum Verdict {
    OK,
    /** Not a chunk of this block, or damaged: wrong magic, name, place, length or CRC32C. */
    CORRUPT,
    /** A secret is set and the chunk's signature is missing or wrong. */
    REJECTED
  }

  private final SecretKeySpec secret;

  /** @param secret the shared secret chunks are signed with, or null to sign nothing */
  Chunks(String secret) {
    this.secret = secret == null ? null : new SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), "HmacSHA256");
  }

  /**
   * The most bytes a stored value of a chunk of {@code payload} bytes has, signed or not: the array the
   * client reads it into, or sends it from.
   */
  static int valueLength(int payload) {
    return HEADER + HMAC + payload;
  }

  static int count(int blockLength) {
    return Math.max(1, (blockLength + CHUNK - 1) / CHUNK);
  }

  /** The key the ring places block {@code name} by: every chunk of a block lives on the same server. */
  static String blockKey(byte[] name) {
    return "slipstream:" + HEX.formatHex(name);
  }

  /** The memcached key of chunk {@code index} of block {@code name}: no bucket or object name in it. */
  static String key(byte[] name, int index) {
    return blockKey(name) + ":" + index;
  }

  /** Chunk {@code index} of the block {@code src[off, off + length)} named {@code name}, with its header. */
  byte[] encode(byte[] name, int index, byte[] src, int off, int length) {
    int count = count(length);
    int start = index * CHUNK;
    int n = Math.min(CHUNK, length - start);
    boolean signed = secret != null;
    ByteBuffer b = ByteBuffer.allocate(HEADER + (signed ? HMAC : 0) + n);
    b.putInt(MAGIC).put((byte) (signed ? 1 : 0)).putShort((short) index).putShort((short) count).putInt(length)
        .putInt(n).put(name);
    CRC32C crc = new CRC32C();
    crc.update(src, off + start, n);
    b.putInt((int) crc.getValue());
    if (signed) {
      b.put(mac(key(name, index), b.array(), HEADER, src, off + start, n));
    }
    b.put(src, off + start, n);
    return b.array();
  }

  /**
   * Checks {@code value}, stored under chunk {@code index} of block {@code name} of {@code length} bytes,
   * and copies its payload to its place in {@code dst} (the block starting at {@code off}) if it is good.
   */
  Verdict decode(byte[] value, byte[] name, int index, int length, byte[] dst, int off) {
    return decode(value, name, index, length, 0, length, dst, off);
  }

  /**
   * As {@link #decode(byte[], byte[], int, int, byte[], int)}, copying only what the chunk holds of block
   * bytes {@code [from, from + n)}, byte {@code from} going to {@code dst[off]}.
   */
  Verdict decode(byte[] value, byte[] name, int index, int length, int from, int n, byte[] dst, int off) {
    int count = count(length);
    int start = index * CHUNK;
    int size = Math.min(CHUNK, length - start);
    if (value.length < HEADER) {
      return Verdict.CORRUPT;
    }
    ByteBuffer b = ByteBuffer.wrap(value);
    if (b.getInt() != MAGIC) {
      return Verdict.CORRUPT;
    }
    boolean signed = (b.get() & 1) != 0;
    int payloadAt = HEADER + (signed ? HMAC : 0);
    byte[] storedName = new byte[NAME];
    boolean fits = (b.getShort() & 0xFFFF) == index && (b.getShort() & 0xFFFF) == count && b.getInt() == length
        && b.getInt() == size && value.length == payloadAt + size;
    b.get(storedName);
    if (!fits || !MessageDigest.isEqual(storedName, name)) {
      return Verdict.CORRUPT;
    }
    int crcStored = ByteBuffer.wrap(value, HEADER - 4, 4).getInt();
    if (secret != null) {
      if (!signed) {
        return Verdict.REJECTED;
      }
      byte[] expected = mac(key(name, index), value, HEADER, value, payloadAt, size);
      if (!MessageDigest.isEqual(expected, java.util.Arrays.copyOfRange(value, HEADER, HEADER + HMAC))) {
        return Verdict.REJECTED;
      }
    }
    CRC32C crc = new CRC32C();
    crc.update(value, payloadAt, size);
    if ((int) crc.getValue() != crcStored) {
      return Verdict.CORRUPT;
    }
    int copyFrom = Math.max(start, from);
    int copyTo = Math.min(start + size, from + n);
    if (copyTo > copyFrom) {
      System.arraycopy(value, payloadAt + (copyFrom - start), dst, off + (copyFrom - from), copyTo - copyFrom);
    }
    return Verdict.OK;
  }

  private byte[] mac(String key, byte[] header, int headerLength, byte[] payload, int payloadOff, int n) {
    try {
      Mac m = Mac.getInstance("HmacSHA256");
      m.init(secret);
      m.update(key.getBytes(StandardCharsets.US_ASCII));
      m.update(header, 0, headerLength);
      m.update(payload, payloadOff, n);
      return m.doFinal();
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("HmacSHA256 is missing from this JVM", e);
    }
  }
}
