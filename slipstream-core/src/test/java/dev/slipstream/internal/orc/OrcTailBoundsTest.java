/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.orc;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * What the ORC parser refuses of a file an attacker wrote, so that no layout holds more than its bound
 * ({@link OrcTail#MAX_LAYOUT_BYTES}) and no length it gives overflows what a reader computes from it: too many
 * stripes, too many streams in a stripe's footer, a stream of a column the schema does not have, a stripe
 * footer of 2 GiB or more, a stripe whose end passes {@code Long.MAX_VALUE}. Each is no plan (or no streams),
 * never an error.
 */
@Timeout(60)
class OrcTailBoundsTest {
  /** {@code n} one-byte DATA streams of column 1. */
  static List<OrcBuilder.StreamSpec> oneByteStreams(int n) {
    List<OrcBuilder.StreamSpec> s = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      s.add(new OrcBuilder.StreamSpec(1, 1, 1));
    }
    return s;
  }

  static OrcTail parse(OrcBuilder.Written w) {
    return OrcTail.parse(w.file(), w.file().length, w.file().length);
  }

  @Test
  void aStripeFooterOfMoreStreamsThanALayoutMayHoldIsNoStreams() throws IOException {
    // 200,000 one-byte streams: 1.6 MB of protobuf, 30 KB once deflated; 9.6 MB of heap as streams.
    OrcBuilder.Written w = new OrcBuilder(OrcChunks.ZLIB).stripe(oneByteStreams(200_000)).build();
    assertThat(w.footerLengths().get(0)).isLessThan(64 << 10);
    OrcTail t = parse(w);
    assertThat(t).isNotNull();
    OrcTail.Stripe s = t.stripes().get(0);
    assertThat(t.streams(s, w.file(), (int) s.footerStart(), (int) s.footerLength())).isNull();
    // As many as a layout may hold are streams.
    OrcBuilder.Written fits = new OrcBuilder(OrcChunks.ZLIB).stripe(oneByteStreams(20_000)).build();
    OrcTail f = parse(fits);
    OrcTail.Stripe fs = f.stripes().get(0);
    assertThat(f.streams(fs, fits.file(), (int) fs.footerStart(), (int) fs.footerLength())).hasSize(20_000);
  }

  @Test
  void aStreamOfAColumnBeyondTheSchemaIsNoStreams() throws IOException {
    for (long column : new long[] {4, 1_000_000, Integer.MAX_VALUE}) {
      OrcBuilder.Written w = new OrcBuilder(OrcChunks.SNAPPY).types(4)
          .stripe(List.of(new OrcBuilder.StreamSpec(1, 1, 100), new OrcBuilder.StreamSpec(1, column, 100))).build();
      OrcTail t = parse(w);
      OrcTail.Stripe s = t.stripes().get(0);
      assertThat(t.streams(s, w.file(), (int) s.footerStart(), (int) s.footerLength())).as("column %d", column)
          .isNull();
    }
    OrcBuilder.Written w = new OrcBuilder(OrcChunks.SNAPPY).types(4)
        .stripe(List.of(new OrcBuilder.StreamSpec(1, 1, 100), new OrcBuilder.StreamSpec(1, 3, 100))).build();
    OrcTail t = parse(w);
    OrcTail.Stripe s = t.stripes().get(0);
    assertThat(t.streams(s, w.file(), (int) s.footerStart(), (int) s.footerLength())).as("the last column").hasSize(2);
  }

  @Test
  void aTailOfMoreStripesThanALayoutMayHoldIsNoPlan() throws IOException {
    OrcBuilder b = new OrcBuilder(OrcChunks.ZLIB);
    for (int i = 0; i < 50_000; i++) {
      b.stripe(List.of(), 0, new byte[] {0}, null); // a stripe of a one-byte footer and nothing else
    }
    assertThat(parse(b.build())).isNull();
    OrcBuilder few = new OrcBuilder(OrcChunks.ZLIB);
    for (int i = 0; i < 20_000; i++) {
      few.stripe(List.of(), 0, new byte[] {0}, null);
    }
    assertThat(parse(few.build()).stripes()).hasSize(20_000);
  }

  @Test
  void aStripeWhoseEndPassesTheLargestLongIsNoPlan() throws IOException {
    for (long offset : new long[] {Long.MAX_VALUE - 10, Long.MAX_VALUE - 150, Long.MAX_VALUE}) {
      OrcBuilder.Written w = new OrcBuilder(OrcChunks.NONE)
          .stripe(List.of(new OrcBuilder.StreamSpec(1, 1, 100)), 100, null, new long[] {offset, 100, -1, -1})
          .build();
      assertThat(parse(w)).as("offset %d", offset).isNull();
    }
  }

  @Test
  void aStripeFooterOfTwoGibibytesOrMoreIsNoPlan() throws IOException {
    long big = 8L << 30; // the file is said to be 8 GiB: every length below lies inside it
    for (long footer : new long[] {1L << 31, (1L << 31) + 5, (1L << 32) + 3, 16L << 20}) {
      OrcBuilder.Written w = new OrcBuilder(OrcChunks.ZLIB)
          .stripe(List.of(new OrcBuilder.StreamSpec(1, 1, 100)), 100, null, new long[] {-1, -1, -1, footer})
          .build();
      byte[] tail = Arrays.copyOfRange(w.file(), w.file().length - w.tailLength(), w.file().length);
      assertThat(OrcTail.parse(tail, tail.length, big)).as("a footer of %d bytes", footer).isNull();
    }
  }
}
