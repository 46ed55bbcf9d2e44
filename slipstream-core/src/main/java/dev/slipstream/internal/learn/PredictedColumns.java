/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.learn;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.Ticker;

import java.time.Duration;
import java.util.Arrays;
import java.util.BitSet;

/**
 * The columns a client's readers read whole from the files of one schema ({@code parquet.ParquetFooter#schema}, or an
 * ORC file's types, keyed apart by {@code read.StripeStreamsAhead}):
 * a query reads the same columns from every file of a table, so once a stream touches such a column, its
 * chunks in the rest of the file are fetched together ({@code read.ColumnsAhead}) instead of one round trip
 * after another as the reader asks. A column is predicted once the last two files that touched it read
 * it whole (at least three quarters of the bytes of its chunks they touched); a file that touched it
 * and read only a part of it (pages a column index selected, a dictionary page of a row group its
 * filter then dropped) starts it over.
 *
 * <p>Switched off for a schema for good once, over at least {@link #JUDGED_AFTER} files with predicted
 * bytes, more than a quarter of those bytes went unread (row groups skipped by their statistics, tasks
 * that each read a part of one file). Bounded in bytes and time: at most {@link #MAX_BYTES} for all
 * schemas ({@link #weight}), and a schema no stream closed on for {@link ByVersion#IDLE} is forgotten
 * (relearnt from two files if its table is read again). Thread-safe; one per client.
 */
public final class PredictedColumns {
  /** The most heap the schemas' counts take: 256 KiB, a thousand schemas of a few dozen columns. */
  public static final long MAX_BYTES = 256L << 10;
  /**
   * The columns a schema's counts go up to: an entry weighs at most a quarter of {@link #MAX_BYTES} (4 bytes
   * a column), so that no schema, however wide its file says it is, costs an array larger than that (a
   * hostile ORC file may name millions of types) or pushes every other out. Columns past it are not
   * counted, and so never predicted: a table that wide is read as if no columns were predicted for it.
   */
  static final int MAX_COLUMNS = (int) (MAX_BYTES / 4 / 4);
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

  /** Guarded by {@code this} for the counts in each {@link Use}; the cache bounds and expires the entries. */
  private final Cache<Long, Use> schemas;

  /** @param idle how long a schema no stream closed on is remembered: its footers' ({@link ByVersion#IDLE}) */
  public PredictedColumns(Duration idle, Ticker ticker) {
    this.schemas = Caffeine.newBuilder()
        .maximumWeight(MAX_BYTES)
        .weigher(PredictedColumns::weight)
        .expireAfterAccess(idle)
        .executor(Runnable::run)
        .ticker(ticker)
        .build();
  }

  /**
   * The heap a schema's entry takes, estimated: the cache's node (64) and hash-table entry (40), the
   * boxed schema (16), the {@link Use} (40) and its array (16 and 4 a column).
   */
  private static int weight(Long schema, Use u) {
    return 64 + 40 + 16 + 40 + 16 + 4 * u.wholeInARow.length;
  }

  /** The columns of {@code schema} to fetch ahead once a stream touches them; null when there are none. */
  public synchronized BitSet predict(long schema) {
    Use u = schemas.getIfPresent(schema);
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

  /** Whether predictions for {@code schema} are switched off: too many bytes fetched ahead went unread. */
  public synchronized boolean off(long schema) {
    Use u = schemas.getIfPresent(schema);
    return u != null && u.off;
  }

  /**
   * A stream of a file of {@code schema} closed: it touched the chunks of {@code touched}, read {@code
   * whole} of them whole, and fetched {@code predicted} bytes by prediction of which {@code unread} went
   * unread.
   */
  public synchronized void closed(long schema, BitSet touched, BitSet whole, long predicted, long unread) {
    if (touched.isEmpty()) {
      // A footer stream, or one opened ahead and never read (what it fetched went unread for want of a
      // reader, which open-ahead's own judge counts): it says nothing of the columns.
      return;
    }
    Use u = schemas.get(schema, s -> new Use());
    if (predicted > 0) {
      u.filesPredicted++;
      u.predicted += predicted;
      u.unread += unread;
      if (u.filesPredicted >= JUDGED_AFTER && u.unread * 4 > u.predicted) {
        u.off = true;
      }
    }
    int width = Math.min(touched.length(), MAX_COLUMNS);
    if (width > u.wholeInARow.length) {
      u.wholeInARow = Arrays.copyOf(u.wholeInARow, width);
      schemas.put(schema, u); // weighed again
    }
    for (int c = touched.nextSetBit(0); c >= 0 && c < width; c = touched.nextSetBit(c + 1)) {
      u.wholeInARow[c] = whole.get(c) ? Math.min(u.wholeInARow[c] + 1, WHOLE_IN_A_ROW) : 0;
    }
  }

  /** Schemas kept, expired ones dropped first (for tests and diagnostics). */
  public long size() {
    schemas.cleanUp();
    return schemas.estimatedSize();
  }
}
