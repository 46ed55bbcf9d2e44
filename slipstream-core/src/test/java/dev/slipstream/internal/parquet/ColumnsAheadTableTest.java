/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.parquet;

import static org.assertj.core.api.Assertions.assertThat;

import dev.slipstream.S3Location;
import org.junit.jupiter.api.Test;

/** The table a file belongs to, as its key tells: what a stream read after another must share with it. */
class ColumnsAheadTableTest {
  static String table(String uri) {
    return ColumnsAhead.table(S3Location.parse(uri));
  }

  @Test
  void aPartitionedTableIsItsKeyUpToTheFirstPartitionDirectory() {
    assertThat(table("s3://b/warehouse/t/dt=000/part-0.parquet")).isEqualTo("b/warehouse/t/");
    assertThat(table("s3://b/warehouse/t/dt=001/part-7.parquet")).isEqualTo("b/warehouse/t/");
    assertThat(table("s3://b/warehouse/t/year=2026/month=11/f.parquet")).isEqualTo("b/warehouse/t/");
    assertThat(table("s3://b/dt=1/f.parquet")).isEqualTo("b/");
  }

  @Test
  void aFileOfNoPartitionBelongsToItsDirectory() {
    assertThat(table("s3://b/warehouse/t/part-0.parquet")).isEqualTo("b/warehouse/t/");
    assertThat(table("s3://b/f.parquet")).isEqualTo("b/");
    assertThat(table("s3://b/warehouse/u/part-0.parquet")).isNotEqualTo(table("s3://b/warehouse/t/part-0.parquet"));
  }

  @Test
  void anEqualsSignInTheFileNameIsNoPartition() {
    assertThat(table("s3://b/t/part=0.parquet")).isEqualTo("b/t/");
    assertThat(table("s3://other/warehouse/t/dt=000/part-0.parquet")).isEqualTo("other/warehouse/t/");
  }
}
