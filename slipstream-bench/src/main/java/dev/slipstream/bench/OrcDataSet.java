/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.bench;

import static dev.slipstream.testkit.TestData.mix;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hive.ql.exec.vector.BytesColumnVector;
import org.apache.hadoop.hive.ql.exec.vector.ColumnVector;
import org.apache.hadoop.hive.ql.exec.vector.DoubleColumnVector;
import org.apache.hadoop.hive.ql.exec.vector.LongColumnVector;
import org.apache.hadoop.hive.ql.exec.vector.VectorizedRowBatch;
import org.apache.orc.CompressionKind;
import org.apache.orc.OrcFile;
import org.apache.orc.Reader;
import org.apache.orc.TypeDescription;
import org.apache.orc.Writer;

/**
 * The ORC file of the ORC workloads: 10 columns of mixed types (64-bit integers, doubles, codes, words
 * and longer text; some columns nullable), Snappy-compressed as pyarrow writes ORC, in several stripes.
 * Values are functions of (seed, row, column), and each column's {@link ValueHash} is recorded while
 * writing so that every reader's decoded values can be checked.
 *
 * @param length file size in bytes
 * @param rows rows written
 * @param stripes stripes in the file
 * @param columnHashes expected {@link ValueHash} by column name
 * @param projectedBytes bytes a reader of the {@link #PROJECTED} columns needs at least: their share of the
 *     stripes' data (by the columns' uncompressed sizes) and the tail
 */
record OrcDataSet(long length, long rows, int stripes, Map<String, Long> columnHashes, long projectedBytes) {
  static final TypeDescription SCHEMA = TypeDescription.fromString("struct<id:bigint,event_time:bigint,"
      + "user_id:bigint,price:double,score:double,country:string,name:string,amount:bigint,comment:string,"
      + "version:bigint>");
  /** The 2 of 10 columns the projected workload asks for. */
  static final List<String> PROJECTED = List.of("event_time", "name");
  private static final String[] CODES = {"AT", "BE", "BR", "CA", "CH", "CN", "DE", "ES", "FR", "GB", "IN", "IT",
      "JP", "NL", "PL", "SE", "US", "ZA"};
  /** About the bytes a row takes in the file, for the row count of a file of a given size. */
  private static final int ROW_BYTES = 110;

  /** Writes about {@code bytes} bytes to {@code file} in about {@code stripes} stripes (each at least 1 MiB). */
  static OrcDataSet generate(java.nio.file.Path file, long bytes, int stripes, long seed) throws IOException {
    Files.deleteIfExists(file);
    long rows = Math.max(1, bytes / ROW_BYTES);
    long stripeSize = Math.max(1L << 20, bytes / Math.max(1, stripes));
    Configuration conf = new Configuration(false);
    List<String> names = SCHEMA.getFieldNames();
    long[] hashes = new long[names.size()];
    java.util.Arrays.fill(hashes, ValueHash.START);
    try (Writer w = OrcFile.createWriter(new Path(file.toUri()), OrcFile.writerOptions(conf).setSchema(SCHEMA)
        .compress(CompressionKind.SNAPPY).stripeSize(stripeSize).blockPadding(false))) {
      VectorizedRowBatch batch = SCHEMA.createRowBatch();
      for (long row = 0; row < rows; row++) {
        int i = batch.size++;
        for (int c = 0; c < names.size(); c++) {
          hashes[c] = ValueHash.add(hashes[c], set(batch.cols[c], c, i, seed, row));
        }
        if (batch.size == batch.getMaxSize()) {
          w.addRowBatch(batch);
          batch.reset();
        }
      }
      if (batch.size > 0) {
        w.addRowBatch(batch);
      }
    }
    Map<String, Long> byName = new LinkedHashMap<>();
    for (int c = 0; c < names.size(); c++) {
      byName.put(names.get(c), hashes[c]);
    }
    try (Reader r = OrcFile.createReader(new Path(file.toUri()), OrcFile.readerOptions(conf))) {
      long projected = r.getFileTail().getPostscriptLength() + r.getFileTail().getPostscript().getFooterLength()
          + r.getFileTail().getPostscript().getMetadataLength();
      long content = r.getContentLength();
      long all = 0;
      long some = 0;
      for (int c = 0; c < names.size(); c++) {
        long size = r.getStatistics()[c + 1].getBytesOnDisk() > 0 ? r.getStatistics()[c + 1].getBytesOnDisk() : 0;
        all += size;
        if (PROJECTED.contains(names.get(c))) {
          some += size;
        }
      }
      projected += all > 0 ? content * some / all : content;
      return new OrcDataSet(Files.size(file), rows, r.getStripes().size(), byName, projected);
    }
  }

  /** Sets column {@code c} of row {@code i} of the batch to its value for {@code row}; returns what is hashed. */
  private static long set(ColumnVector v, int c, int i, long seed, long row) {
    long m = mix(seed, row * 16 + c);
    boolean nullable = c == 2 || c == 4 || c == 8;
    if (nullable && (m & 15) == 0) {
      v.noNulls = false;
      v.isNull[i] = true;
      return ValueHash.NULL;
    }
    v.isNull[i] = false;
    switch (c) {
      case 0, 9 -> {
        long x = c == 0 ? row : row / 1000;
        ((LongColumnVector) v).vector[i] = x;
        return x;
      }
      case 1 -> {
        long x = 1_700_000_000_000L + row * 37 + (m & 1023);
        ((LongColumnVector) v).vector[i] = x;
        return x;
      }
      case 2, 7 -> {
        long x = m >>> (c == 2 ? 40 : 20);
        ((LongColumnVector) v).vector[i] = x;
        return x;
      }
      case 3, 4 -> {
        double x = (m >>> 11) * 0x1.0p-53 * 1000;
        ((DoubleColumnVector) v).vector[i] = x;
        return Double.doubleToLongBits(x);
      }
      default -> {
        byte[] b = switch (c) {
          case 5 -> CODES[(int) ((m >>> 8) % CODES.length)].getBytes(StandardCharsets.US_ASCII);
          case 6 -> word(m, 4 + (int) (m & 7));
          default -> word(m, 20 + (int) (m & 63));
        };
        ((BytesColumnVector) v).setVal(i, b);
        return ValueHash.ofBytes(b);
      }
    }
  }

  private static byte[] word(long m, int length) {
    byte[] b = new byte[length];
    long x = m;
    for (int k = 0; k < length; k++) {
      if (k % 12 == 0) {
        x = mix(m, k);
      }
      b[k] = (byte) ('a' + (int) ((x & 0x1f) % 26));
      x >>>= 5;
    }
    return b;
  }
}
