/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.orc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.slipstream.S3Location;
import dev.slipstream.internal.parquet.ParquetFooters;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The ORC layouts of one client stay within their bytes however many files it reads, grown or not, and go when unused. */
class OrcLayoutsTest {
  static OrcTailTest.OrcFileBytes orc;

  static OrcLayout plan() throws Exception {
    if (orc == null) {
      orc = new OrcTailTest.OrcFileBytes(OrcChunks.ZLIB, 5, 30_000);
    }
    OrcTail t = OrcTail.parse(orc.file, orc.file.length, orc.file.length);
    assertThat(t).isNotNull();
    return new OrcLayout(t);
  }

  @Test
  void aPlanIsFoundForItsVersionOnly() throws Exception {
    OrcLayouts plans = new OrcLayouts(ParquetFooters.MAX_BYTES, ParquetFooters.IDLE, System::nanoTime);
    OrcLayout p = plan();
    S3Location l = S3Location.parse("s3://b/t/part-0.orc");
    plans.put(l, 100, "\"e1\"", p);
    assertThat(plans.get(l, 100, "\"e1\"")).isSameAs(p);
    assertThat(plans.get(l, 100, "\"e2\"")).as("another version").isNull();
    assertThat(plans.get(l, 101, "\"e1\"")).as("another length").isNull();
    plans.put(l, 100, null, p);
    assertThat(plans.get(l, 100, null)).as("no ETag, no version").isNull();
  }

  @Test
  void aStripeFooterTeachesItsStreamsOnceAndThePlanWeighsThem() throws Exception {
    OrcLayout p = plan();
    OrcTail.Stripe s = p.tail().stripes().get(1);
    long before = p.heapBytes();
    assertThat(p.footerAt(s.footerStart(), (int) s.footerLength())).isEqualTo(s);
    assertThat(p.footerAt(s.footerStart(), (int) s.footerLength() + 1)).isNull();
    assertThat(p.streamAt(s.dataStart())).as("unknown before its footer is read").isNull();
    assertThat(p.learn(s, orc.file, (int) s.footerStart(), (int) s.footerLength())).isTrue();
    assertThat(p.learn(s, orc.file, (int) s.footerStart(), (int) s.footerLength())).as("once").isFalse();
    assertThat(p.streamAt(s.dataStart()).column()).isEqualTo(1);
    assertThat(p.streamAt(s.footerStart() - 1).column()).isEqualTo(3);
    assertThat(p.streamAt(s.footerStart())).as("the footer is no stream").isNull();
    assertThat(p.heapBytes()).isGreaterThan(before);
  }

  /**
   * A hostile file whose stripe footers each list tens of thousands of one-byte streams (a few KB once
   * deflated): however many of them a layout learns, it holds at most its bound, and a stripe past it stays
   * unknown (its reads are plain reads).
   */
  @Test
  void aLayoutHoldsAtMostItsBoundHoweverManyStripeFootersItLearns() throws Exception {
    OrcBuilder b = new OrcBuilder(OrcChunks.ZLIB);
    java.util.List<OrcBuilder.StreamSpec> streams = new java.util.ArrayList<>();
    for (int i = 0; i < 30_000; i++) {
      streams.add(new OrcBuilder.StreamSpec(1, 1 + i % 3, 1));
    }
    for (int s = 0; s < 12; s++) {
      b.stripe(streams);
    }
    OrcBuilder.Written w = b.build();
    OrcLayout p = new OrcLayout(OrcTail.parse(w.file(), w.file().length, w.file().length));
    int learnt = 0;
    for (OrcTail.Stripe s : p.tail().stripes()) {
      if (p.learn(s, w.file(), (int) s.footerStart(), (int) s.footerLength())) {
        learnt++;
      }
      assertThat(p.heapBytes()).as("after stripe %d", s.index()).isLessThanOrEqualTo(OrcTail.MAX_LAYOUT_BYTES);
    }
    assertThat(learnt).as("as many stripes as fit").isBetween(2, 4);
    OrcTail.Stripe last = p.tail().stripes().get(11);
    assertThat(p.knows(last)).isFalse();
    assertThat(p.streamAt(last.dataStart())).isNull();
  }

  /** 200,000 distinct files read, each plan grown by a stripe's streams: within their bytes, and all go once unused. */
  @Test
  void plansOfAnyNumberOfFilesStayWithinTheirBytesAndGoWhenUnused() throws Exception {
    AtomicLong now = new AtomicLong();
    OrcLayouts plans = new OrcLayouts(ParquetFooters.MAX_BYTES, ParquetFooters.IDLE, now::get);
    long perPlan = 0;
    for (int i = 0; i < 200_000; i++) {
      OrcLayout p = plan();
      S3Location l = S3Location.parse("s3://b/t/part-" + i + ".orc");
      String etag = "\"" + Integer.toHexString(i) + "\"";
      plans.put(l, orc.file.length, etag, p);
      OrcTail.Stripe s = p.tail().stripes().get(0);
      p.learn(s, orc.file, (int) s.footerStart(), (int) s.footerLength());
      plans.put(l, orc.file.length, etag, p); // weighed again, as a stream does once it learnt
      perPlan = OrcLayouts.ENTRY_BYTES + p.heapBytes() + "t/part-100000.orc".length();
      now.addAndGet(1_000_000);
    }
    assertThat(plans.weightedBytes()).isLessThanOrEqualTo(ParquetFooters.MAX_BYTES);
    assertThat(plans.size()).isLessThanOrEqualTo(ParquetFooters.MAX_BYTES / (perPlan - 2))
        .isGreaterThan(ParquetFooters.MAX_BYTES / perPlan / 2);
    now.addAndGet(ParquetFooters.IDLE.toNanos());
    assertThat(plans.size()).isZero();
    assertThat(plans.weightedBytes()).isZero();
  }
}
