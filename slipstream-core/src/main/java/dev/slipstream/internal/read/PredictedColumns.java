/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.read;

import java.util.Arrays;
import java.util.BitSet;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The columns a client's readers read whole from the files of one schema ({@link ParquetFooter#schema}):
 * a query reads the same columns from every file of a table, so once a stream touches such a column, its
 * chunks in the rest of the file are fetched together ({@link ColumnsAhead}) instead of one round trip
 * after another as the reader asks. A column is predicted once the last two files that touched it read
 * it whole (at least three quarters of the bytes of its chunks they touched); a file that touched it
 * and read only a part of it (pages a column index selected, a dictionary page of a row group its
 * filter then dropped) starts it over.
 *
 * <p>Switched off for a schema for good once, over at least {@link #JUDGED_AFTER} files with predicted
 * bytes, more than a quarter of those bytes went unread (row groups skipped by their statistics, tasks
 * that each read a part of one file). Bounded: the last {@link #MAX_SCHEMAS} schemas. Thread-safe; one
 * per client.
 */
final class PredictedColumns {
  static final int MAX_SCHEMAS = 256;
  /** Files with predicted bytes before their unread share is judged. */
  static final int JUDGED_AFTER = 4;
  /** Files in a row that read a column whole before it is predicted. */
  static final int WHOLE_IN_A_ROW = 2;

  private static final class Use {
    /** By column: the files in a row, among those that touched it, that read it whole. */
    int[] wholeInARow = new int[0];
    int filesPredicted;
    long predicted;
    long unread;
    boolean off;
  }

  private final Map<Long, Use> schemas = new LinkedHashMap<>(16, 0.75f, true) {
    @Override
    protected boolean removeEldestEntry(Map.Entry<Long, Use> eldest) {
      return size() > MAX_SCHEMAS;
    }
  };

  /** The columns of {@code schema} to fetch ahead once a stream touches them; null when there are none. */
  synchronized BitSet predict(long schema) {
    Use u = schemas.get(schema);
    if (u == null || u.off) {
      return null;
    }
    BitSet columns = new BitSet();
    for (int c = 0; c < u.wholeInARow.length; c++) {
      if (u.wholeInARow[c] >= WHOLE_IN_A_ROW) {
        columns.set(c);
      }
    }
    return columns.isEmpty() ? null : columns;
  }

  /**
   * A stream of a file of {@code schema} closed: it touched the chunks of {@code touched}, read {@code
   * whole} of them whole, and fetched {@code predicted} bytes by prediction of which {@code unread} went
   * unread.
   */
  synchronized void closed(long schema, BitSet touched, BitSet whole, long predicted, long unread) {
    if (touched.isEmpty() && predicted == 0) {
      return; // a footer stream, say: it says nothing of the columns
    }
    Use u = schemas.computeIfAbsent(schema, s -> new Use());
    if (predicted > 0) {
      u.filesPredicted++;
      u.predicted += predicted;
      u.unread += unread;
      if (u.filesPredicted >= JUDGED_AFTER && u.unread * 4 > u.predicted) {
        u.off = true;
      }
    }
    if (touched.length() > u.wholeInARow.length) {
      u.wholeInARow = Arrays.copyOf(u.wholeInARow, touched.length());
    }
    for (int c = touched.nextSetBit(0); c >= 0; c = touched.nextSetBit(c + 1)) {
      u.wholeInARow[c] = whole.get(c) ? Math.min(u.wholeInARow[c] + 1, WHOLE_IN_A_ROW) : 0;
    }
  }
}
