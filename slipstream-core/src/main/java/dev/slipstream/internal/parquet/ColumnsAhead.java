/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.parquet;

import dev.slipstream.Counter;
import dev.slipstream.ReadStatistics;
import dev.slipstream.S3Location;
import dev.slipstream.internal.ahead.AheadFetch;
import dev.slipstream.internal.ahead.HeldSpans;
import dev.slipstream.internal.ahead.ReadsAhead;
import java.lang.ref.WeakReference;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;

/**
 * Predicted columns in one stream, the stream's share of the client's {@link
 * dev.slipstream.internal.learn.PredictedColumns}: when a stream first touches a column that the client's
 * readers read whole from the last files of this schema, that column's chunks from the read's row group to
 * the file's end are fetched at once, in parallel, and held in the stream's spans as spans fetched ahead
 * ({@link HeldSpans#addAhead}); what reads copied of each is counted here, and what they did not is counted
 * unread when it goes ({@link #predictedBytes}, {@link #unreadBytes}): what the client judges a schema's
 * predictions by when the stream closes. A reader then finds the
 * dictionary pages its filter reads, row group after row group, and the chunks it decodes in memory: one
 * round trip for the column, not one per row group in turn. A column the stream does not touch is never
 * fetched: a query that reads other columns than the last one wastes nothing on them.
 *
 * <p>A stream that read the page indexes before touching a column filters pages by a column index: the
 * chunks with an offset index, of which it may read only some pages, are left out.
 *
 * <p><b>The next files.</b> Where the stream of the file a reader opens next is prepared while this one is
 * read ({@link #followedBy}), it fetches the same predicted columns from its first row group as soon as this
 * stream touches them: the task finds them in memory when it moves on, instead of a round trip a column
 * after its footer. Only columns this stream touched, so a query that reads other columns than the last one
 * fetches none of the last one's; and only for a file of the same schema.
 *
 * <p><b>The file before.</b> A stream the same thread opens after another of the same table ({@link #after})
 * reads, most likely, what that one read: at its first touch of a predicted column, if the stream before
 * touched that column too, the other predicted columns it touched are fetched with it, in one wave, instead
 * of each at its own first read (a filter's column at its dictionary page, the others at the row group's
 * read, one round trip later).
 *
 * <p>Bounded by the stream's one budget for bytes held ahead ({@link
 * dev.slipstream.internal.ahead.AheadBudget}, shared with every other part that fetches ahead), and by the
 * pool's free memory (never waiting, never evicting). Bytes the stream holds already are left out.
 * Thread-safe.
 */
public final class ColumnsAhead implements ReadsAhead {
  private final StreamFooter parquet;
  private final HeldSpans spans;
  private final AheadFetch ahead;
  private final ReadStatistics stats;
  private final int pieceSize;
  /** The most bytes of pieces one fetch fills: whole pieces, up to a block. */
  private final int runMax;
  /** The columns touched so far, each fetched ahead at most once; guarded by {@code this}. */
  private final BitSet touched = new BitSet();
  /** The columns to fetch ahead, asked once the stream has a footer; guarded by {@code this}. */
  private BitSet predicted;
  private final long length;
  /** Bytes of predicted chunks fetched and gone so far, and how many of them no read copied; guarded by itself. */
  private final long[] accounts = new long[2];
  private final long splitEnd;
  /** The predicted columns touched or told so far, which each stream following this one is told; guarded by {@code this}. */
  private final BitSet told = new BitSet();
  /** The parts of the streams of the files read after this one ({@link #followedBy}); guarded by {@code this}. */
  private final List<ColumnsAhead> followers = new ArrayList<>();
  /** The stream closed: no more followers; guarded by {@code this}. */
  private boolean stopped;
  /** The table the file belongs to, as its key tells ({@link #table}). */
  private final String table;
  /**
   * The part of the stream the same thread read before this one, of the same table ({@link #after}), asked
   * once, at this stream's first touch of a predicted column; weak: it is closed by then, most often. Guarded
   * by {@code this}.
   */
  private WeakReference<ColumnsAhead> before;

  /**
   * @param spans the bytes the stream holds: what a prediction leaves out, and where the chunks fetched here
   *     are held
   * @param ahead how a run of pieces is fetched and held, into their buffers end to end
   * @param blockSize the stream's block size: a run of pieces up to it is one fetch
   * @param pieceSize the largest span: a block at most, and below half a G1 region ({@link
   *     dev.slipstream.internal.block.HeapRegions#largestOrdinary})
   * @param location the object: which table its file belongs to ({@link #table})
   * @param length the object's length
   * @param splitEnd the end (exclusive) of the caller's split, or 0 or less for none: the row groups after
   *     the split's last ({@link SplitRowGroups}) are another reader's, and are not fetched
   */
  public ColumnsAhead(StreamFooter parquet, HeldSpans spans, AheadFetch ahead, ReadStatistics stats, int blockSize,
      int pieceSize, S3Location location, long length, long splitEnd) {
    this.parquet = parquet;
    this.table = table(location);
    this.spans = spans;
    this.ahead = ahead;
    this.stats = stats;
    this.pieceSize = pieceSize;
    this.runMax = Math.max(1, blockSize / pieceSize) * pieceSize;
    this.length = length;
    this.splitEnd = splitEnd;
  }

  /**
   * A columnar read of {@code [position, position + len)}: the predicted columns it touches for the first
   * time are fetched from its row group on (the read's own chunk among them: the read then waits for
   * that fetch instead of making its own).
   */
  @Override
  public void onRead(long position, int len) {
    ParquetFooter footer = parquet.footer();
    if (footer == null) {
      return;
    }
    BitSet fresh = new BitSet();
    BitSet others;
    int fromGroup = Integer.MAX_VALUE;
    ColumnsAhead previous = null;
    synchronized (this) {
      predicted();
      for (ParquetFooter.Chunk c = footer.chunkFrom(position); c != null && c.start() < position + len;
          c = footer.chunkAfter(c)) {
        if (!touched.get(c.column())) {
          touched.set(c.column());
          if (predicted.get(c.column())) {
            fresh.set(c.column());
            fromGroup = Math.min(fromGroup, c.group());
          }
        }
      }
      others = (BitSet) predicted.clone();
      others.andNot(touched);
      if (!fresh.isEmpty() && before != null) {
        previous = before.get();
        before = null;
      }
    }
    if (fresh.isEmpty()) {
      return;
    }
    BitSet columns = fresh;
    BitSet same = previous == null ? null : previous.sameQuery(footer.schema(), fresh);
    if (same != null) {
      // The reader reads what the file before read: its other predicted columns come in this same wave.
      synchronized (this) {
        same.and(predicted);
        same.andNot(touched);
        same.andNot(told);
        others.andNot(same);
      }
      columns = (BitSet) fresh.clone();
      columns.or(same);
    }
    boolean pagesFiltered = parquet.indexesRead();
    fetchAhead(footer, columns, others, fromGroup, pagesFiltered);
    tell(footer.schema(), columns, pagesFiltered);
  }

  /**
   * This stream is read after {@code previous}, the stream the same thread read before (see {@link #sameQuery}):
   * nothing if it is of another table.
   */
  public void after(ColumnsAhead previous) {
    if (previous == this || !previous.table.equals(table)) {
      return;
    }
    synchronized (this) {
      if (!stopped) {
        before = new WeakReference<>(previous);
      }
    }
  }

  /**
   * The predicted columns this stream touched or was told, if its file is of {@code schema} and they
   * include every one of {@code first}, the first predicted columns the stream read after this one touched:
   * then its reader is most likely the same query's, and reads the same columns. Null otherwise (another
   * query, another schema). A query that reads the same table after one that read other columns starts with
   * a column the last one did not read, and so gets nothing of the last one's.
   */
  private BitSet sameQuery(long schema, BitSet first) {
    ParquetFooter footer = parquet.footer();
    if (footer == null || footer.schema() != schema) {
      return null;
    }
    synchronized (this) {
      BitSet missing = (BitSet) first.clone();
      missing.andNot(told);
      return missing.isEmpty() ? (BitSet) told.clone() : null;
    }
  }

  /**
   * The table a file belongs to, as far as its key tells: its bucket and its key up to the first Hive-style
   * partition directory ({@code name=value}), or up to its own directory where there is none.
   */
  static String table(S3Location location) {
    String key = location.key();
    int end = key.lastIndexOf('/') + 1;
    for (int from = 0, slash = key.indexOf('/'); slash >= 0 && slash < end; from = slash + 1, slash = key.indexOf('/', from)) {
      if (key.lastIndexOf('=', slash) >= from) {
        end = from;
        break;
      }
    }
    return location.bucket() + "/" + key.substring(0, end);
  }

  /** The columns predicted for this file's schema, asked once. Called holding the lock, with a footer. */
  private BitSet predicted() {
    if (predicted == null) {
      BitSet p = parquet.predictedColumns();
      predicted = p == null ? new BitSet() : p;
    }
    return predicted;
  }

  /**
   * {@code next}, the part of a stream of the file expected after this one, fetches the predicted columns
   * this stream touched so far, and those it touches until it closes, from the next file's first row group
   * (as {@link #fetchAsNext} says).
   */
  public void followedBy(ColumnsAhead next) {
    BitSet now;
    long schema;
    synchronized (this) {
      ParquetFooter footer = parquet.footer();
      if (stopped || next == this) {
        return;
      }
      followers.add(next);
      if (footer == null || told.isEmpty()) {
        return;
      }
      now = (BitSet) told.clone();
      schema = footer.schema();
    }
    next.fetchAsNext(schema, now, parquet.indexesRead());
  }

  /**
   * The stream of the file read before this one, of {@code schema}, touched the predicted {@code columns}:
   * of them, those predicted for this file too and not fetched yet are fetched from its first row group to
   * its end (its split's end), within the budget, and told to the streams following this one. Nothing if
   * this file's footer is not known yet or is of another schema. {@code pagesFiltered}: the reader filtered
   * pages by a column index there, and will here, so chunks with an offset index are left out.
   */
  void fetchAsNext(long schema, BitSet columns, boolean pagesFiltered) {
    ParquetFooter footer = parquet.footer();
    if (footer == null || footer.schema() != schema) {
      return;
    }
    BitSet fresh = (BitSet) columns.clone();
    BitSet others;
    synchronized (this) {
      if (stopped) {
        return;
      }
      fresh.and(predicted());
      fresh.andNot(touched);
      fresh.andNot(told);
      // Told, not touched: the reader's own first read of such a column still fetches what is missing.
      told.or(fresh);
      others = (BitSet) predicted.clone();
      others.andNot(touched);
      others.andNot(told);
    }
    if (!fresh.isEmpty()) {
      fetchAhead(footer, fresh, others, 0, pagesFiltered);
      tell(schema, fresh, pagesFiltered);
    }
  }

  /** Tells the streams following this one the predicted {@code columns} it touched or was told. */
  private void tell(long schema, BitSet columns, boolean pagesFiltered) {
    List<ColumnsAhead> next;
    synchronized (this) {
      told.or(columns);
      if (followers.isEmpty()) {
        return;
      }
      next = List.copyOf(followers);
    }
    for (ColumnsAhead f : next) {
      f.fetchAsNext(schema, columns, pagesFiltered);
    }
  }

  /** The stream closes: nothing more is told to the streams that followed it, and none follows it now. */
  public synchronized void stop() {
    stopped = true;
    followers.clear();
  }

  /**
   * Fetches the chunks of {@code columns} in row groups {@code fromGroup} on, adjacent chunks in one
   * request. A chunk under {@link AheadFetch#MIN_GET} takes its neighbours of the {@code others} predicted
   * columns (not touched yet) along, up to that size: a reader that reads two small adjacent columns
   * touches one first, and the other would otherwise cost a small request of its own.
   */
  private void fetchAhead(ParquetFooter footer, BitSet columns, BitSet others, int fromGroup, boolean pagesFiltered) {
    List<long[]> runs = new ArrayList<>();
    int lastGroup = SplitRowGroups.last(footer, splitEnd);
    for (int g = fromGroup; g <= lastGroup; g++) {
      List<ParquetFooter.Chunk> chunks = footer.rowGroup(g);
      boolean[] take = new boolean[chunks.size()];
      for (int i = 0; i < take.length; i++) {
        ParquetFooter.Chunk c = chunks.get(i);
        // Not predicted; or a reader that filters pages may read only some of this chunk's.
        take[i] = columns.get(c.column()) && !(pagesFiltered && c.pageIndexed());
      }
      for (int i = 0; i < take.length; i++) {
        // Small neighbours only: a large one would be a large waste if the reader does not read it.
        if (!columns.get(chunks.get(i).column()) || !take[i] || chunks.get(i).length() >= AheadFetch.MIN_GET) {
          continue;
        }
        long size = chunks.get(i).length();
        for (int j = i - 1; j >= 0 && size < AheadFetch.MIN_GET && takesAlong(chunks.get(j), chunks.get(j + 1), others, pagesFiltered); j--) {
          take[j] = true;
          size += chunks.get(j).length();
        }
        for (int j = i + 1; j < take.length && size < AheadFetch.MIN_GET && takesAlong(chunks.get(j), chunks.get(j - 1), others, pagesFiltered); j++) {
          take[j] = true;
          size += chunks.get(j).length();
        }
      }
      for (int i = 0; i < take.length; i++) {
        ParquetFooter.Chunk c = chunks.get(i);
        if (!take[i]) {
          continue;
        }
        long[] last = runs.isEmpty() ? null : runs.get(runs.size() - 1);
        if (last != null && last[1] == c.start()) {
          last[1] = c.end(); // adjacent columns: one run, one request
        } else {
          runs.add(new long[] {c.start(), c.end()});
        }
      }
    }
    for (int i = 0; i < runs.size(); i++) {
      long previous = i > 0 ? runs.get(i - 1)[1] : 0;
      long next = i + 1 < runs.size() ? runs.get(i + 1)[0] : length;
      if (!fetchRun(runs.get(i)[0], runs.get(i)[1], previous, next)) {
        return;
      }
    }
  }

  /** Whether {@code c}, next to {@code neighbour} in the file, is of a predicted column not touched yet. */
  private static boolean takesAlong(ParquetFooter.Chunk c, ParquetFooter.Chunk neighbour, BitSet others,
      boolean pagesFiltered) {
    return others.get(c.column()) && !(pagesFiltered && c.pageIndexed()) && c.length() < AheadFetch.MIN_GET
        && (c.end() == neighbour.start() || neighbour.end() == c.start());
  }

  /**
   * Fetches {@code [start, end)} but for what the stream holds at its end, in pieces, within the stream's budget;
   * false once the budget, the free memory or the stream is gone. A run under {@link AheadFetch#MIN_GET}
   * is fetched with bytes around it up to that floor (a round trip costs more): first those before it,
   * back to {@code from} (the run before), then those after it, up to {@code limit} (the next run); never
   * bytes the stream holds. Before first: a reader that reads the chunk before this one would otherwise
   * find this span where its own read's floor would reach, and make a small request. The bytes around
   * are not counted as predicted.
   */
  private boolean fetchRun(long start, long end, long from, long limit) {
    end = spans.unheldEnd(start, end);
    if (end <= start) {
      return true; // held already
    }
    long fetchStart = start;
    long fetchEnd = end;
    if (end - start < AheadFetch.MIN_GET) {
      fetchStart = Math.max(Math.max(from, spans.previousEnd(start)), end - AheadFetch.MIN_GET);
      fetchEnd = Math.max(end, Math.min(Math.min(fetchStart + AheadFetch.MIN_GET, limit), Math.min(spans.nextStart(end), length)));
    }
    long chunkStart = start;
    for (long p = fetchStart; p < fetchEnd; ) {
      // A run of pieces up to a block, one fetch into their buffers end to end: the GETs of one buffer.
      List<byte[]> buffers = new ArrayList<>();
      int len = 0;
      boolean stopped = false;
      while (len < runMax && p + len < fetchEnd) {
        // Never a piece cut short by the budget: a tier finds a range only by its bounds, and another
        // stream (another host) cuts the same run into whole pieces (RangeThrough).
        int n = (int) Math.min(pieceSize, fetchEnd - p - len);
        byte[] buffer = ahead.buffer(n);
        if (buffer == null) {
          stopped = true; // over the budget, memory is short, or the stream closed: no more predictions now
          break;
        }
        buffers.add(buffer);
        len += n;
      }
      if (!buffers.isEmpty()) {
        fetchPieces(p, buffers, len, chunkStart, end);
      }
      if (stopped) {
        return false;
      }
      p += len;
    }
    return true;
  }

  /**
   * Holds {@code buffers}, pieces of {@code [p, p + len)} end to end, as spans fetched ahead, and fetches
   * them with one range; of their bytes, those of {@code [chunkStart, chunkEnd)} are counted predicted.
   */
  private void fetchPieces(long p, List<byte[]> buffers, int len, long chunkStart, long chunkEnd) {
    ahead.start(p, buffers, len, pieceSize, buffer -> { }, span -> {
      // The bytes around a small run are not predicted.
      long chunkBytes = Math.max(0, Math.min(span.end(), chunkEnd) - Math.max(span.start(), chunkStart));
      stats.add(Counter.PREDICTED_COLUMN_BYTES, chunkBytes);
      return copied -> gone(chunkBytes, copied);
    }, false);
  }

  /**
   * A span fetched here went (released, or dropped when its fetch failed): of its {@code chunkBytes} of
   * predicted chunks, those no read copied are counted unread.
   */
  private void gone(long chunkBytes, long copied) {
    long unread = Math.max(0, chunkBytes - copied);
    synchronized (accounts) {
      accounts[0] += chunkBytes;
      accounts[1] += unread;
    }
    stats.add(Counter.PREDICTED_COLUMN_BYTES_UNREAD, unread);
  }

  /** Bytes of predicted chunks fetched and gone so far (close, unbuffer). */
  public long predictedBytes() {
    synchronized (accounts) {
      return accounts[0];
    }
  }

  /** Of {@link #predictedBytes}, the bytes no read copied. */
  public long unreadBytes() {
    synchronized (accounts) {
      return accounts[1];
    }
  }
}
