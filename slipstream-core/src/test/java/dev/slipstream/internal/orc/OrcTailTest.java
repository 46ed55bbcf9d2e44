/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.orc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.zip.Deflater;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The ORC tail parser on tails written here as ORC's writers lay them out (protobuf, compressed by chunks
 * with each codec decoded), and on broken ones: a broken tail is no plan, never an error, a hang or an
 * allocation its bytes do not justify.
 */
@Timeout(30)
public class OrcTailTest {
  static final int STRIPES = 5;
  static final int COLUMNS = 4; // the root struct and 3 columns
  /** Index bytes, data bytes and footer bytes of each stripe, written here. */
  public static final int INDEX = 300;
  static final int DATA = 40_000;
  static final int BLOCK = 64 * 1024;

  @ParameterizedTest
  @ValueSource(ints = {OrcChunks.NONE, OrcChunks.ZLIB, OrcChunks.SNAPPY, OrcChunks.LZ4, OrcChunks.ZSTD})
  void aValidTailGivesEveryStripe(int codec) throws IOException {
    OrcFileBytes f = new OrcFileBytes(codec);
    OrcTail t = OrcTail.parse(f.file, f.file.length, f.file.length);
    assertThat(t).isNotNull();
    assertThat(t.stripes()).hasSize(STRIPES);
    for (int i = 0; i < STRIPES; i++) {
      OrcTail.Stripe s = t.stripes().get(i);
      assertThat(s.offset()).isEqualTo(f.stripeOffsets.get(i));
      assertThat(s.indexLength()).isEqualTo(INDEX);
      assertThat(s.dataLength()).isEqualTo(DATA);
      assertThat(s.footerLength()).isEqualTo(f.stripeFooterLengths.get(i));
      assertThat(t.stripeAt(s.offset())).isEqualTo(s);
      assertThat(t.stripeAt(s.end() - 1)).isEqualTo(s);
    }
    assertThat(t.stripeAt(0)).isNull();
    assertThat(t.columns()).isEqualTo(COLUMNS);
  }

  @ParameterizedTest
  @ValueSource(ints = {OrcChunks.NONE, OrcChunks.ZLIB, OrcChunks.SNAPPY, OrcChunks.LZ4, OrcChunks.ZSTD})
  void aStripeFooterGivesItsStreamsInTheOrderTheyLie(int codec) throws IOException {
    OrcFileBytes f = new OrcFileBytes(codec);
    OrcTail t = OrcTail.parse(f.file, f.file.length, f.file.length);
    OrcTail.Stripe s = t.stripes().get(2);
    List<OrcTail.Stream> streams = t.streams(s, f.file, (int) s.footerStart(), (int) s.footerLength());
    assertThat(streams).isNotNull();
    // index streams of columns 1..3, then PRESENT and DATA of each column
    assertThat(streams).hasSize(3 + 6);
    assertThat(streams.get(0)).isEqualTo(new OrcTail.Stream(s.offset(), 100, 1, true));
    assertThat(streams.get(3).start()).isEqualTo(s.dataStart());
    assertThat(streams.get(3).column()).isEqualTo(1);
    assertThat(streams.get(3).index()).isFalse();
    assertThat(streams.get(8).end()).isEqualTo(s.footerStart());
    // other bytes than the footer's are no streams
    assertThat(t.streams(s, f.file, (int) s.footerStart() - 1, (int) s.footerLength())).isNull();
  }

  @Test
  void theSchemaIsTheTypesWhateverTheStripes() throws IOException {
    OrcFileBytes a = new OrcFileBytes(OrcChunks.ZLIB);
    OrcFileBytes b = new OrcFileBytes(OrcChunks.NONE, 7, DATA + 5000);
    assertThat(OrcTail.parse(a.file, a.file.length, a.file.length).schema())
        .isEqualTo(OrcTail.parse(b.file, b.file.length, b.file.length).schema());
  }

  @Test
  void theTailNeedNotBeTheWholeFile() throws IOException {
    OrcFileBytes f = new OrcFileBytes(OrcChunks.ZLIB);
    int tailLength = f.file.length - (int) f.stripeOffsets.get(STRIPES - 1).longValue();
    byte[] tail = new byte[tailLength + 100];
    System.arraycopy(f.file, f.file.length - tailLength, tail, 0, tailLength);
    assertThat(OrcTail.parse(tail, tailLength, f.file.length).stripes()).hasSize(STRIPES);
    // a tail that misses the footer's start is no plan
    assertThat(OrcTail.parse(java.util.Arrays.copyOfRange(f.file, f.file.length - 20, f.file.length), 20,
        f.file.length)).isNull();
  }

  @ParameterizedTest
  @ValueSource(ints = {3, 6, 7})
  void aCodecNotDecodedHereIsNoPlan(int codec) throws IOException {
    OrcFileBytes f = new OrcFileBytes(OrcChunks.NONE);
    f.rewritePostScript(codec);
    assertThat(OrcTail.parse(f.file, f.file.length, f.file.length)).isNull();
  }

  @Test
  void withoutTheMagicItIsNotOrc() throws IOException {
    OrcFileBytes f = new OrcFileBytes(OrcChunks.NONE);
    f.file[f.file.length - 2] = 'X';
    assertThat(OrcTail.parse(f.file, f.file.length, f.file.length)).isNull();
    byte[] parquet = "PAR1xxxxPAR1".getBytes(StandardCharsets.US_ASCII);
    assertThat(OrcTail.parse(parquet, parquet.length, parquet.length)).isNull();
    assertThat(OrcTail.parse(new byte[0], 0, 0)).isNull();
  }

  @Test
  void aStripePastTheFileIsNoPlan() throws IOException {
    OrcFileBytes f = new OrcFileBytes(OrcChunks.NONE);
    assertThat(OrcTail.parse(f.file, f.file.length, f.stripeOffsets.get(STRIPES - 1) + 10)).isNull();
  }

  @ParameterizedTest
  @ValueSource(ints = {OrcChunks.NONE, OrcChunks.ZLIB, OrcChunks.SNAPPY, OrcChunks.LZ4, OrcChunks.ZSTD})
  void everyTruncationOfATailIsNoPlan(int codec) throws IOException {
    OrcFileBytes f = new OrcFileBytes(codec);
    for (int cut = 1; cut < f.tailLength; cut++) {
      byte[] t = java.util.Arrays.copyOf(f.file, f.file.length - cut);
      int length = t.length;
      assertThatCode(() -> OrcTail.parse(t, length, length)).doesNotThrowAnyException();
    }
  }

  @Test
  void aChunkThatInflatesPastTheBlockSizeIsNoPlan() {
    byte[] zeros = new byte[BLOCK * 4];
    byte[] deflated = deflate(zeros);
    byte[] part = chunk(deflated, false);
    assertThatCode(() -> OrcChunks.decompress(part, 0, part.length, OrcChunks.ZLIB, BLOCK))
        .isInstanceOf(IllegalStateException.class);
  }

  @Test
  void aSnappyLengthPastTheBlockSizeIsAnErrorBeforeAnyAllocation() {
    byte[] part = chunk(new byte[] {(byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff, 0x0f, 0}, false);
    assertThatCode(() -> OrcChunks.decompress(part, 0, part.length, OrcChunks.SNAPPY, BLOCK))
        .isInstanceOf(IllegalStateException.class);
  }

  @Test
  void snappyDecodesWhatSnappyJavaEncodes() throws IOException {
    Random r = new Random(7);
    for (int i = 0; i < 200; i++) {
      byte[] data = new byte[r.nextInt(BLOCK)];
      for (int k = 0; k < data.length; k++) {
        data[k] = (byte) (r.nextInt(4) == 0 ? r.nextInt(256) : k % 7); // repeats and noise
      }
      byte[] compressed = org.xerial.snappy.Snappy.compress(data);
      byte[] out = new byte[BLOCK];
      int n = OrcChunks.Snappy.decompress(compressed, 0, compressed.length, out);
      assertThat(java.util.Arrays.copyOf(out, n)).isEqualTo(data);
    }
  }

  @Test
  void lz4DecodesWhatLz4JavaEncodes() {
    Random r = new Random(8);
    var compressor = net.jpountz.lz4.LZ4Factory.fastestJavaInstance().highCompressor();
    for (int i = 0; i < 200; i++) {
      byte[] data = new byte[r.nextInt(BLOCK)];
      for (int k = 0; k < data.length; k++) {
        data[k] = (byte) (r.nextInt(4) == 0 ? r.nextInt(256) : k % 7); // repeats and noise
      }
      byte[] compressed = compressor.compress(data);
      byte[] out = new byte[BLOCK];
      int n = OrcChunks.Lz4.decompress(compressed, 0, compressed.length, out);
      assertThat(java.util.Arrays.copyOf(out, n)).isEqualTo(data);
    }
  }

  @Test
  void randomBytesAsACompressedPartAreAnErrorOfTheirOwnNeverAnotherOrAHang() {
    Random random = new Random(9);
    for (int i = 0; i < 20_000; i++) {
      byte[] b = new byte[random.nextInt(300)];
      random.nextBytes(b);
      for (int codec : new int[] {OrcChunks.ZLIB, OrcChunks.SNAPPY, OrcChunks.LZ4}) {
        try {
          OrcChunks.decompress(b, 0, b.length, codec, BLOCK);
        } catch (IllegalStateException expected) {
          // malformed: the one error the parser turns into no plan
        }
      }
    }
  }

  @ParameterizedTest
  @ValueSource(ints = {OrcChunks.NONE, OrcChunks.ZLIB, OrcChunks.SNAPPY, OrcChunks.LZ4, OrcChunks.ZSTD})
  void randomlyCorruptedTailsAreAPlanOrNullNeverAnError(int codec) throws IOException {
    OrcFileBytes f = new OrcFileBytes(codec);
    Random random = new Random(2026 + codec);
    int parsed = 0;
    for (int i = 0; i < 3_000; i++) {
      byte[] broken = f.file.clone();
      int flips = 1 + random.nextInt(4);
      for (int k = 0; k < flips; k++) {
        broken[broken.length - 1 - random.nextInt(f.tailLength)] = (byte) random.nextInt(256);
      }
      OrcTail[] result = new OrcTail[1];
      assertThatCode(() -> result[0] = OrcTail.parse(broken, broken.length, broken.length))
          .as("corruption %d", i).doesNotThrowAnyException();
      if (result[0] != null) {
        parsed++;
        long previousEnd = 3;
        for (OrcTail.Stripe s : result[0].stripes()) {
          assertThat(s.offset()).isGreaterThanOrEqualTo(previousEnd);
          assertThat(s.end()).isLessThanOrEqualTo(broken.length);
          previousEnd = s.end();
          OrcTail plan = result[0];
          assertThatCode(() -> plan.streams(s, broken, (int) Math.min(s.footerStart(), broken.length - s.footerLength()),
              (int) s.footerLength())).doesNotThrowAnyException();
        }
      }
    }
    assertThat(parsed).isPositive(); // corruptions of skipped fields leave a good tail
  }

  @Test
  void randomBytesAreNoPlan() {
    Random random = new Random(5);
    for (int i = 0; i < 20_000; i++) {
      byte[] b = new byte[1 + random.nextInt(400)];
      random.nextBytes(b);
      if (random.nextBoolean() && b.length > 5) { // past the magic check, into the PostScript
        b[b.length - 1] = (byte) Math.min(b.length - 2, 1 + random.nextInt(255));
        b[b.length - 2] = 'C';
        b[b.length - 3] = 'R';
        b[b.length - 4] = 'O';
      }
      assertThatCode(() -> OrcTail.parse(b, b.length, b.length)).doesNotThrowAnyException();
    }
  }

  // ---- the file, written here ----------------------------------------------------------------

  /** An ORC file's bytes: "ORC", the stripes (zeros but their footers), the footer, the PostScript, its length. */
  public static final class OrcFileBytes {
    public final byte[] file;
    public final List<Long> stripeOffsets = new ArrayList<>();
    public final List<Long> stripeFooterLengths = new ArrayList<>();
    /** Footer, PostScript and its length byte. */
    public final int tailLength;
    private final int codec;
    private final int footerLength;

    OrcFileBytes(int codec) throws IOException {
      this(codec, STRIPES, DATA);
    }

    /** A file of {@code stripes} stripes of {@link #INDEX} index bytes and {@code data} data bytes each. */
    public OrcFileBytes(int codec, int stripes, int data) throws IOException {
      this(codec, stripes, data, "");
    }

    /** As above, its columns' names prefixed with {@code prefix}: another schema for any other prefix. */
    public OrcFileBytes(int codec, int stripes, int data, String prefix) throws IOException {
      this.codec = codec;
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      out.writeBytes("ORC".getBytes(StandardCharsets.US_ASCII));
      Proto footer = new Proto();
      for (int s = 0; s < stripes; s++) {
        long offset = out.size();
        out.writeBytes(new byte[INDEX + data]);
        Proto sf = new Proto();
        for (int c = 1; c < COLUMNS; c++) {
          sf.message(1, new Proto().varint(1, 6).varint(2, c).varint(3, 100)); // ROW_INDEX
        }
        int perColumn = data / (COLUMNS - 1);
        for (int c = 1; c < COLUMNS; c++) {
          int length = c == COLUMNS - 1 ? data - perColumn * (COLUMNS - 2) : perColumn;
          sf.message(1, new Proto().varint(1, 0).varint(2, c).varint(3, 10)); // PRESENT
          sf.message(1, new Proto().varint(1, 1).varint(2, c).varint(3, length - 10)); // DATA
        }
        sf.message(2, new Proto().varint(1, 0)); // an encoding
        byte[] sfBytes = compress(sf.bytes(), codec);
        out.writeBytes(sfBytes);
        stripeOffsets.add(offset);
        stripeFooterLengths.add((long) sfBytes.length);
        footer.message(3, new Proto().varint(1, offset).varint(2, INDEX).varint(3, data).varint(4, sfBytes.length)
            .varint(5, 1000));
      }
      footer.varint(1, 3).varint(2, out.size());
      footer.message(4, new Proto().varint(1, 12).varint(2, 1).varint(2, 2).varint(2, 3)
          .string(3, prefix + "a").string(3, prefix + "b").string(3, prefix + "c")); // struct<a,b,c>
      for (int c = 1; c < COLUMNS; c++) {
        footer.message(4, new Proto().varint(1, 4)); // long
      }
      footer.varint(6, 1000L * stripes);
      footer.message(7, new Proto().varint(1, 1000L * stripes)); // statistics, skipped
      footer.varint(8, 10_000);
      byte[] footerBytes = compress(footer.bytes(), codec);
      out.writeBytes(footerBytes);
      footerLength = footerBytes.length;
      byte[] ps = postScript(codec);
      out.writeBytes(ps);
      out.write(ps.length);
      file = out.toByteArray();
      tailLength = footerLength + ps.length + 1;
    }

    private byte[] postScript(int codec) {
      return new Proto().varint(1, footerLength).varint(2, codec).varint(3, BLOCK).varint(4, 0).varint(4, 12)
          .varint(5, 0).varint(6, 9).string(8000, "ORC").bytes();
    }

    /** Replaces the PostScript's codec (same length: one varint byte). */
    void rewritePostScript(int codec) {
      byte[] ps = postScript(codec);
      System.arraycopy(ps, 0, file, file.length - 1 - ps.length, ps.length);
    }
  }

  /** {@code data} as ORC compresses a part: chunks of at most {@link #BLOCK}, each kept as is if that is smaller. */
  static byte[] compress(byte[] data, int codec) throws IOException {
    if (codec == OrcChunks.NONE) {
      return data;
    }
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (int p = 0; p < data.length; p += BLOCK) {
      byte[] piece = java.util.Arrays.copyOfRange(data, p, Math.min(data.length, p + BLOCK));
      byte[] c = switch (codec) {
        case OrcChunks.ZLIB -> deflate(piece);
        case OrcChunks.SNAPPY -> org.xerial.snappy.Snappy.compress(piece);
        case OrcChunks.ZSTD -> com.github.luben.zstd.Zstd.compress(piece);
        default -> net.jpountz.lz4.LZ4Factory.fastestJavaInstance().fastCompressor().compress(piece);
      };
      out.writeBytes(c.length < piece.length ? chunk(c, false) : chunk(piece, true));
    }
    return out.toByteArray();
  }

  static byte[] chunk(byte[] body, boolean original) {
    int h = body.length * 2 + (original ? 1 : 0);
    byte[] b = new byte[3 + body.length];
    b[0] = (byte) h;
    b[1] = (byte) (h >>> 8);
    b[2] = (byte) (h >>> 16);
    System.arraycopy(body, 0, b, 3, body.length);
    return b;
  }

  static byte[] deflate(byte[] data) {
    Deflater d = new Deflater(Deflater.DEFAULT_COMPRESSION, true);
    d.setInput(data);
    d.finish();
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    byte[] buf = new byte[8192];
    while (!d.finished()) {
      out.write(buf, 0, d.deflate(buf));
    }
    d.end();
    return out.toByteArray();
  }

  /** Minimal protobuf writer. */
  static final class Proto {
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();

    Proto varint(int field, long v) {
      raw((long) field << 3);
      raw(v);
      return this;
    }

    Proto string(int field, String s) {
      return bytes(field, s.getBytes(StandardCharsets.UTF_8));
    }

    Proto message(int field, Proto m) {
      return bytes(field, m.bytes());
    }

    Proto bytes(int field, byte[] b) {
      raw((long) field << 3 | 2);
      raw(b.length);
      out.writeBytes(b);
      return this;
    }

    private void raw(long v) {
      while ((v & ~0x7fL) != 0) {
        out.write((int) (v & 0x7f) | 0x80);
        v >>>= 7;
      }
      out.write((int) v);
    }

    byte[] bytes() {
      return out.toByteArray();
    }
  }
}
