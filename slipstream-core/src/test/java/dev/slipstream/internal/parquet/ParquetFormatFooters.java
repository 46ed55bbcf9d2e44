/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.parquet;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.parquet.format.ColumnChunk;
import org.apache.parquet.format.ColumnMetaData;
import org.apache.parquet.format.FileMetaData;
import org.apache.parquet.format.RowGroup;
import org.apache.parquet.format.Util;

/**
 * The same footer read by parquet-java's own parser (parquet-format-structures, Thrift-generated), turned
 * into what {@link ParquetFooter} keeps of each column chunk: to check that ours agrees with it, and to
 * measure the two against each other ({@link ParquetFooterParseBench}).
 */
final class ParquetFormatFooters {
  private ParquetFormatFooters() {}

  /** Where the footer of {@code file} lies: {offset, length}. */
  static int[] footerOf(byte[] file) {
    int len = (int) ParquetFooter.footerLength(file, file.length - 8);
    return new int[] {file.length - 8 - len, len};
  }

  /** The chunks of {@code footer}, row group by row group, as parquet-format-structures reads them. */
  static List<List<ParquetFooter.Chunk>> chunks(byte[] b, int off, int len) throws IOException {
    FileMetaData meta = Util.readFileMetaData(new ByteArrayInputStream(b, off, len));
    List<List<ParquetFooter.Chunk>> groups = new ArrayList<>(meta.getRow_groupsSize());
    int g = 0;
    for (RowGroup rg : meta.getRow_groups()) {
      List<ParquetFooter.Chunk> chunks = new ArrayList<>(rg.getColumnsSize());
      int c = 0;
      for (ColumnChunk cc : rg.getColumns()) {
        ColumnMetaData m = cc.getMeta_data();
        long dataPage = m.getData_page_offset();
        boolean dictionary = m.isSetDictionary_page_offset() && m.getDictionary_page_offset() > 0
            && m.getDictionary_page_offset() < dataPage;
        boolean pageIndexed = cc.isSetOffset_index_offset() && cc.getOffset_index_length() > 0;
        chunks.add(new ParquetFooter.Chunk(dictionary ? m.getDictionary_page_offset() : dataPage,
            m.getTotal_compressed_size(), dataPage, pageIndexed, g, c++));
      }
      groups.add(chunks);
      g++;
    }
    return groups;
  }
}
