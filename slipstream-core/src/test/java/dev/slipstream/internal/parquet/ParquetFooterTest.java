/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.parquet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import dev.slipstream.internal.parquet.ParquetFooter.Chunk;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The footer parser on footers written here field by field (ThriftWriter compact protocol, as in
 * {@code parquet.thrift}), valid ones and broken ones. Whatever the bytes, the answer is a footer or null:
 * never an exception, never an allocation sized by a number read from the file, never a hang.
 */
@Timeout(30)
class ParquetFooterTest {
  private static final int GROUPS = 3;
  private static final int COLUMNS = 4;
  private static final int CHUNK = 1000;
  /** "PAR1", then the chunks. */
  private static final long FIRST_CHUNK = 4;
  private static final long BODY = FIRST_CHUNK + (long) GROUPS * COLUMNS * CHUNK;

  // ---- a valid footer ----------------------------------------------------------------------------

  /** The same footers read by parquet-java's own parser: every chunk where it says, and the page indexes. */
  @Test
  void everyChunkIsWhereParquetFormatStructuresSaysItIs() throws Exception {
    int[][] shapes = {{1, 1, 0}, {3, 4, 0}, {5, 7, 1}, {16, 50, 1}};
    for (int[] shape : shapes) {
      byte[] file = ParquetTestFiles.file(shape[0], shape[1], 1000, 300, shape[2] == 1 ? shape[0] * shape[1] * 64 : 0,
          shape[0]);
      int[] at = ParquetFormatFooters.footerOf(file);
      ParquetFooter ours = ParquetFooter.parseFooter(file, at[0], at[1], file.length);
      List<List<Chunk>> theirs = ParquetFormatFooters.chunks(file, at[0], at[1]);
      assertThat(ours.rowGroupCount()).as("%s", java.util.Arrays.toString(shape)).isEqualTo(theirs.size());
      for (int g = 0; g < theirs.size(); g++) {
        assertThat(ours.rowGroup(g)).as("row group %d of %s", g, java.util.Arrays.toString(shape))
            .containsExactlyElementsOf(theirs.get(g));
      }
    }
  }

  @Test
  void aValidFooterGivesEveryRowGroupAndItsChunks() {
    byte[] file = file(footer(GROUPS, COLUMNS));
    ParquetFooter f = ParquetFooter.parse(file, file.length, file.length);
    assertThat(f).isNotNull();
    assertThat(f.rowGroupCount()).isEqualTo(GROUPS);
    for (int g = 0; g < GROUPS; g++) {
      List<Chunk> chunks = f.rowGroup(g);
      assertThat(chunks).hasSize(COLUMNS);
      for (int c = 0; c < COLUMNS; c++) {
        // a chunk starts at its dictionary page if it has one (even columns here), else at its data page
        assertThat(chunks.get(c)).as("group %d column %d", g, c).isEqualTo(new Chunk(chunkStart(g, c), CHUNK,
            chunkStart(g, c) + (c % 2 == 0 ? 100 : 0), false, g, c));
        assertThat(chunks.get(c).end()).isEqualTo(chunkStart(g, c) + CHUNK);
      }
    }
  }

  @Test
  void theSchemaIsTheColumnsPathsAndTypesWhateverTheRowGroupsAndBytes() throws Exception {
    ParquetFooter a = parsed(ParquetTestFiles.file(2, 4, 1_000, 100, 0, 1));
    ParquetFooter b = parsed(ParquetTestFiles.file(3, 4, 2_000, 100, 0, 2)); // other row groups, sizes, bytes
    ParquetFooter c = parsed(ParquetTestFiles.file(2, 5, 1_000, 100, 0, 1)); // a column more
    ParquetFooter d = parsed(file(footer(2, 4))); // other column names
    assertThat(a.schema()).isEqualTo(b.schema()).isNotEqualTo(c.schema()).isNotEqualTo(d.schema());
    assertThat(a.rowGroup(1).get(3).group()).isEqualTo(1);
    assertThat(a.rowGroup(1).get(3).column()).isEqualTo(3);
  }

  private static ParquetFooter parsed(byte[] file) {
    return ParquetFooter.parse(file, file.length, file.length);
  }

  @Test
  void theTailNeedNotBeTheWholeFileNorFillItsArray() {
    byte[] file = file(footer(GROUPS, COLUMNS));
    int footerAndTrailer = file.length - (int) BODY;
    // the last bytes of the file, at the start of a larger array (as a read into a reused buffer)
    byte[] tail = new byte[footerAndTrailer + 500];
    int tailLength = footerAndTrailer + 100;
    System.arraycopy(file, file.length - tailLength, tail, 0, tailLength);
    Arrays.fill(tail, tailLength, tail.length, (byte) 'P');
    ParquetFooter f = ParquetFooter.parse(tail, tailLength, file.length);
    assertThat(f).isNotNull();
    assertThat(f.rowGroupCount()).isEqualTo(GROUPS);
    assertThat(f.rowGroup(GROUPS - 1).get(COLUMNS - 1)).isEqualTo(new Chunk(chunkStart(GROUPS - 1, COLUMNS - 1), CHUNK,
        chunkStart(GROUPS - 1, COLUMNS - 1) + ((COLUMNS - 1) % 2 == 0 ? 100 : 0), false, GROUPS - 1, COLUMNS - 1));
  }

  @Test
  void locateFindsARunOfConsecutiveChunksOfOneRowGroup() {
    byte[] file = file(footer(GROUPS, COLUMNS));
    ParquetFooter f = ParquetFooter.parse(file, file.length, file.length);
    assertThat(f.locate(chunkStart(1, 1), chunkStart(1, 2) + CHUNK)).containsExactly(1, 1, 2);
    assertThat(f.locate(chunkStart(0, 0), chunkStart(0, 0) + CHUNK)).containsExactly(0, 0, 0);
    assertThat(f.locate(chunkStart(2, 0), chunkStart(2, COLUMNS - 1) + CHUNK)).containsExactly(2, 0, COLUMNS - 1);
  }

  @Test
  void locateIsNullForARangeNotOnChunkBoundaries() {
    byte[] file = file(footer(GROUPS, COLUMNS));
    ParquetFooter f = ParquetFooter.parse(file, file.length, file.length);
    assertThat(f.locate(chunkStart(1, 1) + 1, chunkStart(1, 2) + CHUNK)).isNull();
    assertThat(f.locate(chunkStart(1, 1), chunkStart(1, 2) + CHUNK - 1)).isNull();
    assertThat(f.locate(0, 4)).isNull();
    assertThat(f.locate(file.length - 8, file.length)).isNull();
  }

  @Test
  void aFooterWithoutRowGroupsIsNoPrediction() {
    byte[] file = file(footer(0, COLUMNS));
    assertThat(ParquetFooter.parse(file, file.length, file.length)).isNull();
  }

  // ---- not Parquet, or not all at hand -----------------------------------------------------------

  @Test
  void withoutTheMagicItIsNotParquet() {
    byte[] file = file(footer(GROUPS, COLUMNS));
    byte[] encrypted = file.clone();
    encrypted[encrypted.length - 1] = 'E'; // "PARE": an encrypted footer
    assertThat(ParquetFooter.parse(encrypted, encrypted.length, encrypted.length)).isNull();
    byte[] other = "just some text, long enough to have a tail".getBytes(StandardCharsets.US_ASCII);
    assertThat(ParquetFooter.parse(other, other.length, other.length)).isNull();
    // the magic, but fewer bytes than a length and two magics
    byte[] tiny = "PAR1PAR1".getBytes(StandardCharsets.US_ASCII);
    assertThat(ParquetFooter.parse(tiny, tiny.length, tiny.length)).isNull();
    assertThat(ParquetFooter.parse(new byte[0], 0, 0)).isNull();
  }

  @Test
  void aTailThatMissesTheStartOfTheFooterIsNull() {
    byte[] file = file(footer(GROUPS, COLUMNS));
    int footerAndTrailer = file.length - (int) BODY;
    for (int cut = 1; cut < footerAndTrailer - 8; cut += 7) {
      byte[] tail = Arrays.copyOfRange(file, file.length - footerAndTrailer + cut, file.length);
      assertThat(ParquetFooter.parse(tail, tail.length, file.length)).as("%d bytes missing", cut).isNull();
    }
  }

  @Test
  void aFooterLengthThatIsZeroNegativeOrPastTheTailIsNull() {
    byte[] footer = footer(GROUPS, COLUMNS);
    for (int length : new int[] {0, -1, Integer.MIN_VALUE, footer.length + 1, Integer.MAX_VALUE}) {
      byte[] file = file(footer);
      putLength(file, length);
      // the tail at hand: the footer, its length and the magic
      byte[] tail = Arrays.copyOfRange(file, file.length - footer.length - 8, file.length);
      assertThat(ParquetFooter.parse(tail, tail.length, file.length)).as("length %d", length).isNull();
    }
  }

  @Test
  void everyTruncationOfAFooterIsNull() {
    byte[] footer = footer(GROUPS, COLUMNS);
    for (int n = 0; n < footer.length; n++) {
      // the footer cut after n bytes, with a length that says so: the parser runs out of bytes
      byte[] file = file(Arrays.copyOf(footer, n));
      assertThat(ParquetFooter.parse(file, file.length, file.length)).as("cut after %d bytes", n).isNull();
    }
  }

  @Test
  void aChunkPastTheEndOfTheFileIsNull() {
    byte[] file = file(footer(GROUPS, COLUMNS));
    byte[] tail = Arrays.copyOfRange(file, (int) BODY, file.length);
    assertThat(ParquetFooter.parse(tail, tail.length, file.length)).as("for contrast").isNotNull();
    // a file said to be shorter than its last chunk's end
    assertThat(ParquetFooter.parse(tail, tail.length, BODY - 1)).isNull();
  }

  @Test
  void columnMetadataWithANegativeOrMissingOffsetOrSizeIsNull() {
    assertThat(parseOne(chunkWith(-5, 100, -1))).as("negative data page offset").isNull();
    assertThat(parseOne(chunkWith(10, 0, -1))).as("no compressed size").isNull();
    assertThat(parseOne(chunkWith(10, -100, -1))).as("negative compressed size").isNull();
    assertThat(parseOne(chunkWith(-1, 100, -1))).as("no data page offset").isNull();
    assertThat(parseOne(chunkWith(10, 100, -1))).as("a valid one, for contrast").isNotNull();
  }

  @Test
  void aColumnChunkWithoutMetadataIsNull() {
    ThriftWriter t = new ThriftWriter();
    rowGroupsHeader(t, 1);
    t.fieldStart();
    t.field(1, ThriftWriter.LIST).listHeader(1, ThriftWriter.STRUCT);
    t.fieldStart();
    t.field(2, ThriftWriter.I64).varint(zigzag(4)); // file_offset, and no meta_data
    t.stop();
    t.fieldEnd();
    t.stop();
    t.fieldEnd();
    t.stop();
    assertThat(parseFooter(t.bytes())).isNull();
  }

  // ---- malicious footers: bounded work, null --------------------------------------------------

  @Test
  void anAbsurdRowGroupCountIsNullWithoutAllocatingForIt() {
    for (long size : new long[] {Integer.MAX_VALUE, 1L << 30, 100_000}) {
      ThriftWriter t = new ThriftWriter();
      t.field(4, ThriftWriter.LIST).listHeader((int) size, ThriftWriter.STRUCT);
      t.stop();
      assertThat(parseFooter(t.bytes())).as("%d row groups", size).isNull();
    }
  }

  @Test
  void anAbsurdListSizeInASkippedFieldIsNull() {
    for (int type : new int[] {ThriftWriter.I64, ThriftWriter.STRUCT, ThriftWriter.TRUE, ThriftWriter.BYTE, ThriftWriter.DOUBLE}) {
      ThriftWriter t = new ThriftWriter();
      t.field(2, ThriftWriter.LIST).listHeader(Integer.MAX_VALUE, type); // schema
      t.stop();
      assertThat(parseFooter(t.bytes())).as("list of type %d", type).isNull();
    }
  }

  @Test
  void aListSizeNotFittingAnIntIsNull() {
    ThriftWriter t = new ThriftWriter();
    t.field(2, ThriftWriter.LIST);
    t.raw(0xf0 | ThriftWriter.BYTE).varint(Long.MAX_VALUE);
    t.stop();
    assertThat(parseFooter(t.bytes())).isNull();
  }

  @Test
  void aBinaryLengthPastTheEndIsNull() {
    for (long length : new long[] {50, Integer.MAX_VALUE, Long.MAX_VALUE, -1}) {
      ThriftWriter t = new ThriftWriter();
      t.field(6, ThriftWriter.BINARY).varint(length); // created_by
      t.raw('x').raw('y');
      t.stop();
      assertThat(parseFooter(t.bytes())).as("binary of %d bytes", length).isNull();
    }
  }

  @Test
  void aDoublePastTheEndIsNull() {
    ThriftWriter t = new ThriftWriter();
    t.field(7, ThriftWriter.DOUBLE).raw(1).raw(2);
    assertThat(parseFooter(t.bytes())).isNull();
  }

  @Test
  void deeplyNestedStructsAreNullNotAStackOverflow() {
    for (int depth : new int[] {100, 10_000, 200_000}) {
      ThriftWriter t = new ThriftWriter();
      for (int i = 0; i < depth; i++) {
        t.raw(0x10 | ThriftWriter.STRUCT); // field 1 (delta 1 from 0), a struct: and in it the same again
      }
      for (int i = 0; i <= depth; i++) {
        t.stop();
      }
      assertThat(parseFooter(t.bytes())).as("depth %d", depth).isNull();
    }
  }

  @Test
  void deeplyNestedListsAreNullNotAStackOverflow() {
    ThriftWriter t = new ThriftWriter();
    t.field(2, ThriftWriter.LIST);
    for (int i = 0; i < 100_000; i++) {
      t.listHeader(1, ThriftWriter.LIST);
    }
    t.listHeader(0, ThriftWriter.I32);
    t.stop();
    assertThat(parseFooter(t.bytes())).isNull();
  }

  @Test
  void aVarintTooLongIsNull() {
    ThriftWriter t = new ThriftWriter();
    t.field(1, ThriftWriter.I32);
    for (int i = 0; i < 20; i++) {
      t.raw(0xff);
    }
    t.raw(0x01);
    t.stop();
    assertThat(parseFooter(t.bytes())).isNull();
  }

  @Test
  void anUnknownTypeIsNull() {
    for (int type : new int[] {13, 14, 15}) {
      ThriftWriter t = new ThriftWriter();
      t.field(1, type).varint(1);
      t.stop();
      assertThat(parseFooter(t.bytes())).as("type %d", type).isNull();
    }
  }

  @Test
  void aMapWithAnAbsurdSizeOfStructsIsNull() {
    ThriftWriter t = new ThriftWriter();
    t.field(5, ThriftWriter.MAP).varint(Long.MAX_VALUE).raw(ThriftWriter.STRUCT << 4 | ThriftWriter.I32);
    t.stop();
    assertThat(parseFooter(t.bytes())).isNull();
  }

  @Test
  @Timeout(value = 10, threadMode = Timeout.ThreadMode.SEPARATE_THREAD) // enabled, it fails instead of hanging
  void aMapWithAnAbsurdSizeOfBooleansIsNullAndEndsAtOnce() {
    ThriftWriter t = new ThriftWriter();
    // map<bool, bool> claiming 2^63 - 1 entries: in collections a boolean is one byte, and there are none
    t.field(5, ThriftWriter.MAP).varint(Long.MAX_VALUE).raw(ThriftWriter.TRUE << 4 | ThriftWriter.TRUE);
    t.stop();
    assertThat(parseFooter(t.bytes())).isNull(); // it once looped 2^63 times: the size is now bounded by the bytes left
  }

  @Test
  void aChunkWhoseEndOverflowsIsNull() {
    ParquetFooter f = parseOne(chunkWith(10, Long.MAX_VALUE, -1));
    assertThat(f).isNull();
  }

  @Test
  void randomlyCorruptedFootersAreAFooterOrNullNeverAnError() {
    byte[] footer = footer(GROUPS, COLUMNS);
    Random random = new Random(2024);
    int parsed = 0;
    for (int i = 0; i < 5_000; i++) {
      byte[] broken = footer.clone();
      int flips = 1 + random.nextInt(4);
      for (int k = 0; k < flips; k++) {
        broken[random.nextInt(broken.length)] = (byte) random.nextInt(256);
      }
      byte[] file = file(broken);
      ParquetFooter[] result = new ParquetFooter[1];
      assertThatCode(() -> result[0] = ParquetFooter.parse(file, file.length, file.length))
          .as("corruption %d", i).doesNotThrowAnyException();
      if (result[0] != null) {
        parsed++;
        for (int g = 0; g < result[0].rowGroupCount(); g++) {
          for (Chunk c : result[0].rowGroup(g)) {
            assertThat(c.start()).isNotNegative();
            assertThat(c.length()).isPositive();
            assertThat(c.start() + c.length()).isLessThanOrEqualTo(file.length);
          }
        }
      }
    }
    // corruptions of skipped fields leave a good footer: the parser does not reject everything
    assertThat(parsed).isPositive();
  }

  // ---- the file, written here ----------------------------------------------------------------

  private static long chunkStart(int group, int column) {
    return FIRST_CHUNK + ((long) group * COLUMNS + column) * CHUNK;
  }

  /** "PAR1", the chunks (zeros), {@code footer}, its length, "PAR1". */
  private static byte[] file(byte[] footer) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    out.writeBytes("PAR1".getBytes(StandardCharsets.US_ASCII));
    out.writeBytes(new byte[(int) (BODY - FIRST_CHUNK)]);
    out.writeBytes(footer);
    out.writeBytes(new byte[4]);
    out.writeBytes("PAR1".getBytes(StandardCharsets.US_ASCII));
    byte[] file = out.toByteArray();
    putLength(file, footer.length);
    return file;
  }

  private static void putLength(byte[] file, int n) {
    int at = file.length - 8;
    file[at] = (byte) n;
    file[at + 1] = (byte) (n >>> 8);
    file[at + 2] = (byte) (n >>> 16);
    file[at + 3] = (byte) (n >>> 24);
  }

  private static ParquetFooter parseFooter(byte[] footer) {
    byte[] file = file(footer);
    return ParquetFooter.parse(file, file.length, file.length);
  }

  /** A footer of one row group of one chunk with this ColumnMetaData. */
  private static ParquetFooter parseOne(byte[] columnMetaData) {
    ThriftWriter t = new ThriftWriter();
    rowGroupsHeader(t, 1);
    t.fieldStart();
    t.field(1, ThriftWriter.LIST).listHeader(1, ThriftWriter.STRUCT);
    t.fieldStart();
    t.field(3, ThriftWriter.STRUCT);
    t.raw(columnMetaData);
    t.stop();
    t.fieldEnd();
    t.stop();
    t.fieldEnd();
    t.stop();
    return parseFooter(t.bytes());
  }

  /** ColumnMetaData's fields 7, 9 and 11, each left out when negative (sizes: when not positive). */
  private static byte[] chunkWith(long dataPage, long compressed, long dictionaryPage) {
    ThriftWriter t = new ThriftWriter();
    if (compressed != 0) {
      t.field(7, ThriftWriter.I64).varint(zigzag(compressed));
    }
    if (dataPage != -1) {
      t.field(9, ThriftWriter.I64).varint(zigzag(dataPage));
    }
    if (dictionaryPage >= 0) {
      t.field(11, ThriftWriter.I64).varint(zigzag(dictionaryPage));
    }
    t.stop();
    return t.bytes();
  }

  private static void rowGroupsHeader(ThriftWriter t, int groups) {
    t.field(1, ThriftWriter.I32).varint(zigzag(2)); // version
    t.field(3, ThriftWriter.I64).varint(zigzag(1000)); // num_rows
    t.field(4, ThriftWriter.LIST).listHeader(groups, ThriftWriter.STRUCT); // row_groups
  }

  /**
   * A FileMetaData as a writer lays it out, with the fields the parser skips: a schema, statistics with
   * a boolean, key-value metadata (a list of structs), a map, encodings, created_by.
   */
  static byte[] footer(int groups, int columns) {
    ThriftWriter t = new ThriftWriter();
    t.field(1, ThriftWriter.I32).varint(zigzag(2)); // version
    t.field(2, ThriftWriter.LIST).listHeader(1, ThriftWriter.STRUCT); // schema: one SchemaElement to skip
    t.fieldStart();
    t.field(4, ThriftWriter.BINARY).binary("root"); // name
    t.field(5, ThriftWriter.I32).varint(zigzag(columns)); // num_children
    t.stop();
    t.fieldEnd();
    t.field(3, ThriftWriter.I64).varint(zigzag(1000)); // num_rows
    t.field(4, ThriftWriter.LIST).listHeader(groups, ThriftWriter.STRUCT); // row_groups
    for (int g = 0; g < groups; g++) {
      t.fieldStart();
      t.field(1, ThriftWriter.LIST).listHeader(columns, ThriftWriter.STRUCT); // columns
      for (int c = 0; c < columns; c++) {
        long start = chunkStart(g, c);
        t.fieldStart();
        t.field(2, ThriftWriter.I64).varint(zigzag(start + CHUNK)); // file_offset (as old writers set it)
        t.field(3, ThriftWriter.STRUCT); // meta_data
        t.fieldStart();
        t.field(1, ThriftWriter.I32).varint(zigzag(2)); // type
        t.field(2, ThriftWriter.LIST).listHeader(2, ThriftWriter.I32).varint(zigzag(0)).varint(zigzag(3)); // encodings
        t.field(3, ThriftWriter.LIST).listHeader(1, ThriftWriter.BINARY).binary("col" + c); // path_in_schema
        t.field(4, ThriftWriter.I32).varint(zigzag(1)); // codec
        t.field(5, ThriftWriter.I64).varint(zigzag(1000)); // num_values
        t.field(6, ThriftWriter.I64).varint(zigzag(CHUNK * 2L)); // total_uncompressed_size
        t.field(7, ThriftWriter.I64).varint(zigzag(CHUNK)); // total_compressed_size
        t.field(8, ThriftWriter.LIST).listHeader(1, ThriftWriter.STRUCT); // key_value_metadata
        t.fieldStart();
        t.field(1, ThriftWriter.BINARY).binary("k");
        t.field(2, ThriftWriter.BINARY).binary("v");
        t.stop();
        t.fieldEnd();
        t.field(9, ThriftWriter.I64).varint(zigzag(start + (c % 2 == 0 ? 100 : 0))); // data_page_offset
        if (c % 2 == 0) {
          t.field(11, ThriftWriter.I64).varint(zigzag(start)); // dictionary_page_offset: the chunk starts there
        }
        t.field(13, ThriftWriter.STRUCT); // statistics: a struct to skip, with a boolean
        t.fieldStart();
        t.field(1, ThriftWriter.BINARY).binary("max");
        t.field(7, ThriftWriter.TRUE);
        t.field(8, ThriftWriter.DOUBLE).raw(new byte[8]);
        t.stop();
        t.fieldEnd();
        t.field(20, ThriftWriter.MAP).varint(2).raw(ThriftWriter.BINARY << 4 | ThriftWriter.TRUE); // a map<string, bool>
        t.binary("a").raw(1).binary("b").raw(2);
        t.field(21, ThriftWriter.LIST).listHeader(3, ThriftWriter.TRUE).raw(1).raw(2).raw(1); // a list<bool>
        t.stop();
        t.fieldEnd();
        t.stop();
        t.fieldEnd();
      }
      t.field(2, ThriftWriter.I64).varint(zigzag((long) columns * CHUNK)); // total_byte_size
      t.field(3, ThriftWriter.I64).varint(zigzag(100)); // num_rows
      t.stop();
      t.fieldEnd();
    }
    t.field(6, ThriftWriter.BINARY).binary("slipstream test"); // created_by
    t.stop();
    return t.bytes();
  }

  static long zigzag(long n) {
    return (n << 1) ^ (n >> 63);
  }

}
