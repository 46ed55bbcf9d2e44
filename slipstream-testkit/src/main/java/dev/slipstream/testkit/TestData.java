/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.testkit;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.zip.CRC32C;

/**
 * Deterministic pseudo-random object contents that can be computed at any offset, so a test can
 * check every byte of a large object without holding a copy of it.
 *
 * <p>Byte {@code i} of the object for {@code seed} is byte {@code i % 8} (little-endian) of
 * {@code mix(seed, i / 8)}, where {@code mix} is the SplitMix64 finaliser.
 *
 * <p>The one generator of the project's test and benchmark data: the benchmark uses it too, so this
 * class loads with nothing but the JDK (no s3proxy, no Guava).
 */
public final class TestData {
  private TestData() {}

  /** SplitMix64 of {@code (seed, word)}: word {@code word} of the object for {@code seed}. */
  public static long mix(long seed, long word) {
    long z = seed * 0x9E3779B97F4A7C15L + word * 0xBF58476D1CE4E5B9L + 0x94D049BB133111EBL;
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    return z ^ (z >>> 31);
  }

  /** The byte at {@code offset}. */
  public static byte byteAt(long seed, long offset) {
    return (byte) (mix(seed, offset >>> 3) >>> ((offset & 7) * 8));
  }

  /** Fills {@code dst[off, off+len)} with the bytes at {@code [offset, offset+len)}. */
  public static void fill(long seed, long offset, byte[] dst, int off, int len) {
    int i = 0;
    while (i < len) {
      long pos = offset + i;
      long word = mix(seed, pos >>> 3);
      int shift = (int) (pos & 7);
      if (shift == 0 && len - i >= 8) { // a whole word: the common case for large reads
        for (int k = 0; k < 8; k++) {
          dst[off + i + k] = (byte) (word >>> (k * 8));
        }
        i += 8;
        continue;
      }
      int n = Math.min(8 - shift, len - i);
      for (int k = 0; k < n; k++) {
        dst[off + i + k] = (byte) (word >>> ((shift + k) * 8));
      }
      i += n;
    }
  }

  public static byte[] bytes(long seed, int size) {
    byte[] b = new byte[size];
    fill(seed, 0, b, 0, size);
    return b;
  }

  /** Returns the first index where {@code actual[off, off+len)} differs from the data at {@code offset}, or -1. */
  public static long firstMismatch(long seed, long offset, byte[] actual, int off, int len) {
    byte[] expected = new byte[Math.min(len, 1 << 16)];
    for (int done = 0; done < len; ) {
      int n = Math.min(expected.length, len - done);
      fill(seed, offset + done, expected, 0, n);
      for (int k = 0; k < n; k++) {
        if (expected[k] != actual[off + done + k]) {
          return offset + done + k;
        }
      }
      done += n;
    }
    return -1;
  }

  /** CRC32C of the {@code length} bytes at {@code offset}. */
  public static long crc32c(long seed, long offset, long length) {
    CRC32C crc = new CRC32C();
    byte[] buf = new byte[(int) Math.min(1 << 20, Math.max(1, length))];
    for (long done = 0; done < length; ) {
      int n = (int) Math.min(buf.length, length - done);
      fill(seed, offset + done, buf, 0, n);
      crc.update(buf, 0, n);
      done += n;
    }
    return crc.getValue();
  }

  /** The first {@code size} bytes. */
  public static InputStream stream(long seed, long size) {
    return stream(seed, 0, size);
  }

  /** The {@code length} bytes at {@code offset}. */
  public static InputStream stream(long seed, long offset, long length) {
    long end = offset + length;
    return new InputStream() {
      private long pos = offset;

      @Override
      public int read() {
        return pos < end ? byteAt(seed, pos++) & 0xff : -1;
      }

      @Override
      public int read(byte[] b, int off, int len) {
        if (len == 0) {
          return 0;
        }
        if (pos >= end) {
          return -1;
        }
        int n = (int) Math.min(len, end - pos);
        fill(seed, pos, b, off, n);
        pos += n;
        return n;
      }

      @Override
      public long skip(long n) {
        long k = Math.max(0, Math.min(n, end - pos));
        pos += k;
        return k;
      }
    };
  }

  public static void writeFile(Path file, long seed, long size) throws IOException {
    try (InputStream in = stream(seed, size); OutputStream out = Files.newOutputStream(file)) {
      in.transferTo(out);
    }
  }
}
