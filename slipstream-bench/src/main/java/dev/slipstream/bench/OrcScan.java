/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.bench;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.hive.ql.exec.vector.BytesColumnVector;
import org.apache.hadoop.hive.ql.exec.vector.ColumnVector;
import org.apache.hadoop.hive.ql.exec.vector.DoubleColumnVector;
import org.apache.hadoop.hive.ql.exec.vector.LongColumnVector;
import org.apache.hadoop.hive.ql.exec.vector.VectorizedRowBatch;
import org.apache.orc.OrcFile;
import org.apache.orc.Reader;
import org.apache.orc.RecordReader;

/**
 * Reads an ORC file as Spark's and Hive's readers do, through orc-core: the tail, then stripe after stripe,
 * only the requested columns' streams (fetched as vectored reads), every value decoded into column
 * vectors. Returns each column's {@link ValueHash} and the row count, to be checked against the written
 * file.
 */
final class OrcScan {
  /** What a scan decoded. */
  record Outcome(long rows, Map<String, Long> columnHashes) {}

  private OrcScan() {}

  /** Scans {@code file} through {@code fs}; {@code requested} null for every column. */
  static Outcome scan(FileSystem fs, FileStatus file, List<String> requested) throws IOException {
    List<String> names = OrcDataSet.SCHEMA.getFieldNames();
    boolean[] include = new boolean[OrcDataSet.SCHEMA.getMaximumId() + 1];
    include[0] = true;
    for (int c = 0; c < names.size(); c++) {
      include[c + 1] = requested == null || requested.contains(names.get(c));
    }
    long[] hashes = new long[names.size()];
    java.util.Arrays.fill(hashes, ValueHash.START);
    long rows = 0;
    try (Reader reader = OrcFile.createReader(file.getPath(), OrcFile.readerOptions(fs.getConf()).filesystem(fs)
        .maxLength(file.getLen()));
        RecordReader records = reader.rows(reader.options().include(include))) {
      VectorizedRowBatch batch = reader.getSchema().createRowBatch();
      while (records.nextBatch(batch)) {
        rows += batch.size;
        for (int c = 0; c < names.size(); c++) {
          if (include[c + 1]) {
            hashes[c] = hash(batch.cols[c], batch.size, hashes[c]);
          }
        }
      }
    }
    Map<String, Long> byName = new LinkedHashMap<>();
    for (int c = 0; c < names.size(); c++) {
      if (include[c + 1]) {
        byName.put(names.get(c), hashes[c]);
      }
    }
    return new Outcome(rows, byName);
  }

  private static long hash(ColumnVector v, int size, long hash) {
    for (int i = 0; i < size; i++) {
      int row = v.isRepeating ? 0 : i;
      if (!v.noNulls && v.isNull[row]) {
        hash = ValueHash.add(hash, ValueHash.NULL);
        continue;
      }
      long x;
      if (v instanceof LongColumnVector l) {
        x = l.vector[row];
      } else if (v instanceof DoubleColumnVector d) {
        x = Double.doubleToLongBits(d.vector[row]);
      } else {
        BytesColumnVector b = (BytesColumnVector) v;
        x = ValueHash.ofBytes(ByteBuffer.wrap(b.vector[row], b.start[row], b.length[row]));
      }
      hash = ValueHash.add(hash, x);
    }
    return hash;
  }
}
