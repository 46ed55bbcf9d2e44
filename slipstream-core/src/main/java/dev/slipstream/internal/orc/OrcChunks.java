/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.orc;

import java.util.zip.DataFormatException;
import java.util.zip.Inflater;

/**
 * The compressed parts of an ORC file's tail, decoded: ORC cuts a part into chunks of at most the file's
 * compression block, each behind a 3-byte header (its length, and whether it is stored as is), and
 * compresses each with the file's codec. zlib through the JDK, Snappy and LZ4 by decoders of their own
 * (every read bounded by the chunk and the output), zstd through zstd-jni when the class path has it.
 */
public final class OrcChunks {
  /** The codecs, as a PostScript names them, that may be decoded here ({@link #decodes}). */
  public static final int NONE = 0;
  public static final int ZLIB = 1;
  public static final int SNAPPY = 2;
  public static final int LZ4 = 4;
  public static final int ZSTD = 5;
  /**
   * The most the file's footer may decompress to: it holds every column's statistics besides the stripe
   * list, and a footer of the most stripes a tail's layout holds ({@code MAX_STRIPES}) is well below.
   */
  public static final int MAX_DECOMPRESSED = 16 << 20;

  private OrcChunks() {}

  /** As {@link #decompress(byte[], int, int, int, int, int)}, at most {@link #MAX_DECOMPRESSED} in all. */
  static byte[] decompress(byte[] b, int off, int len, int codec, int blockSize) {
    return decompress(b, off, len, codec, blockSize, MAX_DECOMPRESSED);
  }

  /**
   * {@code b[off..off + len)} decompressed: as is with no codec, else chunk by chunk, each at most {@code
   * blockSize} bytes once decompressed and all of them at most {@code most}; more is an error.
   */
  static byte[] decompress(byte[] b, int off, int len, int codec, int blockSize, int most) {
    if (off < 0 || len < 0 || off + len > b.length) {
      throw new IllegalArgumentException("bounds");
    }
    if (codec == NONE) {
      if (len > most) {
        throw new IllegalStateException("a part of " + len + " bytes");
      }
      return java.util.Arrays.copyOfRange(b, off, off + len);
    }
    java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream((int) Math.min(len * 4L, 1 << 16));
    int p = off;
    int end = off + len;
    byte[] chunk = new byte[Math.min(blockSize, most)];
    while (p < end) {
      if (end - p < 3) {
        throw new IllegalStateException("a truncated chunk header");
      }
      int h = (b[p] & 0xff) | (b[p + 1] & 0xff) << 8 | (b[p + 2] & 0xff) << 16;
      p += 3;
      int n = h >>> 1;
      if (n > end - p) {
        throw new IllegalStateException("a chunk past the part");
      }
      int got;
      if ((h & 1) != 0) {
        if (n > chunk.length) {
          throw new IllegalStateException("a chunk larger than the block size");
        }
        System.arraycopy(b, p, chunk, 0, n);
        got = n;
      } else if (codec == ZLIB) {
        got = inflate(b, p, n, chunk);
      } else if (codec == SNAPPY) {
        got = Snappy.decompress(b, p, n, chunk);
      } else if (codec == LZ4) {
        got = Lz4.decompress(b, p, n, chunk);
      } else if (codec == ZSTD && Zstd.FRAME != null) {
        got = Zstd.decompress(b, p, n, chunk);
      } else {
        throw new IllegalStateException("codec " + codec);
      }
      if (out.size() + got > most) {
        throw new IllegalStateException("decompresses to too much");
      }
      out.write(chunk, 0, got);
      p += n;
    }
    return out.toByteArray();
  }

  /**
   * Whether tails compressed with {@code codec} are decoded here: none, zlib, Snappy and LZ4 always; zstd
   * (Spark's default for ORC since 3.2) when zstd-jni is on the class path, as it is in Spark. LZO, Brotli
   * and the others are not: such a file is read as one with no layout known.
   */
  static boolean decodes(int codec) {
    return codec == NONE || codec == ZLIB || codec == SNAPPY || codec == LZ4
        || codec == ZSTD && Zstd.FRAME != null;
  }

  /**
   * zstd frames through zstd-jni's {@code Zstd.decompressByteArray}, found on the class path (Spark and
   * ORC's writers bring it) rather than a dependency of core; null when it is not there or its native
   * library does not load. Looked up when the first zstd tail is met.
   */
  static final class Zstd {
    static final java.lang.invoke.MethodHandle FRAME = find();

    private Zstd() {}

    private static java.lang.invoke.MethodHandle find() {
      try {
        Class<?> c = Class.forName("com.github.luben.zstd.Zstd", true, OrcChunks.class.getClassLoader());
        return java.lang.invoke.MethodHandles.publicLookup().findStatic(c, "decompressByteArray",
            java.lang.invoke.MethodType.methodType(long.class, byte[].class, int.class, int.class, byte[].class,
                int.class, int.class));
      } catch (ReflectiveOperationException | LinkageError | RuntimeException e) {
        return null; // not on the class path, or no native library for this platform
      }
    }

    /** The frame {@code b[off..off + len)} into {@code out}: the bytes written. */
    static int decompress(byte[] b, int off, int len, byte[] out) {
      long n;
      try {
        n = (long) FRAME.invokeExact(out, 0, out.length, b, off, len);
      } catch (RuntimeException | Error e) {
        throw e;
      } catch (Throwable t) {
        throw new IllegalStateException("zstd: " + t, t);
      }
      if (n < 0 || n > out.length) {
        throw new IllegalStateException("a zstd chunk that does not decode"); // zstd's errors are negative here
      }
      return (int) n;
    }
  }

  /** Raw deflate of {@code b[off..off + len)} into {@code out}: the bytes written. */
  private static int inflate(byte[] b, int off, int len, byte[] out) {
    Inflater inflater = new Inflater(true);
    try {
      inflater.setInput(b, off, len);
      int n = 0;
      while (!inflater.finished()) {
        if (n == out.length) {
          throw new IllegalStateException("a chunk larger than the block size");
        }
        int got = inflater.inflate(out, n, out.length - n);
        if (got == 0 && (inflater.needsInput() || inflater.needsDictionary())) {
          throw new IllegalStateException("a truncated deflate chunk");
        }
        n += got;
      }
      return n;
    } catch (DataFormatException e) {
      throw new IllegalStateException("a malformed deflate chunk", e);
    } finally {
      inflater.end();
    }
  }

  /** Decoder of Snappy's raw format (no framing), as ORC stores a compressed chunk. */
  static final class Snappy {
    private Snappy() {}

    /** Decompresses {@code b[off..off + len)} into {@code out}: the bytes written; never past {@code out}. */
    static int decompress(byte[] b, int off, int len, byte[] out) {
      int p = off;
      int end = off + len;
      long expected = 0;
      for (int shift = 0; ; shift += 7) {
        if (p >= end || shift > 28) {
          throw new IllegalStateException("a bad snappy length");
        }
        int x = b[p++] & 0xff;
        expected |= (long) (x & 0x7f) << shift;
        if ((x & 0x80) == 0) {
          break;
        }
      }
      if (expected > out.length) {
        throw new IllegalStateException("a chunk larger than the block size");
      }
      int n = (int) expected;
      int o = 0;
      while (p < end) {
        int tag = b[p++] & 0xff;
        int kind = tag & 3;
        if (kind == 0) { // literal
          long length = tag >>> 2;
          if (length >= 60) {
            int bytes = (int) length - 59;
            if (end - p < bytes) {
              throw new IllegalStateException("a truncated literal");
            }
            length = 0;
            for (int i = 0; i < bytes; i++) {
              length |= (long) (b[p++] & 0xff) << (8 * i);
            }
          }
          length++;
          if (length > end - p || length > n - o) {
            throw new IllegalStateException("a literal past its bounds");
          }
          System.arraycopy(b, p, out, o, (int) length);
          p += (int) length;
          o += (int) length;
        } else {
          int length;
          int offset;
          if (kind == 1) {
            if (end - p < 1) {
              throw new IllegalStateException("a truncated copy");
            }
            length = ((tag >>> 2) & 7) + 4;
            offset = ((tag >>> 5) << 8) | (b[p++] & 0xff);
          } else if (kind == 2) {
            if (end - p < 2) {
              throw new IllegalStateException("a truncated copy");
            }
            length = (tag >>> 2) + 1;
            offset = (b[p] & 0xff) | (b[p + 1] & 0xff) << 8;
            p += 2;
          } else {
            if (end - p < 4) {
              throw new IllegalStateException("a truncated copy");
            }
            length = (tag >>> 2) + 1;
            offset = (b[p] & 0xff) | (b[p + 1] & 0xff) << 8 | (b[p + 2] & 0xff) << 16 | (b[p + 3] & 0xff) << 24;
            p += 4;
          }
          if (offset <= 0 || offset > o || length > n - o) {
            throw new IllegalStateException("a copy past its bounds");
          }
          for (int i = 0; i < length; i++) { // may overlap its own output: byte by byte
            out[o] = out[o - offset];
            o++;
          }
        }
      }
      if (o != n) {
        throw new IllegalStateException("snappy output " + o + " of " + n);
      }
      return n;
    }
  }

  /** Decoder of LZ4's block format (no frame), as ORC stores a compressed chunk. */
  static final class Lz4 {
    private Lz4() {}

    /** Decompresses {@code b[off..off + len)} into {@code out}: the bytes written; never past {@code out}. */
    static int decompress(byte[] b, int off, int len, byte[] out) {
      int p = off;
      int end = off + len;
      int o = 0;
      while (p < end) {
        int token = b[p++] & 0xff;
        long literals = token >>> 4;
        if (literals == 15) {
          long[] more = extra(b, end, p);
          literals += more[0];
          p = (int) more[1];
        }
        if (literals > end - p || literals > out.length - o) {
          throw new IllegalStateException("literals past their bounds");
        }
        System.arraycopy(b, p, out, o, (int) literals);
        p += (int) literals;
        o += (int) literals;
        if (p == end) {
          return o; // the last sequence has literals only
        }
        if (end - p < 2) {
          throw new IllegalStateException("a truncated offset");
        }
        int offset = (b[p] & 0xff) | (b[p + 1] & 0xff) << 8;
        p += 2;
        long match = (token & 15) + 4L;
        if ((token & 15) == 15) {
          long[] more = extra(b, end, p);
          match += more[0];
          p = (int) more[1];
        }
        if (offset <= 0 || offset > o || match > out.length - o) {
          throw new IllegalStateException("a match past its bounds");
        }
        for (int i = 0; i < match; i++) { // may overlap its own output: byte by byte
          out[o] = out[o - offset];
          o++;
        }
      }
      throw new IllegalStateException("a block that ends with a match");
    }

    /** {the sum of a length's extra bytes from {@code b[p..]} (255 each until one is less), where they end}. */
    private static long[] extra(byte[] b, int end, int p) {
      long sum = 0;
      while (true) {
        if (p >= end) {
          throw new IllegalStateException("a truncated length");
        }
        int x = b[p++] & 0xff;
        sum += x;
        if (x != 255) {
          return new long[] {sum, p};
        }
      }
    }
  }
}
