/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.orc;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * ORC files written here stripe by stripe, honest or hostile: each stripe's streams as its footer lists
 * them, its body (bytes of a pattern, so that a read of them is checked), and optionally a stripe list entry
 * or a footer that lies about them. For the tests of what the parser and the read path do with files an
 * attacker wrote; {@link OrcTailTest.OrcFileBytes} writes the honest files of the other tests.
 */
public final class OrcBuilder {
  /** A stream as a stripe footer lists it: its kind (0 PRESENT, 1 DATA, 6 ROW_INDEX, ...), column and length. */
  public record StreamSpec(long kind, long column, long length) {
    boolean index() {
      return kind == 6 || kind == 7 || kind == 8;
    }
  }

  /**
   * What was written: the file, where each stripe and its footer lie, the streams each footer lists (as
   * given, true or not), and the tail's length.
   */
  public record Written(byte[] file, List<Long> stripeOffsets, List<Long> footerStarts, List<Integer> footerLengths,
      List<List<StreamSpec>> streams, int tailLength) {}

  private record StripeSpec(List<StreamSpec> streams, long bodyBytes, byte[] rawFooter, long[] info) {}

  private final int codec;
  private int types = 4;
  private long blockSize = OrcTailTest.BLOCK;
  private final List<StripeSpec> stripes = new ArrayList<>();

  /** A file compressed with {@code codec} ({@link OrcTail#NONE}, {@link OrcTail#ZLIB}, ...). */
  public OrcBuilder(int codec) {
    this.codec = codec;
  }

  /** The schema: a struct and {@code n - 1} longs, {@code n} types (column ids 0 to n - 1). */
  public OrcBuilder types(int n) {
    this.types = n;
    return this;
  }

  /** The compression block the PostScript states (the stripe footers are cut at {@link OrcTailTest#BLOCK}). */
  public OrcBuilder blockSize(long b) {
    this.blockSize = b;
    return this;
  }

  /** An honest stripe: a body of the streams' lengths, a footer that lists them, a stripe entry that says so. */
  public OrcBuilder stripe(List<StreamSpec> streams) {
    long body = 0;
    for (StreamSpec s : streams) {
      body += s.length();
    }
    return stripe(streams, body, null, null);
  }

  /**
   * A stripe of {@code bodyBytes} bytes whose footer lists {@code streams} (true or not), or is {@code
   * rawFooter} as is (not compressed here) when not null; its stripe entry is {@code info} ({offset, index
   * length, data length, footer length}, each -1 for the true value) when not null.
   */
  public OrcBuilder stripe(List<StreamSpec> streams, long bodyBytes, byte[] rawFooter, long[] info) {
    if (bodyBytes > 64 << 20) {
      throw new IllegalArgumentException("a test file of more than 64 MiB a stripe: " + bodyBytes);
    }
    stripes.add(new StripeSpec(streams, bodyBytes, rawFooter, info));
    return this;
  }

  /** The byte at {@code position} of every file written here, its footers and tail aside. */
  public static byte pattern(long position) {
    return (byte) (position * 131 + (position >>> 9));
  }

  public Written build() throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    out.writeBytes("ORC".getBytes(StandardCharsets.US_ASCII));
    OrcTailTest.Proto footer = new OrcTailTest.Proto();
    List<Long> offsets = new ArrayList<>();
    List<Long> footerStarts = new ArrayList<>();
    List<Integer> footerLengths = new ArrayList<>();
    for (StripeSpec s : stripes) {
      long offset = out.size();
      byte[] body = new byte[(int) s.bodyBytes()];
      for (int i = 0; i < body.length; i++) {
        body[i] = pattern(offset + i);
      }
      out.writeBytes(body);
      byte[] sf = s.rawFooter() != null ? s.rawFooter() : OrcTailTest.compress(footerOf(s.streams()), codec);
      footerStarts.add((long) out.size());
      out.writeBytes(sf);
      long index = 0;
      for (StreamSpec x : s.streams()) {
        if (!x.index()) {
          break;
        }
        index += x.length();
      }
      index = Math.min(index, s.bodyBytes());
      long[] info = {offset, index, s.bodyBytes() - index, sf.length};
      if (s.info() != null) {
        for (int i = 0; i < 4; i++) {
          info[i] = s.info()[i] == -1 ? info[i] : s.info()[i];
        }
      }
      offsets.add(offset);
      footerLengths.add(sf.length);
      footer.message(3, new OrcTailTest.Proto().varint(1, info[0]).varint(2, info[1]).varint(3, info[2])
          .varint(4, info[3]).varint(5, 1000));
    }
    footer.varint(1, 3).varint(2, out.size());
    footer.message(4, new OrcTailTest.Proto().varint(1, 12)); // the root struct
    for (int c = 1; c < types; c++) {
      footer.message(4, new OrcTailTest.Proto().varint(1, 4)); // long
    }
    footer.varint(6, 1000L * stripes.size());
    byte[] footerBytes = OrcTailTest.compress(footer.bytes(), codec);
    out.writeBytes(footerBytes);
    byte[] ps = new OrcTailTest.Proto().varint(1, footerBytes.length).varint(2, codec).varint(3, blockSize)
        .varint(4, 0).varint(4, 12).varint(5, 0).varint(6, 9).string(8000, "ORC").bytes();
    out.writeBytes(ps);
    out.write(ps.length);
    List<List<StreamSpec>> streams = new ArrayList<>();
    for (StripeSpec s : stripes) {
      streams.add(s.streams());
    }
    return new Written(out.toByteArray(), offsets, footerStarts, footerLengths, streams,
        footerBytes.length + ps.length + 1);
  }

  /**
   * A stripe footer's protobuf (not compressed): {@code streams}, then one encoding. Written straight into
   * one buffer: a hostile footer lists hundreds of thousands of streams.
   */
  public static byte[] footerOf(List<StreamSpec> streams) {
    ByteArrayOutputStream out = new ByteArrayOutputStream(streams.size() * 10 + 8);
    for (StreamSpec x : streams) {
      out.write(1 << 3 | 2);
      varint(out, 3 + size(x.kind()) + size(x.column()) + size(x.length()));
      out.write(1 << 3);
      varint(out, x.kind());
      out.write(2 << 3);
      varint(out, x.column());
      out.write(3 << 3);
      varint(out, x.length());
    }
    out.writeBytes(new byte[] {2 << 3 | 2, 2, 1 << 3, 0}); // an encoding
    return out.toByteArray();
  }

  private static int size(long v) {
    int n = 1;
    while ((v & ~0x7fL) != 0) {
      v >>>= 7;
      n++;
    }
    return n;
  }

  private static void varint(ByteArrayOutputStream out, long v) {
    while ((v & ~0x7fL) != 0) {
      out.write((int) (v & 0x7f) | 0x80);
      v >>>= 7;
    }
    out.write((int) v);
  }

  /** {@code data} compressed as ORC compresses a part, with {@code codec}: what a raw footer may be made of. */
  public static byte[] compress(byte[] data, int codec) throws IOException {
    return OrcTailTest.compress(data, codec);
  }
}
