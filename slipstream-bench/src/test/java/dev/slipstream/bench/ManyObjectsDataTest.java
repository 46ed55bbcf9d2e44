/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import org.apache.parquet.ParquetReadOptions;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.io.LocalInputFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The many-objects template: every object made from it is a valid Parquet file of two row groups, of
 * distinct bytes in each range a reader fetches, whose decoded values name that object and no other.
 */
class ManyObjectsDataTest {
  @TempDir
  Path tmp;

  @Test
  void eachObjectIsADistinctParquetFileThatDecodesToItsOwnTag() throws Exception {
    ManyObjectsData data = ManyObjectsData.generate(tmp, 7);
    assertThat(data.rowGroups()).isEqualTo(2);
    assertThat(data.template().length).isBetween(3000, 8000);
    assertThat(data.tagOffsets().length).as("the tag in both data pages, the statistics and the footer")
        .isGreaterThanOrEqualTo(4);

    byte[] a = data.object(17);
    byte[] b = data.object(99_999);
    assertThat(a).hasSameSizeAs(b);
    assertThat(Arrays.equals(a, b)).isFalse();
    // every row group's column chunk of the tag, and the footer, differ: no range of one object is another's
    assertThat(Arrays.equals(a, a.length - 200, a.length, b, b.length - 200, b.length)).isFalse();

    ParquetScan.Outcome outA = scan(a, "a.parquet");
    ParquetScan.Outcome outB = scan(b, "b.parquet");
    assertThat(data.check(17, outA)).isNull();
    assertThat(data.check(99_999, outB)).isNull();
    assertThat(data.check(17, outB)).contains("column object");
    assertThat(outA.rows()).isEqualTo(data.rows());
  }

  private ParquetScan.Outcome scan(byte[] bytes, String name) throws Exception {
    Path f = Files.write(tmp.resolve(name), bytes);
    try (ParquetFileReader r = ParquetFileReader.open(new LocalInputFile(f), ParquetReadOptions.builder().build())) {
      assertThat(r.getFooter().getBlocks()).hasSize(2);
    }
    return ParquetScan.scan(new LocalInputFile(f), ParquetReadOptions.builder().build(), null);
  }
}
