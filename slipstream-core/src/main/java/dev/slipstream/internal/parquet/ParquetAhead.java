/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.parquet;

import dev.slipstream.ReadStatistics;
import dev.slipstream.S3Location;
import dev.slipstream.internal.ahead.AheadFetch;
import dev.slipstream.internal.ahead.HeldSpans;
import dev.slipstream.internal.ahead.ReadsAhead;

/**
 * What a stream fetches ahead of a Parquet reader, the one part of this room the stream tells: the
 * predicted columns' chunks at their first read ({@link ColumnsAhead}), and, at vectored reads once the
 * stream has a footer, the later row groups' same chunks ({@link RowGroupsAhead}, made at the first
 * vectored read that finds the footer). At close it tells the client's predictions what the stream fetched
 * ahead and left unread ({@link StreamFooter#closed}). A stream of the file expected next follows this one
 * ({@link #followedBy}): it fetches the predicted columns this one's reads touch; and this one, read after
 * another stream of the same thread ({@link #after}), fetches that one's columns at its first touch of one of
 * them. Nothing before the footer is known: a stream of
 * another format finds every moment a no-op. Thread-safe.
 */
public final class ParquetAhead implements ReadsAhead {
  private final StreamFooter parquet;
  private final ColumnsAhead columns;
  private final HeldSpans spans;
  private final AheadFetch rowGroupsFetch;
  private final ReadStatistics stats;
  private final int blockSize;
  private final int pieceSize;
  private final long splitEnd;
  /** The row groups read ahead, once a vectored read found the footer; guarded by {@code this}. */
  private RowGroupsAhead rowGroups;
  /** The stream closed: no row groups are read ahead from now on; guarded by {@code this}. */
  private boolean closing;

  /**
   * @param parquet the stream's footer
   * @param spans the stream's store: what it holds is not fetched ahead, and what is fetched ahead is held there
   * @param columnsFetch how predicted chunks are fetched ahead
   * @param rowGroupsFetch how row groups' pieces are fetched ahead
   * @param blockSize the stream's block size
   * @param pieceSize the largest span
   * @param location the object
   * @param length the object's length
   * @param splitEnd the end (exclusive) of the caller's split, or 0 or less for none
   */
  public ParquetAhead(StreamFooter parquet, HeldSpans spans, AheadFetch columnsFetch, AheadFetch rowGroupsFetch,
      ReadStatistics stats, int blockSize, int pieceSize, S3Location location, long length, long splitEnd) {
    this.parquet = parquet;
    this.columns = new ColumnsAhead(parquet, spans, columnsFetch, stats, blockSize, pieceSize, location, length, splitEnd);
    this.spans = spans;
    this.rowGroupsFetch = rowGroupsFetch;
    this.stats = stats;
    this.blockSize = blockSize;
    this.pieceSize = pieceSize;
    this.splitEnd = splitEnd;
  }

  @Override
  public void onRead(long position, int len) {
    columns.onRead(position, len);
  }

  @Override
  public void onVectoredRead(long position, int len) {
    columns.onRead(position, len);
    RowGroupsAhead rg = rowGroups(true);
    if (rg != null) {
      rg.onRead(position, len);
    }
  }

  @Override
  public void after(ReadsAhead previous) {
    if (previous instanceof ParquetAhead p) {
      columns.after(p.columns);
    }
  }

  @Override
  public void followedBy(ReadsAhead next) {
    if (next instanceof ParquetAhead p) {
      columns.followedBy(p.columns);
    }
  }

  @Override
  public void stop(boolean close) {
    RowGroupsAhead rg;
    synchronized (this) {
      closing |= close;
      rg = rowGroups;
    }
    if (close) {
      columns.stop();
    }
    if (rg != null && close) {
      rg.close();
    } else if (rg != null) {
      rg.clear();
    }
  }

  @Override
  public void closed() {
    RowGroupsAhead rg = rowGroups(false);
    long fetchedToEnd = rg == null ? 0 : rg.fetchedToEnd();
    long unreadToEnd = rg == null ? 0 : rg.unreadToEnd();
    parquet.closed(columns.predictedBytes() + fetchedToEnd, columns.unreadBytes() + unreadToEnd);
  }

  /** The row groups read ahead; made, if {@code make}, once the stream has a footer and is open; else null. */
  private synchronized RowGroupsAhead rowGroups(boolean make) {
    if (rowGroups == null && make && !closing) {
      ParquetFooter footer = parquet.footer();
      if (footer != null) {
        // Through the chain: a row group fetched ahead by an earlier query is read from disk.
        rowGroups = new RowGroupsAhead(footer, spans, rowGroupsFetch, stats, blockSize, pieceSize, splitEnd,
            parquet::predictionsOff);
      }
    }
    return rowGroups;
  }
}
