/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.bench;

import static dev.slipstream.testkit.TestData.mix;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.hadoop.conf.Configuration;
import org.apache.parquet.ParquetReadOptions;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.example.data.simple.SimpleGroupFactory;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.ParquetFileWriter;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.example.ExampleParquetWriter;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.io.LocalInputFile;
import org.apache.parquet.io.LocalOutputFile;
import org.apache.parquet.io.api.Binary;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.MessageTypeParser;

/**
 * The Parquet file of the Parquet workloads: 20 columns of mixed types (64- and 32-bit integers, a
 * timestamp, doubles, a float, a boolean, dictionary-friendly codes, random words and longer text; some
 * columns nullable), Snappy-compressed as Spark writes by default, in several row groups. Values are
 * functions of (seed, row, column), and each column's {@link ValueHash} is recorded while writing so
 * that every reader's decoded values can be checked.
 *
 * @param length file size in bytes
 * @param rows rows written
 * @param rowGroups row groups in the file
 * @param columnHashes expected {@link ValueHash} by column name
 * @param projectedBytes bytes a reader of the {@link #PROJECTED} columns needs: their column chunks and the footer
 */
record ParquetDataSet(long length, long rows, int rowGroups, Map<String, Long> columnHashes, long projectedBytes) {

  private enum Kind { LONG, TIMESTAMP, INT, DOUBLE, FLOAT, BOOL, CODE, WORD, TEXT }

  private record Column(String name, Kind kind, boolean optional) {}

  private static final List<Column> COLUMNS = List.of(
      new Column("id", Kind.LONG, false),
      new Column("event_time", Kind.TIMESTAMP, false),
      new Column("user_id", Kind.LONG, true),
      new Column("count", Kind.INT, false),
      new Column("flags", Kind.INT, true),
      new Column("price", Kind.DOUBLE, false),
      new Column("score", Kind.DOUBLE, true),
      new Column("ratio", Kind.FLOAT, false),
      new Column("active", Kind.BOOL, false),
      new Column("country", Kind.CODE, false),
      new Column("city", Kind.WORD, true),
      new Column("name", Kind.WORD, false),
      new Column("day", Kind.INT, false),
      new Column("amount", Kind.LONG, true),
      new Column("quantity", Kind.INT, false),
      new Column("lat", Kind.DOUBLE, true),
      new Column("lon", Kind.DOUBLE, true),
      new Column("category", Kind.CODE, false),
      new Column("comment", Kind.TEXT, true),
      new Column("version", Kind.LONG, false));

  /** The 2 of 20 columns the projected workload asks for. */
  static final List<String> PROJECTED = List.of("event_time", "name");

  static final MessageType SCHEMA = MessageTypeParser.parseMessageType(schemaText(COLUMNS));
  static final MessageType PROJECTION = MessageTypeParser.parseMessageType(schemaText(
      COLUMNS.stream().filter(c -> PROJECTED.contains(c.name())).toList()));

  private static final String[] CODES = {"AT", "BE", "BR", "CA", "CH", "CN", "DE", "ES", "FR", "GB", "IN", "IT",
      "JP", "NL", "PL", "SE", "US", "ZA"};
  private static final byte[] LETTERS = "abcdefghijklmnopqrstuvwxyz".getBytes(StandardCharsets.US_ASCII);

  private static String schemaText(List<Column> columns) {
    StringBuilder b = new StringBuilder("message bench {\n");
    for (Column c : columns) {
      b.append("  ").append(c.optional() ? "optional " : "required ").append(switch (c.kind()) {
        case LONG -> "int64";
        case TIMESTAMP -> "int64";
        case INT -> "int32";
        case DOUBLE -> "double";
        case FLOAT -> "float";
        case BOOL -> "boolean";
        case CODE, WORD, TEXT -> "binary";
      }).append(' ').append(c.name());
      if (c.kind() == Kind.TIMESTAMP) {
        b.append(" (TIMESTAMP(MILLIS,true))");
      } else if (c.kind() == Kind.CODE || c.kind() == Kind.WORD || c.kind() == Kind.TEXT) {
        b.append(" (STRING)");
      }
      b.append(";\n");
    }
    return b.append("}").toString();
  }

  /** Writes about {@code targetBytes} of rows to {@code file} in about {@code rowGroups} row groups. */
  static ParquetDataSet generate(Path file, long targetBytes, int rowGroups, long seed) throws IOException {
    Files.deleteIfExists(file);
    long[] hashes = new long[COLUMNS.size()];
    java.util.Arrays.fill(hashes, ValueHash.START);
    long rowGroupBytes = Math.max(64 * 1024, (targetBytes + rowGroups - 1) / rowGroups);
    SimpleGroupFactory groups = new SimpleGroupFactory(SCHEMA);
    long rows = 0;
    try (ParquetWriter<Group> writer = ExampleParquetWriter.builder(new LocalOutputFile(file))
        .withConf(new Configuration(false))
        .withType(SCHEMA)
        .withCompressionCodec(CompressionCodecName.SNAPPY)
        .withRowGroupSize(rowGroupBytes)
        .withWriteMode(ParquetFileWriter.Mode.OVERWRITE)
        .build()) {
      while (writer.getDataSize() < targetBytes) {
        for (int i = 0; i < 500; i++, rows++) {
          writer.write(row(groups, seed, rows, hashes));
        }
      }
    }
    Map<String, Long> byName = new LinkedHashMap<>();
    for (int c = 0; c < COLUMNS.size(); c++) {
      byName.put(COLUMNS.get(c).name(), hashes[c]);
    }
    return summarize(file, rows, byName);
  }

  private static ParquetDataSet summarize(Path file, long rows, Map<String, Long> hashes) throws IOException {
    long length = Files.size(file);
    Set<String> projected = Set.copyOf(PROJECTED);
    long chunks = 0;
    long dataEnd = 0;
    List<BlockMetaData> blocks;
    try (ParquetFileReader r = ParquetFileReader.open(new LocalInputFile(file), ParquetReadOptions.builder().build())) {
      blocks = new ArrayList<>(r.getFooter().getBlocks());
    }
    for (BlockMetaData block : blocks) {
      for (ColumnChunkMetaData chunk : block.getColumns()) {
        dataEnd = Math.max(dataEnd, chunk.getStartingPos() + chunk.getTotalSize());
        if (projected.contains(chunk.getPath().toDotString())) {
          chunks += chunk.getTotalSize();
        }
      }
    }
    return new ParquetDataSet(length, rows, blocks.size(), Map.copyOf(hashes), chunks + (length - dataEnd));
  }

  private static Group row(SimpleGroupFactory groups, long seed, long row, long[] hashes) {
    Group g = groups.newGroup();
    for (int c = 0; c < COLUMNS.size(); c++) {
      Column col = COLUMNS.get(c);
      long r = mix(seed, row * 64 + c);
      if (col.optional() && ((r >>> 56) & 15) == 0) {
        hashes[c] = ValueHash.add(hashes[c], ValueHash.NULL);
        continue;
      }
      long h;
      switch (col.kind()) {
        case LONG -> {
          g.add(col.name(), r);
          h = r;
        }
        case TIMESTAMP -> {
          long v = 1_700_000_000_000L + row * 1000 + (r & 1023);
          g.add(col.name(), v);
          h = v;
        }
        case INT -> {
          int v = (int) (r % 100_000);
          g.add(col.name(), v);
          h = v;
        }
        case DOUBLE -> {
          double v = (r >>> 11) * 0x1.0p-53 * 1000.0;
          g.add(col.name(), v);
          h = Double.doubleToLongBits(v);
        }
        case FLOAT -> {
          float v = (float) ((r >>> 40) / 16777216.0);
          g.add(col.name(), v);
          h = Float.floatToIntBits(v);
        }
        case BOOL -> {
          boolean v = (r & 1) == 1;
          g.add(col.name(), v);
          h = v ? 1 : 0;
        }
        default -> {
          byte[] v = text(col.kind(), r);
          g.add(col.name(), Binary.fromConstantByteArray(v));
          h = ValueHash.ofBytes(v);
        }
      }
      hashes[c] = ValueHash.add(hashes[c], h);
    }
    return g;
  }

  private static byte[] text(Kind kind, long r) {
    if (kind == Kind.CODE) {
      return CODES[(int) ((r >>> 33) % CODES.length)].getBytes(StandardCharsets.US_ASCII);
    }
    int len = kind == Kind.WORD ? 6 + (int) ((r >>> 50) & 11) : 20 + (int) ((r >>> 40) % 61);
    byte[] b = new byte[len];
    long x = r;
    for (int i = 0; i < len; i++) {
      if ((i & 7) == 0) {
        x = mix(x, i);
      }
      b[i] = LETTERS[(int) ((x >>> ((i & 7) * 8)) & 0xff) % LETTERS.length];
    }
    return b;
  }
}
