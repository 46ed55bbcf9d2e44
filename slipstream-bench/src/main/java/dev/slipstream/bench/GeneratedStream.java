/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.bench;

import java.io.InputStream;
import java.util.zip.CRC32C;

/**
 * Deterministic object data that can be computed at any offset: byte {@code i} of the object for a seed is
 * byte {@code i % 8} (little-endian) of SplitMix64(seed, i / 8). This stream gives the bytes
 * {@code [offset, offset + length)}. (The testkit's {@code TestData} is the same idea, but loads Guava,
 * which is not on the benchmark's classpath.)
 */
final class GeneratedStream extends InputStream {
  private final long seed;
  private final long end;
  private long pos;

  GeneratedStream(long seed, long offset, long length) {
    this.seed = seed;
    this.pos = offset;
    this.end = offset + length;
  }

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

  static byte byteAt(long seed, long offset) {
    return (byte) (ParquetDataSet.mix(seed, offset >>> 3) >>> ((offset & 7) * 8));
  }

  /** Fills {@code dst[off, off + len)} with the object's bytes at {@code [offset, offset + len)}. */
  static void fill(long seed, long offset, byte[] dst, int off, int len) {
    int i = 0;
    while (i < len) {
      long pos = offset + i;
      long word = ParquetDataSet.mix(seed, pos >>> 3);
      int shift = (int) (pos & 7);
      if (shift == 0 && len - i >= 8) {
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

  /** CRC32C of the {@code length} bytes of the object for {@code seed} from {@code offset}. */
  static long crc32c(long seed, long offset, long length) {
    CRC32C crc = new CRC32C();
    byte[] buf = new byte[1 << 20];
    for (long done = 0; done < length; ) {
      int n = (int) Math.min(buf.length, length - done);
      fill(seed, offset + done, buf, 0, n);
      crc.update(buf, 0, n);
      done += n;
    }
    return crc.getValue();
  }
}
