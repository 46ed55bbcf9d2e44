/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.bench;

import java.io.IOException;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;

/**
 * Workload 2 for ORC, beside the Parquet ones: a file of several stripes read through orc-core (the reader
 * of Spark's and Hive's ORC tables), in full ({@code orc-full}) or with 2 of its 10 columns projected
 * ({@code orc-projected}). Every decoded column's values are checked against the checksums recorded when
 * the file was written. orc-core reads through a Hadoop FileSystem: Slipstream's plain API has none, so
 * its core reader does not run these.
 */
final class OrcWorkload implements Workload {
  static final String FULL = "orc-full";
  static final String PROJECTED = "orc-projected";
  static final String KEY = "orc/table.orc";

  private final boolean projected;
  private OrcDataSet data;

  OrcWorkload(boolean projected) {
    this.projected = projected;
  }

  @Override
  public String name() {
    return projected ? PROJECTED : FULL;
  }

  @Override
  public String description() {
    String file = "a " + Report.binary(data.length()) + " ORC file (10 columns, " + data.stripes() + " stripes, "
        + data.rows() + " rows, Snappy)";
    return projected
        ? "read columns " + String.join(" and ", OrcDataSet.PROJECTED) + " (2 of 10) of " + file
        : "read every column of " + file;
  }

  @Override
  public void upload(Fixture fixture) throws IOException {
    data = fixture.orc(KEY);
  }

  @Override
  public String notApplicable(String reader) {
    return Readers.SLIPSTREAM_CORE.equals(reader) ? "orc-core reads through a Hadoop FileSystem" : null;
  }

  @Override
  public Run prepare(ReadSession session, Fixture fixture) throws IOException {
    FileRef ref = session.stat(KEY);
    FileSystem fs = session.hadoopFileSystem();
    if (fs == null) {
      throw new IllegalStateException("no Hadoop FileSystem for orc-core");
    }
    OrcScan.Outcome[] outcome = new OrcScan.Outcome[1];
    return new Run() {
      @Override
      public long execute() throws IOException {
        outcome[0] = OrcScan.scan(fs, (FileStatus) ref.handle(), projected ? OrcDataSet.PROJECTED : null);
        return projected ? data.projectedBytes() : data.length();
      }

      @Override
      public String verify() {
        OrcScan.Outcome o = outcome[0];
        int expectedColumns = projected ? OrcDataSet.PROJECTED.size() : data.columnHashes().size();
        return DecodedColumns.mismatch(o.rows(), o.columnHashes(), data.rows(), data.columnHashes(), expectedColumns);
      }
    };
  }
}
