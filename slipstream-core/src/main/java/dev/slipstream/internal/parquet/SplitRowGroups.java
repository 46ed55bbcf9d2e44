/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.parquet;

import java.util.List;

/**
 * The Parquet row groups a reader given a split will read: those whose midpoint lies before the split's
 * end, as Spark's {@code FileScanRDD} and parquet-java's {@code filterRowGroups} choose them (a row group
 * belongs to the split that holds its middle). What lies beyond is another task's, and is never fetched
 * ahead. Without a split end, every row group of the file.
 */
public final class SplitRowGroups {
  private SplitRowGroups() {}

  /**
   * The last row group of {@code footer} a reader of a split ending at {@code splitEnd} (exclusive; 0 or
   * less for none) reads; -1 if none.
   */
  static int last(ParquetFooter footer, long splitEnd) {
    int groups = footer.rowGroupCount();
    if (splitEnd <= 0) {
      return groups - 1;
    }
    int last = -1;
    for (int g = 0; g < groups; g++) {
      List<ParquetFooter.Chunk> chunks = footer.rowGroup(g);
      if (chunks.isEmpty()) {
        continue;
      }
      long start = Long.MAX_VALUE;
      long end = 0;
      for (ParquetFooter.Chunk c : chunks) {
        start = Math.min(start, c.start());
        end = Math.max(end, c.end());
      }
      if (start + (end - start) / 2 < splitEnd) {
        last = g;
      }
    }
    return last;
  }
}
