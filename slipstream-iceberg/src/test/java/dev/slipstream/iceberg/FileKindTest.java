/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.iceberg;

import static org.assertj.core.api.Assertions.assertThat;

import dev.slipstream.ReadPolicy;
import org.junit.jupiter.api.Test;

class FileKindTest {
  @Test
  void metadataManifestsAndStatisticsAreReadWhole() {
    for (String name : new String[] {
        "s3://b/t/metadata/00001-5d1c.metadata.json", "s3://b/t/metadata/v3.gz.metadata.json",
        "s3://b/t/metadata/snap-123-1-abc.avro", "s3://b/t/metadata/abc-m0.avro",
        "s3://b/t/metadata/123-456.stats", "s3://b/t/data/00000-dv.puffin"}) {
      assertThat(FileKind.of(name)).as(name).isEqualTo(FileKind.METADATA);
      assertThat(FileKind.of(name).policy()).isEqualTo(ReadPolicy.SEQUENTIAL);
    }
  }

  @Test
  void columnarFilesAreReadByRanges() {
    assertThat(FileKind.of("s3a://b/t/data/id=1/00000-0-abc.parquet")).isEqualTo(FileKind.COLUMNAR);
    assertThat(FileKind.of("s3://b/t/data/00000-0-abc.PARQUET")).isEqualTo(FileKind.COLUMNAR);
    assertThat(FileKind.of("s3://b/t/data/00000-0-abc.orc")).isEqualTo(FileKind.COLUMNAR);
    assertThat(FileKind.COLUMNAR.policy()).isEqualTo(ReadPolicy.RANDOM);
  }

  @Test
  void anythingElseAdapts() {
    assertThat(FileKind.of("s3://b/t/metadata/version-hint.text")).isEqualTo(FileKind.OTHER);
    assertThat(FileKind.of("s3://b/t/data/part-0.csv")).isEqualTo(FileKind.OTHER);
    assertThat(FileKind.OTHER.policy()).isEqualTo(ReadPolicy.ADAPTIVE);
  }
}
