/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.parquet;

import static org.assertj.core.api.Assertions.assertThat;

import dev.slipstream.S3Location;
import dev.slipstream.internal.learn.PredictedColumns;
import java.util.BitSet;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The footers and predicted columns of one client stay within their bytes however many files it reads, and go when unused. */
class ParquetFootersTest {
  static ParquetFooter footer() throws Exception {
    byte[] file = ParquetTestFiles.file(2, 4, 500, 100, 0, 1);
    ParquetFooter f = ParquetFooter.parse(file, file.length, file.length);
    assertThat(f).isNotNull();
    return f;
  }

  @Test
  void aFooterIsFoundForItsVersionOnly() throws Exception {
    ParquetFooters footers = new ParquetFooters();
    ParquetFooter f = footer();
    S3Location l = S3Location.parse("s3://b/t/part-0.parquet");
    footers.remember(l, 100, "\"e1\"", f);
    assertThat(footers.get(l, 100, "\"e1\"")).isSameAs(f);
    assertThat(footers.get(l, 100, "\"e2\"")).as("another version").isNull();
    assertThat(footers.get(l, 101, "\"e1\"")).as("another length").isNull();
    footers.remember(l, 100, null, f);
    assertThat(footers.get(l, 100, null)).as("no ETag, no version").isNull();
  }

  /** 200,000 distinct files read: the footers stay within their bytes, and all go once unused for the idle time. */
  @Test
  void footersOfAnyNumberOfFilesStayWithinTheirBytesAndGoWhenUnused() throws Exception {
    AtomicLong now = new AtomicLong();
    ParquetFooters footers = new ParquetFooters(ParquetFooters.MAX_BYTES, now::get);
    ParquetFooter f = footer();
    for (int i = 0; i < 200_000; i++) {
      footers.remember(S3Location.parse("s3://b/t/part-" + i + ".parquet"), 4_000, "\"" + Integer.toHexString(i) + "\"", f);
      now.addAndGet(1_000_000); // 200 s in all
    }
    long perFooter = ParquetFooters.ENTRY_BYTES + f.heapBytes() + "t/part-100000.parquet".length();
    assertThat(footers.weightedBytes()).isLessThanOrEqualTo(ParquetFooters.MAX_BYTES);
    assertThat(footers.size()).isLessThanOrEqualTo(ParquetFooters.MAX_BYTES / (perFooter - 2))
        .isGreaterThan(ParquetFooters.MAX_BYTES / perFooter / 2);
    now.addAndGet(ParquetFooters.IDLE.toNanos());
    assertThat(footers.size()).isZero();
    assertThat(footers.weightedBytes()).isZero();
  }

  /** 200,000 schemas seen (a file each): the counts stay within their bytes, and go when unused. */
  @Test
  void predictedColumnsOfAnyNumberOfSchemasStayWithinTheirBytesAndGoWhenUnused() {
    AtomicLong now = new AtomicLong();
    PredictedColumns columns = new PredictedColumns(ParquetFooters.IDLE, now::get);
    BitSet touched = new BitSet();
    touched.set(0, 8);
    for (long schema = 0; schema < 200_000; schema++) {
      columns.closed(schema, touched, touched, 0, 0);
      now.addAndGet(1_000_000);
    }
    long perSchema = 64 + 40 + 16 + 40 + 16 + 4 * 8;
    assertThat(columns.size()).isLessThanOrEqualTo(PredictedColumns.MAX_BYTES / perSchema)
        .isGreaterThan(PredictedColumns.MAX_BYTES / perSchema / 2);
    columns.closed(199_999, touched, touched, 0, 0); // a second file of the last schema
    assertThat(columns.predict(199_999)).as("learnt from its last two files").isEqualTo(touched);
    now.addAndGet(ParquetFooters.IDLE.toNanos());
    assertThat(columns.size()).isZero();
  }

  /**
   * A schema's entry never grows past its share of the bound, whatever column a file names (a hostile ORC
   * file's schema may have millions of types): a column past it is not counted nor predicted, and costs
   * no array of its width.
   */
  @Test
  void aColumnBeyondWhatAnEntryMayWeighIsNotPredicted() {
    PredictedColumns columns = new PredictedColumns(ParquetFooters.IDLE, System::nanoTime);
    BitSet touched = new BitSet();
    touched.set(3);
    touched.set(1 << 22);
    columns.closed(7, touched, touched, 0, 0);
    columns.closed(7, touched, touched, 0, 0);
    BitSet narrow = new BitSet();
    narrow.set(3);
    assertThat(columns.predict(7)).isEqualTo(narrow);
  }
}
