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
  /** The I/O alone of {@code parquet-projected}: the chunks fetched row group by row group, nothing decoded. */
  static final String PROJECTED_IO = "parquet-projected-io";
  static final String KEY = "parquet/table.parquet";

  private final boolean projected;
  private final boolean decoded;
  private ParquetDataSet data;

  ParquetWorkload(boolean projected) {
    this(projected, true);
  }

  /** @param decoded false to fetch the projected columns' chunks without decoding them ({@link #PROJECTED_IO}) */
  ParquetWorkload(boolean projected, boolean decoded) {
    this.projected = projected;
    this.decoded = decoded;
  }

  @Override
  public String name() {
    return !decoded ? PROJECTED_IO : projected ? PROJECTED : FULL;
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
    if (!decoded) {
      long[] rows = new long[1];
      return new Run() {
        @Override
        public long execute() throws IOException {
          rows[0] = ParquetScan.fetch(session.parquetFile(ref), session.parquetOptions(), ParquetDataSet.PROJECTION);
          return data.projectedBytes();
        }

        @Override
        public String verify() {
          return rows[0] == data.rows() ? null : "fetched row groups of " + rows[0] + " rows, expected " + data.rows();
        }
      };
    }
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
