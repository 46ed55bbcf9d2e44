/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.bench;

import java.io.IOException;

/**
 * Workload 2: a multi-row-group Parquet file read through parquet-java, in full ({@code parquet-full}) or
 * with 2 of its 20 columns projected ({@code parquet-projected}). Every decoded column's values are
 * checked against the checksums recorded when the file was written.
 */
final class ParquetWorkload implements Workload {
  static final String FULL = "parquet-full";
  static final String PROJECTED = "parquet-projected";
  static final String KEY = "parquet/table.parquet";

  private final boolean projected;
  private ParquetDataSet data;

  ParquetWorkload(boolean projected) {
    this.projected = projected;
  }

  @Override
  public String name() {
    return projected ? PROJECTED : FULL;
  }

  @Override
  public String description() {
    String file = "a " + Report.binary(data.length()) + " Parquet file (20 columns, " + data.rowGroups()
        + " row groups, " + data.rows() + " rows, Snappy)";
    return projected
        ? "read columns " + String.join(" and ", ParquetDataSet.PROJECTED) + " (2 of 20) of " + file
        : "read every column of " + file;
  }

  @Override
  public void upload(Fixture fixture) throws IOException {
    data = fixture.parquet(KEY);
  }

  @Override
  public Run prepare(ReadSession session, Fixture fixture) throws IOException {
    FileRef ref = session.stat(KEY);
    ParquetScan.Outcome[] outcome = new ParquetScan.Outcome[1];
    return new Run() {
      @Override
      public long execute() throws IOException {
        outcome[0] = ParquetScan.scan(session.parquetFile(ref), session.parquetOptions(),
            projected ? ParquetDataSet.PROJECTION : null);
        return projected ? data.projectedBytes() : data.length();
      }

      @Override
      public String verify() {
        ParquetScan.Outcome o = outcome[0];
        int expectedColumns = projected ? ParquetDataSet.PROJECTED.size() : data.columnHashes().size();
        return DecodedColumns.mismatch(o.rows(), o.columnHashes(), data.rows(), data.columnHashes(), expectedColumns);
      }
    };
  }
}
