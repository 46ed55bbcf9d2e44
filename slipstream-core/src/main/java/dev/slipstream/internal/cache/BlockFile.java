/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.cache;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.concurrent.ThreadLocalRandom;
import java.util.regex.Pattern;
import java.util.zip.CRC32C;

/**
 * The format of one cached block on disk, and the only names the cache ever gives its files.
 *
 * <p>Why a class of its own: what a cache file looks like (its name and its header) decides what the
 * cache may read, reuse and delete. A name is the 32 hex digits of the first {@value #NAME_BYTES} bytes of the
 * block's SHA-256 id and {@value #SUFFIX}; a file being written is that name, a dot, 16 hex digits and
 * {@value #TMP_SUFFIX}. Only names matching these patterns exactly are ever deleted, so a user's {@code
 * notes.tmp} or {@code x.blk} is never taken for the cache's own.
 *
 * <p>A file holds a header (magic, the whole 32-byte id, block length, chunk size, one CRC32C per {@value
 * #CHUNK}-byte chunk, a CRC32C of the header) and the block's bytes. Why the name is half the id: the index
 * keeps every name in memory, two longs a file ({@link BlockIndex}); 128 bits of SHA-256 do not collide by
 * chance (about 2<sup>-64</sup> at four billion files), and if two blocks ever shared a name, the header's
 * whole id, checked on every read, makes the other's file a miss, never its bytes.
 *
 * <p>Before, names were the whole id's 64 hex digits ({@link #isLegacyBlockFile}); a scan deletes such files,
 * which no read looks for any more.
 */
final class BlockFile {
  /** Bytes covered by one CRC32C: a partial read checks only the chunks it touches. */
  static final int CHUNK = 64 * 1024;
  static final String SUFFIX = ".blk";
  static final String TMP_SUFFIX = ".tmp";
  /** The block format; a new format is a new directory ({@link CacheDirectory#OWN_NAME}). */
  static final int FORMAT = 1;
  private static final byte[] MAGIC = "SLIPBLK1".getBytes(StandardCharsets.US_ASCII);
  static final int ID_BYTES = 32;
  /** The bytes of the id a file's name holds: 128 bits. */
  static final int NAME_BYTES = 16;

  private static final Pattern BLOCK_NAME = Pattern.compile("[0-9a-f]{32}\\.blk");
  private static final Pattern TMP_NAME = Pattern.compile("[0-9a-f]{32}\\.[0-9a-f]{16}\\.tmp");
  private static final Pattern LEGACY_BLOCK_NAME = Pattern.compile("[0-9a-f]{64}\\.blk");
  private static final Pattern LEGACY_TMP_NAME = Pattern.compile("[0-9a-f]{64}\\.[0-9a-f]{16}\\.tmp");
  private static final Pattern SHARD_NAME = Pattern.compile("[0-9a-f]{2}");

  private BlockFile() {}

  /** The name of the block whose id is {@code id}: its first {@link #NAME_BYTES} bytes in hex. */
  static String name(byte[] id) {
    return HexFormat.of().formatHex(id, 0, NAME_BYTES);
  }

  /** The file name of a finished block named {@code name}. */
  static String fileName(String name) {
    return name + SUFFIX;
  }

  /** A fresh temporary file name for block {@code name}: it matches {@link #isTempFile} and nothing else. */
  static String tempFileName(String name) {
    return name + "." + String.format("%016x", ThreadLocalRandom.current().nextLong()) + TMP_SUFFIX;
  }

  /** The block name of {@code fileName}, or null if it is no finished block file of this cache. */
  static String blockName(String fileName) {
    return BLOCK_NAME.matcher(fileName).matches()
        ? fileName.substring(0, fileName.length() - SUFFIX.length()) : null;
  }

  /** A file being written under this format's names (or left by a writer that died). */
  static boolean isTempFile(String fileName) {
    return TMP_NAME.matcher(fileName).matches() || LEGACY_TMP_NAME.matcher(fileName).matches();
  }

  /** A finished block file under the names of before (the whole id): no read finds it any more. */
  static boolean isLegacyBlockFile(String fileName) {
    return LEGACY_BLOCK_NAME.matcher(fileName).matches();
  }

  /** The subdirectory holding block {@code name}: its first two hex digits. */
  static String shard(String name) {
    return name.substring(0, 2);
  }

  static boolean isShard(String dirName) {
    return SHARD_NAME.matcher(dirName).matches();
  }

  static int chunks(int length) {
    return (length + CHUNK - 1) / CHUNK;
  }

  static int headerLength(int chunks) {
    return MAGIC.length + ID_BYTES + 4 + 4 + 4 * chunks + 4;
  }

  static byte[] header(byte[] id, byte[] data, int length) {
    int chunks = chunks(length);
    ByteBuffer h = ByteBuffer.allocate(headerLength(chunks)).order(ByteOrder.BIG_ENDIAN);
    h.put(MAGIC).put(id).putInt(length).putInt(CHUNK);
    CRC32C crc = new CRC32C();
    for (int c = 0; c < chunks; c++) {
      crc.reset();
      crc.update(data, c * CHUNK, Math.min(CHUNK, length - c * CHUNK));
      h.putInt((int) crc.getValue());
    }
    crc.reset();
    crc.update(h.array(), 0, h.position());
    h.putInt((int) crc.getValue());
    return h.array();
  }

  /** The CRCs of the header's chunks, or null if the header is not this block's. */
  static int[] checkHeader(ByteBuffer header, byte[] id, int blockLength) {
    byte[] magic = new byte[MAGIC.length];
    header.get(magic);
    byte[] seen = new byte[ID_BYTES];
    header.get(seen);
    int length = header.getInt();
    int chunk = header.getInt();
    if (!Arrays.equals(magic, MAGIC) || (id != null && !Arrays.equals(seen, id)) || chunk != CHUNK
        || (blockLength >= 0 && length != blockLength) || length < 0) {
      return null;
    }
    int[] crcs = new int[chunks(length)];
    if (header.remaining() != crcs.length * 4 + 4) {
      return null;
    }
    for (int i = 0; i < crcs.length; i++) {
      crcs[i] = header.getInt();
    }
    int headerCrc = header.getInt();
    CRC32C crc = new CRC32C();
    crc.update(header.array(), 0, header.limit() - 4);
    return (int) crc.getValue() == headerCrc ? crcs : null;
  }

  static void readFully(FileChannel ch, ByteBuffer b, long at) throws IOException {
    while (b.hasRemaining()) {
      int n = ch.read(b, at);
      if (n < 0) {
        throw new EOFException("cache file shorter than its header says");
      }
      at += n;
    }
  }

  static void writeFully(FileChannel ch, ByteBuffer b) throws IOException {
    while (b.hasRemaining()) {
      ch.write(b);
    }
  }
}
