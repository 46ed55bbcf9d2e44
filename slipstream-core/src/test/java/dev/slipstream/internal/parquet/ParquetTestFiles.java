/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.parquet;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Random;

/**
 * Objects laid out as Parquet files, for tests: "PAR1", row groups of column chunks of random bytes, the
 * page indexes, then a footer written field by field ({@link ThriftWriter}), its length and "PAR1". Chunk
 * {@code c} of row group {@code g} starts at {@code 4 + (g * columns + c) * chunk}.
 */
public final class ParquetTestFiles {
  private ParquetTestFiles() {}

  /**
   * A file of {@code groups} row groups of {@code columns} chunks of {@code chunk} bytes. Even columns
   * have a dictionary page of {@code dictionary} bytes (at most half the chunk) before their data pages;
   * with {@code indexes} > 0, the footer names a column index and an offset index for every chunk, together
   * {@code indexes} bytes after the last row group (as parquet-java writes them; pyarrow writes none by
   * default). The bytes come from {@code seed}.
   */
  public static byte[] file(int groups, int columns, int chunk, int dictionary, int indexes, long seed)
      throws IOException {
    long indexStart = 4 + (long) groups * columns * chunk;
    int perIndex = indexes / Math.max(1, groups * columns * 2);
    byte[] body = new byte[(int) indexStart + indexes];
    new Random(seed).nextBytes(body);
    System.arraycopy("PAR1".getBytes(StandardCharsets.US_ASCII), 0, body, 0, 4);
    ThriftWriter t = new ThriftWriter();
    t.field(1, ThriftWriter.I32).varint(zigzag(2)); // version
    t.field(2, ThriftWriter.LIST).listHeader(1, ThriftWriter.STRUCT); // schema: one element to skip
    t.fieldStart();
    t.field(4, ThriftWriter.BINARY).binary("schema");
    t.stop();
    t.fieldEnd();
    t.field(3, ThriftWriter.I64).varint(zigzag(1000)); // num_rows
    t.field(4, ThriftWriter.LIST).listHeader(groups, ThriftWriter.STRUCT); // row_groups
    for (int g = 0; g < groups; g++) {
      t.fieldStart();
      t.field(1, ThriftWriter.LIST).listHeader(columns, ThriftWriter.STRUCT); // columns
      for (int c = 0; c < columns; c++) {
        long start = 4 + ((long) g * columns + c) * chunk;
        boolean hasDictionary = c % 2 == 0;
        t.fieldStart();
        t.field(2, ThriftWriter.I64).varint(zigzag(start)); // file_offset
        t.field(3, ThriftWriter.STRUCT); // meta_data
        t.fieldStart();
        t.field(1, ThriftWriter.I32).varint(zigzag(2)); // type
        t.field(2, ThriftWriter.LIST).listHeader(1, ThriftWriter.I32).varint(zigzag(0)); // encodings
        t.field(3, ThriftWriter.LIST).listHeader(1, ThriftWriter.BINARY).binary("c" + c); // path_in_schema
        t.field(4, ThriftWriter.I32).varint(zigzag(1)); // codec
        t.field(5, ThriftWriter.I64).varint(zigzag(1000)); // num_values
        t.field(6, ThriftWriter.I64).varint(zigzag(chunk)); // total_uncompressed_size
        t.field(7, ThriftWriter.I64).varint(zigzag(chunk)); // total_compressed_size
        t.field(9, ThriftWriter.I64).varint(zigzag(start + (hasDictionary ? Math.min(dictionary, chunk / 2) : 0)));
        if (hasDictionary) {
          t.field(11, ThriftWriter.I64).varint(zigzag(start)); // dictionary_page_offset
        }
        t.stop();
        t.fieldEnd();
        if (indexes > 0) {
          int i = (g * columns + c) * 2;
          t.field(4, ThriftWriter.I64).varint(zigzag(indexStart + (long) i * perIndex)); // offset_index_offset
          t.field(5, ThriftWriter.I32).varint(zigzag(perIndex));
          t.field(6, ThriftWriter.I64).varint(zigzag(indexStart + (long) (i + 1) * perIndex)); // column_index_offset
          t.field(7, ThriftWriter.I32).varint(zigzag(
              i + 2 == groups * columns * 2 ? indexes - (i + 1) * perIndex : perIndex)); // the last runs to the end
        }
        t.stop();
        t.fieldEnd();
      }
      t.field(2, ThriftWriter.I64).varint(zigzag((long) columns * chunk)); // total_byte_size
      t.field(3, ThriftWriter.I64).varint(zigzag(100)); // num_rows
      t.stop();
      t.fieldEnd();
    }
    t.field(6, ThriftWriter.BINARY).binary("slipstream test"); // created_by
    t.stop();
    byte[] footer = t.bytes();
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    out.write(body);
    out.write(footer);
    int n = footer.length;
    out.write(new byte[] {(byte) n, (byte) (n >>> 8), (byte) (n >>> 16), (byte) (n >>> 24)});
    out.write("PAR1".getBytes(StandardCharsets.US_ASCII));
    return out.toByteArray();
  }

  static long zigzag(long n) {
    return (n << 1) ^ (n >> 63);
  }
}
