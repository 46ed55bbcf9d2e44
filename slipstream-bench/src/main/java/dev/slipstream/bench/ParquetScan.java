/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.bench;

import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.parquet.ParquetReadOptions;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.ColumnReader;
import org.apache.parquet.column.impl.ColumnReadStoreImpl;
import org.apache.parquet.column.page.PageReadStore;
import org.apache.parquet.example.data.simple.convert.GroupRecordConverter;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.io.InputFile;
import org.apache.parquet.schema.MessageType;

/**
 * Reads a Parquet file as a query engine does: the footer, then row group after row group, only the
 * requested columns' chunks (which parquet-java fetches as vectored reads when the stream offers them),
 * each column decoded value by value — as Spark's vectorized reader does, without assembling records.
 * Returns each column's {@link ValueHash} and the row count, to be checked against the written file.
 */
final class ParquetScan {
  /** What a scan decoded. */
  record Outcome(long rows, Map<String, Long> columnHashes) {}

  private ParquetScan() {}

  /** Scans {@code file}; {@code requested} null for every column. */
  static Outcome scan(InputFile file, ParquetReadOptions options, MessageType requested) throws IOException {
    try (ParquetFileReader reader = ParquetFileReader.open(file, options)) {
      MessageType schema = requested != null ? requested : reader.getFooter().getFileMetaData().getSchema();
      reader.setRequestedSchema(schema);
      String createdBy = reader.getFooter().getFileMetaData().getCreatedBy();
      int columns = schema.getColumns().size();
      long[] hashes = new long[columns];
      java.util.Arrays.fill(hashes, ValueHash.START);
      long rows = 0;
      PageReadStore rowGroup;
      while ((rowGroup = reader.readNextRowGroup()) != null) {
        rows += rowGroup.getRowCount();
        ColumnReadStoreImpl store = new ColumnReadStoreImpl(rowGroup,
            new GroupRecordConverter(schema).getRootConverter(), schema, createdBy);
        for (int c = 0; c < columns; c++) {
          ColumnDescriptor d = schema.getColumns().get(c);
          hashes[c] = decode(store.getColumnReader(d), d, rowGroup.getRowCount(), hashes[c]);
        }
      }
      Map<String, Long> byName = new LinkedHashMap<>();
      for (int c = 0; c < columns; c++) {
        byName.put(String.join(".", schema.getColumns().get(c).getPath()), hashes[c]);
      }
      return new Outcome(rows, byName);
    }
  }

  /**
   * Fetches the {@code requested} columns' chunks of {@code file}, row group after row group, as {@link
   * #scan} does (one vectored read a row group where the stream offers them), without decoding a value:
   * the I/O alone of a projection. Returns the rows of the row groups fetched.
   */
  static long fetch(InputFile file, ParquetReadOptions options, MessageType requested) throws IOException {
    try (ParquetFileReader reader = ParquetFileReader.open(file, options)) {
      reader.setRequestedSchema(requested);
      long rows = 0;
      PageReadStore rowGroup;
      while ((rowGroup = reader.readNextRowGroup()) != null) {
        rows += rowGroup.getRowCount();
      }
      return rows;
    }
  }

  /** Decodes the {@code rows} values of a flat (not repeated) column: one value or null per row. */
  private static long decode(ColumnReader r, ColumnDescriptor d, long rows, long hash) {
    int maxDefinition = d.getMaxDefinitionLevel();
    for (long i = 0; i < rows; i++) {
      long v;
      if (r.getCurrentDefinitionLevel() < maxDefinition) {
        v = ValueHash.NULL;
      } else {
        v = switch (d.getPrimitiveType().getPrimitiveTypeName()) {
          case INT64 -> r.getLong();
          case INT32 -> r.getInteger();
          case DOUBLE -> Double.doubleToLongBits(r.getDouble());
          case FLOAT -> Float.floatToIntBits(r.getFloat());
          case BOOLEAN -> r.getBoolean() ? 1 : 0;
          case BINARY -> ValueHash.ofBytes(r.getBinary().toByteBuffer());
          default -> throw new IllegalStateException("unexpected column type in " + d);
        };
      }
      hash = ValueHash.add(hash, v);
      r.consume();
    }
    return hash;
  }
}
