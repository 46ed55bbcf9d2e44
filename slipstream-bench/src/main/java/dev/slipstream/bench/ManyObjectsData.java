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
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.parquet.ParquetReadOptions;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.example.data.simple.SimpleGroupFactory;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.ParquetFileWriter;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.example.ExampleParquetWriter;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.io.LocalInputFile;
import org.apache.parquet.io.LocalOutputFile;
import org.apache.parquet.io.api.Binary;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.MessageTypeParser;

/**
 * The small Parquet objects of the {@code many-objects} workload: one file written once with parquet-java
 * (about 5 KB, two row groups, four columns, uncompressed and without dictionaries), then copied once per
 * object with that object's tag in place of a placeholder. The tag is the {@code object} column's value in
 * every row, so it sits in both row groups' data pages, in the column statistics and in the footer's
 * column index: every range a reader fetches differs from one object to the next, while making an object
 * costs a copy of a few KB instead of a Parquet writer. The tag has the placeholder's length, so every
 * offset of the file stays right; the writer leaves out page checksums, the only bytes that would cover it.
 *
 * @param template the file with the placeholder
 * @param tagOffsets where the placeholder starts, each occurrence
 * @param rows rows per file
 * @param rowGroups row groups per file
 * @param columnHashes the {@link ValueHash} of each column but {@value #TAG_COLUMN}, the same in every object
 */
record ManyObjectsData(byte[] template, int[] tagOffsets, long rows, int rowGroups, Map<String, Long> columnHashes) {
  static final String TAG_COLUMN = "object";
  private static final int TAG_LENGTH = 12;
  private static final byte[] PLACEHOLDER = "o-##########".getBytes(StandardCharsets.US_ASCII);
  private static final int ROWS_PER_GROUP = 48;

  static final MessageType SCHEMA = MessageTypeParser.parseMessageType("""
      message many {
        required int64 id;
        required double value;
        required binary name (STRING);
        required binary object (STRING);
      }""");

  /** The tag of object {@code i}: {@code o-} and ten digits. */
  static byte[] tag(int i) {
    return String.format("o-%010d", i).getBytes(StandardCharsets.US_ASCII);
  }

  /** The bytes of object {@code i}: the template with its tag. */
  byte[] object(int i) {
    byte[] b = template.clone();
    byte[] t = tag(i);
    for (int off : tagOffsets) {
      System.arraycopy(t, 0, b, off, TAG_LENGTH);
    }
    return b;
  }

  /** The {@link ValueHash} of the {@value #TAG_COLUMN} column of object {@code i}. */
  long tagHash(int i) {
    long v = ValueHash.ofBytes(tag(i));
    long h = ValueHash.START;
    for (long r = 0; r < rows; r++) {
      h = ValueHash.add(h, v);
    }
    return h;
  }

  /** What a scan of object {@code i} must have decoded, or null when it did. */
  String check(int i, ParquetScan.Outcome o) {
    if (o.rows() != rows) {
      return "read " + o.rows() + " rows, the object has " + rows;
    }
    if (o.columnHashes().size() != columnHashes.size() + 1) {
      return "decoded " + o.columnHashes().size() + " columns, expected " + (columnHashes.size() + 1);
    }
    for (Map.Entry<String, Long> e : o.columnHashes().entrySet()) {
      long want = e.getKey().equals(TAG_COLUMN) ? tagHash(i) : columnHashes.getOrDefault(e.getKey(), 0L);
      if (want != e.getValue()) {
        return "the values of column " + e.getKey() + " differ from those written";
      }
    }
    return null;
  }

  /** Writes the template in {@code scratch} (deleted again) with values drawn from {@code seed}. */
  static ManyObjectsData generate(Path scratch, long seed) throws IOException {
    Path file = scratch.resolve("many-objects-template.parquet");
    Files.deleteIfExists(file);
    long[] hashes = new long[3];
    Arrays.fill(hashes, ValueHash.START);
    SimpleGroupFactory groups = new SimpleGroupFactory(SCHEMA);
    long rows = 2L * ROWS_PER_GROUP;
    try (ParquetWriter<Group> writer = ExampleParquetWriter.builder(new LocalOutputFile(file))
        .withConf(new Configuration(false))
        .withType(SCHEMA)
        .withCompressionCodec(CompressionCodecName.UNCOMPRESSED)
        .withDictionaryEncoding(false)
        .withPageWriteChecksumEnabled(false)
        .withRowGroupRowCountLimit(ROWS_PER_GROUP)
        .withWriteMode(ParquetFileWriter.Mode.OVERWRITE)
        .build()) {
      for (long r = 0; r < rows; r++) {
        long x = mix(seed, r);
        double value = (x >>> 11) * 0x1.0p-53 * 1000.0;
        byte[] name = word(x);
        writer.write(groups.newGroup().append("id", r).append("value", value)
            .append("name", Binary.fromConstantByteArray(name))
            .append(TAG_COLUMN, Binary.fromConstantByteArray(PLACEHOLDER)));
        hashes[0] = ValueHash.add(hashes[0], r);
        hashes[1] = ValueHash.add(hashes[1], Double.doubleToLongBits(value));
        hashes[2] = ValueHash.add(hashes[2], ValueHash.ofBytes(name));
      }
    }
    byte[] template = Files.readAllBytes(file);
    int rowGroups;
    try (ParquetFileReader r = ParquetFileReader.open(new LocalInputFile(file), ParquetReadOptions.builder().build())) {
      rowGroups = r.getFooter().getBlocks().size();
    }
    Files.deleteIfExists(file);
    Map<String, Long> byName = new LinkedHashMap<>();
    byName.put("id", hashes[0]);
    byName.put("value", hashes[1]);
    byName.put("name", hashes[2]);
    return new ManyObjectsData(template, occurrences(template, PLACEHOLDER), rows, rowGroups, Map.copyOf(byName));
  }

  private static int[] occurrences(byte[] in, byte[] what) {
    List<Integer> at = new ArrayList<>();
    for (int i = 0; i + what.length <= in.length; i++) {
      if (Arrays.equals(in, i, i + what.length, what, 0, what.length)) {
        at.add(i);
        i += what.length - 1;
      }
    }
    return at.stream().mapToInt(Integer::intValue).toArray();
  }

  private static byte[] word(long x) {
    int len = 5 + (int) ((x >>> 50) & 7);
    byte[] b = new byte[len];
    for (int i = 0; i < len; i++) {
      b[i] = (byte) ('a' + (int) (((x >>> (i * 5)) & 31) % 26));
    }
    return b;
  }
}
