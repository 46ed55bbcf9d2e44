/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.bench;

import java.util.Map;

/** What a columnar scan decoded, checked against what was written: the Parquet and ORC workloads' verify. */
final class DecodedColumns {
  private DecodedColumns() {}

  /**
   * Null if the scan read {@code rows} rows and {@code expectedColumns} columns, each with the hash of its
   * values that {@code written} holds for it; otherwise what differs.
   */
  static String mismatch(long rows, Map<String, Long> decoded, long writtenRows, Map<String, Long> written,
      int expectedColumns) {
    if (rows != writtenRows) {
      return "read " + rows + " rows, the file has " + writtenRows;
    }
    if (decoded.size() != expectedColumns) {
      return "decoded " + decoded.size() + " columns, expected " + expectedColumns;
    }
    for (Map.Entry<String, Long> e : decoded.entrySet()) {
      Long want = written.get(e.getKey());
      if (want == null || want.longValue() != e.getValue().longValue()) {
        return "the values of column " + e.getKey() + " differ from those written";
      }
    }
    return null;
  }
}
