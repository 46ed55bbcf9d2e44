/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.orc;

import java.util.ArrayList;
import java.util.List;

/**
 * The layout of an ORC file, read from its tail (protobuf) only as far as byte ranges go, every other field
 * skipped: where each stripe lies, its index streams, its data and its footer; and, from a stripe's footer
 * once a reader has read it, where each of that stripe's streams lies and of which column it is. Anything
 * unexpected — not ORC, a codec this class does not decode, a truncated or malformed tail — yields null:
 * no layout, never an error, never a wrong range.
 *
 * <p>Format facts (Apache ORC's specification and {@code orc_proto.proto}): the file ends with the
 * PostScript, never compressed, and one byte giving its length. PostScript field 1 is the footer's
 * length, 2 the compression (0 none, 1 zlib, 2 snappy, 3 lzo, 4 lz4, 5 zstd, 6 brotli; which of them are
 * decoded, {@link OrcChunks#decodes} says), 3 the
 * compression block size, 5 the metadata's length, and 8000 the magic {@code "ORC"}. The footer lies just
 * before the PostScript (the metadata before it); Footer field 3 lists the StripeInformation (1 offset, 2
 * index length, 3 data length, 4 footer length), field 4 the types. A stripe is its index streams, then
 * its data streams, then its footer; StripeFooter field 1 lists the streams in the order they lie from
 * the stripe's start (Stream: 1 kind, 2 column, 3 length). Compressed parts are chunks, each after a
 * 3-byte little-endian header: its length times two, plus one if the chunk is stored as is.
 */
public final class OrcTail {
  /** Stream kinds that are indexes (row index, bloom filters), read before the data when a filter needs them. */
  private static final int ROW_INDEX = 6;
  private static final int BLOOM_FILTER = 7;
  private static final int BLOOM_FILTER_UTF8 = 8;
  /** The largest PostScript: a few dozen bytes in practice; the length byte allows 255. */
  private static final int MAX_POSTSCRIPT = 255;
  /**
   * The most heap the layout of one file may take, its stripes' streams included: 4 MiB, a quarter of what the
   * client's layouts take together ({@code learn.OrcLayouts}), so that one file never pushes out the
   * others; less than one block, which a stream holds anyway; and room for the streams of a wave of stripe
   * footers ({@code read.StripeFooters}, 33 stripes) of a table of some 600 columns at four streams a
   * column. The stripe list takes at most half of it ({@link #MAX_STRIPES}); a stripe footer is at most this
   * long, and decompresses to at most this: more is no footer a layout could learn. What a hostile file
   * claims beyond it is no layout (or no streams for that stripe), never a larger heap.
   */
  public static final long MAX_LAYOUT_BYTES = 4L << 20;
  /** About what a stripe takes of the heap: its record (48), and its slot among the streams learnt (4). */
  static final int STRIPE_BYTES = 48 + 4;
  /** About what a stream takes of the heap: its record (40) and its place in its stripe's list (8). */
  public static final int STREAM_BYTES = 48;
  /** About what a stripe's list of streams takes of the heap besides them. */
  public static final int STREAMS_LIST_BYTES = 16;
  /** The most stripes a layout holds: their list takes at most half of {@link #MAX_LAYOUT_BYTES}. */
  static final int MAX_STRIPES = (int) ((MAX_LAYOUT_BYTES / 2 - 96) / STRIPE_BYTES);

  /** One stripe, the {@code index}th: its index streams from {@code offset}, then its data, then its footer. */
  public record Stripe(long offset, long indexLength, long dataLength, long footerLength, int index) {
    public long dataStart() {
      return offset + indexLength;
    }

    public long footerStart() {
      return offset + indexLength + dataLength;
    }

    public long end() {
      return footerStart() + footerLength;
    }
  }

  /** One stream of a stripe: bytes {@code [start, start + length)} of column {@code column}, an index or data. */
  public record Stream(long start, long length, int column, boolean index) {
    public long end() {
      return start + length;
    }
  }

  private final List<Stripe> stripes;
  private final int codec;
  private final int blockSize;
  private final long schema;
  private final int columns;

  private OrcTail(List<Stripe> stripes, int codec, int blockSize, long schema, int columns) {
    this.stripes = List.copyOf(stripes);
    this.codec = codec;
    this.blockSize = blockSize;
    this.schema = schema;
    this.columns = columns;
  }

  public List<Stripe> stripes() {
    return stripes;
  }

  /** A hash of the file's types (kinds, subtypes, field names): files of one table have the same value. */
  public long schema() {
    return schema;
  }

  /** The columns of the file's schema (the root struct is column 0). */
  public int columns() {
    return columns;
  }

  /**
   * About what this layout takes of the heap, its stripes' streams aside (a slot for each stripe's included):
   * at most half of {@link #MAX_LAYOUT_BYTES}.
   */
  public long heapBytes() {
    return 96 + (long) STRIPE_BYTES * stripes.size();
  }

  /** Whether the object's last bytes look like ORC's: a PostScript of a sane length ending in {@code "ORC"}. */
  public static boolean looksLikeOrc(byte[] tail, int tailLength) {
    if (tailLength < 5) {
      return false;
    }
    int psLength = tail[tailLength - 1] & 0xff;
    // The magic is the PostScript's last field (8000, a 3-byte string): its bytes end the PostScript.
    return psLength >= 4 && psLength < tailLength && tail[tailLength - 2] == 'C' && tail[tailLength - 3] == 'R'
        && tail[tailLength - 4] == 'O';
  }

  /**
   * Parses the layout from {@code tail[0..tailLength)}, the last bytes of an ORC file of {@code fileLength}
   * bytes; null if this is not ORC, its codec is not decoded here, or the footer is not all in the tail.
   */
  public static OrcTail parse(byte[] tail, int tailLength, long fileLength) {
    return parse(tail, 0, tailLength, fileLength);
  }

  /** As {@link #parse(byte[], int, long)}, the tail being {@code b[off..off + tailLength)}. */
  public static OrcTail parse(byte[] b, int off, int tailLength, long fileLength) {
    try {
      byte[] tail = off == 0 ? b : java.util.Arrays.copyOfRange(b, off, off + tailLength);
      if (tailLength > fileLength || !looksLikeOrc(tail, tailLength)) {
        return null;
      }
      int psLength = tail[tailLength - 1] & 0xff;
      int psStart = tailLength - 1 - psLength;
      Proto ps = new Proto(tail, psStart, tailLength - 1);
      long footerLength = -1;
      long codec = OrcChunks.NONE;
      long blockSize = 256 * 1024;
      boolean magic = false;
      while (ps.more()) {
        int tag = ps.tag();
        int field = tag >>> 3;
        if (field == 1 && (tag & 7) == 0) {
          footerLength = ps.varint();
        } else if (field == 2 && (tag & 7) == 0) {
          codec = ps.varint();
        } else if (field == 3 && (tag & 7) == 0) {
          blockSize = ps.varint();
        } else if (field == 8000 && (tag & 7) == 2) {
          int[] s = ps.bytes();
          magic = s[1] == 3 && tail[s[0]] == 'O' && tail[s[0] + 1] == 'R' && tail[s[0] + 2] == 'C';
        } else {
          ps.skip(tag);
        }
      }
      if (!magic || footerLength <= 0 || footerLength > psStart || !OrcChunks.decodes((int) codec)
          || blockSize <= 0 || blockSize > OrcChunks.MAX_DECOMPRESSED) {
        return null; // not ORC, the footer before the bytes at hand, or a codec not decoded here
      }
      byte[] footer =
          OrcChunks.decompress(tail, (int) (psStart - footerLength), (int) footerLength, (int) codec, (int) blockSize);
      return footer(footer, (int) codec, (int) blockSize, fileLength);
    } catch (RuntimeException e) {
      return null; // malformed: no layout
    }
  }

  private static OrcTail footer(byte[] b, int codec, int blockSize, long fileLength) {
    Proto f = new Proto(b, 0, b.length);
    List<Stripe> stripes = new ArrayList<>();
    long schema = 17;
    int types = 0;
    while (f.more()) {
      int tag = f.tag();
      int field = tag >>> 3;
      if (field == 3 && (tag & 7) == 2) {
        int[] s = f.bytes();
        if (stripes.size() == MAX_STRIPES) {
          return null; // more stripes than a layout may hold
        }
        stripes.add(stripe(new Proto(b, s[0], s[0] + s[1]), stripes.size()));
      } else if (field == 4 && (tag & 7) == 2) {
        int[] s = f.bytes();
        types++;
        for (int i = s[0]; i < s[0] + s[1]; i++) {
          schema = schema * 31 + b[i];
        }
        schema = schema * 31 + types;
      } else {
        f.skip(tag);
      }
    }
    long previousEnd = 3; // the magic "ORC" starts the file
    for (Stripe s : stripes) {
      // Each length within what is left of the file after the ones before it: no sum here can overflow.
      long left = fileLength - s.offset();
      if (s.offset() < previousEnd || s.offset() > fileLength || s.indexLength() < 0 || s.dataLength() < 0
          || s.footerLength() <= 0 || s.footerLength() > MAX_LAYOUT_BYTES || s.indexLength() > left
          || s.dataLength() > left - s.indexLength() || s.footerLength() > left - s.indexLength() - s.dataLength()) {
        return null; // overlapping, out of order, beyond the file, or a footer no layout could learn
      }
      previousEnd = s.end();
    }
    return stripes.isEmpty() ? null : new OrcTail(stripes, codec, blockSize, schema, types);
  }

  private static Stripe stripe(Proto p, int index) {
    long offset = -1;
    long indexLength = 0;
    long data = 0;
    long footer = -1;
    while (p.more()) {
      int tag = p.tag();
      if ((tag & 7) != 0) {
        p.skip(tag);
        continue;
      }
      switch (tag >>> 3) {
        case 1 -> offset = p.varint();
        case 2 -> indexLength = p.varint();
        case 3 -> data = p.varint();
        case 4 -> footer = p.varint();
        default -> p.varint();
      }
    }
    return new Stripe(offset, indexLength, data, footer, index);
  }

  /** The stripe whose bytes (index, data or footer) hold {@code position}, or null. */
  public Stripe stripeAt(long position) {
    int lo = 0;
    int hi = stripes.size() - 1;
    while (lo <= hi) {
      int mid = (lo + hi) >>> 1;
      Stripe s = stripes.get(mid);
      if (position < s.offset()) {
        hi = mid - 1;
      } else if (position >= s.end()) {
        lo = mid + 1;
      } else {
        return s;
      }
    }
    return null;
  }

  /**
   * The streams of {@code stripe}, parsed from its footer {@code b[off..off + len)} (all of it, as a reader
   * reads it), as {@link #streams(Stripe, byte[], int, int, long)} with all a layout may hold besides its stripes.
   */
  public List<Stream> streams(Stripe stripe, byte[] b, int off, int len) {
    return streams(stripe, b, off, len, MAX_LAYOUT_BYTES - heapBytes());
  }

  /**
   * The streams of {@code stripe}, parsed from its footer {@code b[off..off + len)} (all of it, as a reader
   * reads it); null if these bytes are not its footer, the streams do not fill the stripe's index and data
   * exactly, one is of a column the schema does not have, or they would take more than {@code room} bytes
   * of heap ({@link #STREAM_BYTES} each, and their list): parsing stops there, so a footer that lists
   * millions of streams costs no more than {@code room} either.
   */
  public List<Stream> streams(Stripe stripe, byte[] b, int off, int len, long room) {
    try {
      if (len != stripe.footerLength()) {
        return null;
      }
      long most = (room - STREAMS_LIST_BYTES) / STREAM_BYTES;
      byte[] footer = OrcChunks.decompress(b, off, len, codec, blockSize, (int) MAX_LAYOUT_BYTES);
      Proto p = new Proto(footer, 0, footer.length);
      List<Stream> streams = new ArrayList<>();
      long at = stripe.offset();
      while (p.more()) {
        int tag = p.tag();
        if (tag >>> 3 != 1 || (tag & 7) != 2) {
          p.skip(tag);
          continue;
        }
        int[] s = p.bytes();
        Proto sp = new Proto(footer, s[0], s[0] + s[1]);
        long kind = 1; // DATA, protobuf's default of the field is the first value (PRESENT, 0) but writers set it
        boolean kindSet = false;
        long column = 0;
        long length = 0;
        while (sp.more()) {
          int st = sp.tag();
          if ((st & 7) != 0) {
            sp.skip(st);
            continue;
          }
          switch (st >>> 3) {
            case 1 -> {
              kind = sp.varint();
              kindSet = true;
            }
            case 2 -> column = sp.varint();
            case 3 -> length = sp.varint();
            default -> sp.varint();
          }
        }
        if (!kindSet) {
          kind = 0;
        }
        if (length < 0 || column < 0 || column >= columns || length > stripe.footerStart() - at) {
          return null; // a column the schema does not have, or bytes past the stripe's data
        }
        if (kind >= 100 || length == 0) {
          continue; // encrypted-file statistics live elsewhere; an empty stream takes no bytes
        }
        if (streams.size() >= most) {
          return null; // more streams than the layout has room for
        }
        boolean index = kind == ROW_INDEX || kind == BLOOM_FILTER || kind == BLOOM_FILTER_UTF8;
        streams.add(new Stream(at, length, (int) column, index));
        at += length;
      }
      return at == stripe.footerStart() ? streams : null;
    } catch (RuntimeException e) {
      return null; // malformed: no streams
    }
  }


  /** Minimal reader of protobuf's wire format over {@code b[p..end)}: every read bounded by {@code end}. */
  private static final class Proto {
    private final byte[] b;
    private final int end;
    private int p;

    Proto(byte[] b, int start, int end) {
      if (start < 0 || end > b.length || start > end) {
        throw new IllegalStateException("bounds");
      }
      this.b = b;
      this.p = start;
      this.end = end;
    }

    boolean more() {
      return p < end;
    }

    int tag() {
      long t = varint();
      if (t <= 0 || t > Integer.MAX_VALUE) {
        throw new IllegalStateException("tag " + t);
      }
      return (int) t;
    }

    long varint() {
      long v = 0;
      for (int shift = 0; shift < 64; shift += 7) {
        if (p >= end) {
          throw new IllegalStateException("past the message");
        }
        int x = b[p++] & 0xff;
        v |= (long) (x & 0x7f) << shift;
        if ((x & 0x80) == 0) {
          return v;
        }
      }
      throw new IllegalStateException("varint too long");
    }

    /** A length-delimited field's {start, length}, which this reader steps over. */
    int[] bytes() {
      long n = varint();
      if (n < 0 || n > end - p) {
        throw new IllegalStateException("length " + n);
      }
      int[] s = {p, (int) n};
      p += (int) n;
      return s;
    }

    void skip(int tag) {
      switch (tag & 7) {
        case 0 -> varint();
        case 1 -> advance(8);
        case 2 -> bytes();
        case 5 -> advance(4);
        default -> throw new IllegalStateException("wire type " + (tag & 7));
      }
    }

    private void advance(int n) {
      if (n > end - p) {
        throw new IllegalStateException("past the message");
      }
      p += n;
    }
  }

}
