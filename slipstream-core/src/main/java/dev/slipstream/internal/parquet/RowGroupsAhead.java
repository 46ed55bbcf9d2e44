/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.parquet;

import dev.slipstream.Counter;
import dev.slipstream.ReadStatistics;
import dev.slipstream.internal.ahead.AheadFetch;
import dev.slipstream.internal.block.BufferPool;
import dev.slipstream.internal.block.Destination;
import dev.slipstream.internal.block.HeapRegions;
import dev.slipstream.internal.block.Span;
import dev.slipstream.internal.learn.LearnedDepth;
import dev.slipstream.internal.source.RangeThrough;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.function.BooleanSupplier;

/**
 * Parquet row groups read ahead: a reader decodes one row group while the next one's column chunks are
 * on their way. When an asynchronous (vectored) range read covers column chunks {@code i..j} of row
 * group {@code g} exactly — as parquet-java asks for the chunks of the columns it reads, all 20 of a full
 * scan in one range of the whole row group — and the stream has read chunks of row group {@code g - 1}
 * before, the bytes of chunks {@code i..j} of every later row group are planned ahead (see below) and
 * fetched in the background, in pieces below half a G1 region, each into a pooled buffer, a run of pieces
 * up to a block filled by one range fetch (the GETs of one large buffer, the heap of small ones). Two row
 * groups in a row first: an engine that splits a file among tasks (Spark) often gives a task a single row
 * group, and what it fetched of the next would be wasted. Only row group 0, where a whole-file reader
 * starts, plans {@value #UNPROVEN_PIECES} blocks' worth of row group 1 before that. A later range read
 * copies what pieces hold and fetches only the rest itself. A piece is given
 * back as soon as reads have copied all of it; then the plan goes on with the memory it freed. Pieces
 * and plans of earlier row groups still held when a later row group is asked for are dropped, counted as
 * wasted.
 *
 * <p>The rest of the projection at once, as Arrow's pre-buffer fetches it: once the stream knows the
 * columns its reader takes and that it reads the file's row groups in turn, every later row group's same
 * chunks are planned together, nearest first, and fetched while the memory bound allows (each run of
 * pieces one range, its parts in parallel), instead of one row group ahead: a reader that decodes little would
 * otherwise wait a round trip and a row group's transfer at each row group. With the end of the caller's
 * split known ({@code splitEnd}), from its first vectored read, up to the last row group the split reads
 * ({@link SplitRowGroups}: nothing past it is fetched); without, once two row groups were read in a row,
 * to the file's end, unless the client's predictions for this schema are switched off for waste
 * ({@code wasteOff}: then the next row group only, as before), and the bytes fetched so are counted for
 * that switch ({@link #fetchedToEnd}, {@link #unreadToEnd}).
 *
 * <p>Bounded: a stream holds at most {@code maxHeld} bytes ahead (as many as a sequential reader may
 * have in flight), and memory comes only from what is free in the pool (never waiting, never evicting a
 * stream's block). A fetched piece no read is copying from is the pool's to take back ({@link Span}),
 * like any idle block: a reader waiting for memory never waits for pieces that only later reads would
 * free. A read finds a piece taken back gone, and fetches its bytes itself. Its fetches are prefetches:
 * they queue behind every read a caller waits for, until a read claims the piece: then it is promoted
 * ahead of every prefetch, as a block is when its reader arrives. A piece is never cancelled because a
 * reader waiting for it was interrupted: its fetch is the stream's, for every read that claims it.
 * Thread-safe.
 */
public final class RowGroupsAhead {
  /**
   * Pieces planned of row group 1 while a stream has read only row group 0: a task given the file's
   * first row group alone wastes no more (the sequential read's start, {@link LearnedDepth#START}).
   */
  static final int UNPROVEN_PIECES = LearnedDepth.START;

  /**
   * What a read found in the pieces ({@link #read}): {@code copied} completes once every piece that holds
   * bytes of it is fetched and copied; {@code gaps} are the ranges no piece holds, in order, as {start, end}
   * pairs, for the reader to fetch.
   */
  public record Found(CompletableFuture<Void> copied, List<long[]> gaps) {}

  /**
   * Where the bytes of {@code [start, end)} the stream does not hold at its end already stop (see {@link
   * HeldSpans#unheldEnd}): a chunk a dictionary read fetched whole, the end of the last chunk in the tail.
   */
  public interface StillHeld {
    long unheldEnd(long start, long end);
  }

  private final ParquetFooter footer;
  private final BufferPool pool;
  private final AheadFetch.Range ahead;
  private final StillHeld stillHeld;
  private final ReadStatistics stats;
  private final int pieceSize;
  /** The most bytes of pieces one fetch fills: whole pieces, up to a block. */
  private final int runMax;
  /** Bytes of row group 1 planned while only row group 0 has been read. */
  private final long unproven;
  private final long maxHeld;
  /** Pieces fetched or being fetched, by their start. */
  private final TreeMap<Long, AheadPiece> pieces = new TreeMap<>();
  /** Ranges of coming row groups still to fetch, nearest first. */
  private final List<Plan> plans = new ArrayList<>();
  /** The last row group the caller's split reads: nothing after it is planned. */
  private final int lastGroup;
  /** Whether the caller declared its split's end: then the rest of the split is planned at once. */
  private final boolean split;
  /** Whether the client switched predictions off for this file's schema (too many bytes went unread). */
  private final BooleanSupplier wasteOff;
  /** Bytes of pieces planned to the file's end without a split, released so far, and those no read copied. */
  private long fetchedToEnd;
  private long unreadToEnd;
  /** The row groups reads have asked chunks of. */
  private final BitSet groupsRead = new BitSet();
  /** Bytes of the pieces not yet given back to the pool. */
  private long held;
  private boolean closed;

  /** Part of a row group's range, fetched ahead into one buffer. */
  private static final class AheadPiece {
    final long start;
    final int length;
    final int group;
    /** The bytes: pinned by the fetch while it runs and by each copy; evictable by the pool otherwise. */
    final Span span;
    /** The fetch, or null if it could not start. */
    final RangeThrough.Fetch fetch;
    final CompletableFuture<Void> fetched;
    final List<CompletableFuture<Void>> copies = new ArrayList<>();
    /** Planned to the file's end without a split: counted for the waste switch. */
    final boolean toEnd;
    /** Bytes reads have copied out of it so far. */
    long claimed;

    AheadPiece(long start, int length, int group, boolean toEnd, Span span, RangeThrough.Fetch fetch,
        CompletableFuture<Void> fetched) {
      this.start = start;
      this.length = length;
      this.group = group;
      this.toEnd = toEnd;
      this.span = span;
      this.fetch = fetch;
      this.fetched = fetched;
    }

    long end() {
      return start + length;
    }
  }

  /** {@code [from, end)} of row group {@code group}, still to be fetched ahead. */
  private static final class Plan {
    final int group;
    final boolean toEnd;
    long from;
    final long end;

    Plan(int group, boolean toEnd, long from, long end) {
      this.group = group;
      this.toEnd = toEnd;
      this.from = from;
      this.end = end;
    }
  }

  /**
   * @param ahead how pieces are fetched: as prefetches
   * @param heldBytes what the stream holds already: chunks it holds are not planned
   * @param blockSize the stream's block size: row group 1 is planned {@value #UNPROVEN_PIECES} blocks ahead
   *     before it is proven
   * @param pieceSize the largest piece: a block at most, and below half a G1 region ({@link
   *     HeapRegions#largestOrdinary}), since what a stream holds ahead must not cut up the heap's free regions
   * @param maxHeld the most bytes a stream holds ahead; 0 reads nothing ahead
   * @param splitEnd the end (exclusive) of the caller's split, or 0 or less for none
   * @param wasteOff whether the client's predictions for the file's schema are off for waste
   */
  public RowGroupsAhead(ParquetFooter footer, BufferPool pool, AheadFetch.Range ahead, StillHeld heldBytes, ReadStatistics stats,
      int blockSize, int pieceSize, long maxHeld, long splitEnd, BooleanSupplier wasteOff) {
    this.footer = footer;
    this.pool = pool;
    this.ahead = ahead;
    this.stillHeld = heldBytes;
    this.stats = stats;
    this.pieceSize = pieceSize;
    this.runMax = Math.max(1, blockSize / pieceSize) * pieceSize;
    this.unproven = (long) UNPROVEN_PIECES * blockSize;
    this.maxHeld = maxHeld;
    this.split = splitEnd > 0;
    this.lastGroup = SplitRowGroups.last(footer, splitEnd);
    this.wasteOff = wasteOff;
  }

  /**
   * Reads what the pieces hold of {@code [position, position + len)} into {@code dst}, copied from them once
   * fetched, and returns that with the gaps they do not hold, which the reader fetches. If the range is a
   * row group's column chunks, the next row group's same chunks are planned ahead.
   */
  public Found read(long position, byte[] dst, int off, int len) {
    List<CompletableFuture<Void>> done = new ArrayList<>();
    List<long[]> gaps = new ArrayList<>();
    long end = position + len;
    synchronized (this) {
      if (closed) {
        gaps.add(new long[] {position, end});
      } else {
        stopPlansOver(position, end); // first: a piece given back below goes on with the plans
        copyHeld(position, end, dst, off, done, gaps);
        int[] at = footer.locate(position, end);
        if (at != null) {
          dropGroupsBefore(at[0]);
          boolean inARow = at[0] > 0 && groupsRead.get(at[0] - 1);
          groupsRead.set(at[0]);
          if (split || inARow && !wasteOff.getAsBoolean()) {
            for (int g = at[0] + 1; g <= lastGroup; g++) {
              plan(g, at[1], at[2], Long.MAX_VALUE, !split); // the rest of the projection, nearest first
            }
          } else if ((inARow || at[0] == 0) && at[0] + 1 <= lastGroup) {
            plan(at[0] + 1, at[1], at[2], inARow ? Long.MAX_VALUE : unproven, false);
          }
        }
        fill();
      }
    }
    return new Found(done.size() == 1 ? done.get(0) : CompletableFuture.allOf(done.toArray(CompletableFuture[]::new)),
        gaps);
  }

  /** Copies what pieces hold of {@code [position, end)} (once fetched); the bytes they do not, as gaps. */
  private void copyHeld(long position, long end, byte[] dst, int off, List<CompletableFuture<Void>> done,
      List<long[]> gaps) {
    long p = position;
    List<AheadPiece> given = new ArrayList<>();
    Long first = pieces.floorKey(position);
    Iterator<AheadPiece> it = pieces.tailMap(first == null ? position : first, true).values().iterator();
    while (it.hasNext() && p < end) {
      AheadPiece piece = it.next();
      if (piece.start >= end) {
        break;
      }
      if (piece.end() <= p) {
        continue;
      }
      if (piece.fetched.isCompletedExceptionally() || !piece.span.tryPin()) {
        // Cancelled by an interrupted read, say, or taken back by the pool: fetched again below, as a gap.
        it.remove();
        given.add(piece);
        continue;
      }
      if (piece.start > p) {
        gaps.add(new long[] {p, piece.start});
        p = piece.start;
      }
      int from = (int) (p - piece.start);
      int n = (int) (Math.min(end, piece.end()) - p);
      int to = off + (int) (p - position);
      if (piece.claimed == 0) {
        stats.increment(Counter.ROW_GROUP_AHEAD_USED);
      }
      if (piece.fetch != null && !piece.fetched.isDone()) {
        piece.fetch.promote(); // a reader waits for it now: no longer behind every stream's prefetches
      }
      // The copy's pin, taken above, keeps the bytes until the copy has run (or the fetch failed).
      CompletableFuture<Void> copy = piece.fetched.handle((v, t) -> {
        try {
          if (t != null) {
            throw t instanceof java.util.concurrent.CompletionException c ? c : new java.util.concurrent.CompletionException(t);
          }
          System.arraycopy(piece.span.buffer(), from, dst, to, n);
          return null;
        } finally {
          piece.span.unpin();
        }
      });
      piece.copies.add(copy);
      done.add(copy);
      piece.claimed += n;
      p += n;
      if (piece.claimed >= piece.length) {
        it.remove(); // all of it copied out: back to the pool once the copies end
        given.add(piece);
      }
    }
    if (p < end) {
      gaps.add(new long[] {p, end});
    }
    release(given);
  }

  /**
   * Plans the first {@code most} bytes of chunks {@code first..last} of row group {@code group}, but for
   * chunks the stream holds already, and unless they are planned or held ahead already.
   */
  private void plan(int group, int first, int last, long most, boolean toEnd) {
    List<ParquetFooter.Chunk> chunks = footer.rowGroup(group);
    if (maxHeld <= 0 || last >= chunks.size()) {
      return; // nothing ahead, or row groups with other columns: no guess
    }
    long from = chunks.get(first).start();
    long limit = most > Long.MAX_VALUE - from ? Long.MAX_VALUE : from + most;
    long runStart = -1;
    long runEnd = -1;
    for (int i = first; i <= last; i++) {
      ParquetFooter.Chunk c = chunks.get(i);
      boolean skip = stillHeld.unheldEnd(c.start(), c.end()) <= c.start();
      if (!skip && runStart >= 0 && c.start() == runEnd) {
        runEnd = c.end(); // the run of chunks to fetch goes on
        continue;
      }
      if (runStart >= 0) {
        planRun(group, runStart, Math.min(runEnd, limit), toEnd);
        runStart = -1;
      }
      if (!skip) {
        runStart = c.start();
        runEnd = c.end();
      }
    }
    if (runStart >= 0) {
      planRun(group, runStart, Math.min(runEnd, limit), toEnd);
    }
  }

  /** Plans {@code [start, end)} of row group {@code group}, in its place by position: nearest first. */
  private void planRun(int group, long start, long end, boolean toEnd) {
    end = stillHeld.unheldEnd(start, end);
    if (end <= start || pieces.containsKey(start)) {
      return;
    }
    int at = plans.size();
    for (int i = 0; i < plans.size(); i++) {
      Plan p = plans.get(i);
      if (p.from < end && start < p.end) {
        return;
      }
      if (at == plans.size() && p.from > start) {
        at = i;
      }
    }
    plans.add(at, new Plan(group, toEnd, start, end));
  }

  /**
   * Starts the planned pieces, in order, while the stream's bound and the pool's free memory allow: each
   * run of a plan's pieces, up to {@code runMax} bytes, is one fetch into their buffers end to end (one
   * range, in the parts of a block), so that small pieces cost the GETs of large ones.
   */
  private void fill() {
    while (!closed && !plans.isEmpty()) {
      Plan plan = plans.get(0);
      List<byte[]> buffers = new ArrayList<>();
      int len = 0;
      while (len < runMax && plan.from + len < plan.end) {
        int n = (int) Math.min(pieceSize, plan.end - plan.from - len);
        byte[] buffer = held + n > maxHeld ? null : pool.tryAcquire(BufferPool.sizeFor(n));
        if (buffer == null) {
          break;
        }
        held += n;
        buffers.add(buffer);
        len += n;
      }
      if (buffers.isEmpty()) {
        return;
      }
      stats.add(Counter.ROW_GROUP_AHEAD_STARTED, buffers.size());
      List<Span> spans = new ArrayList<>(buffers.size());
      for (int i = 0; i < buffers.size(); i++) {
        long start = plan.from + (long) i * pieceSize;
        // The owner's reference and the fetch's pin.
        spans.add(new Span(start, buffers.get(i), (int) Math.min(pieceSize, plan.from + len - start), pool, stats));
      }
      RangeThrough.Fetch fetch = null;
      CompletableFuture<Void> fetched;
      try {
        fetch = ahead.start(plan.from, Destination.pieces(buffers, pieceSize), len);
        fetched = fetch.done();
      } catch (RuntimeException e) { // could not start (the client closing): a gap for the read that wants it
        fetched = CompletableFuture.failedFuture(e);
      }
      for (Span span : spans) {
        fetched.whenComplete((v, t) -> {
          if (t == null) {
            span.filled(); // idle: the pool may take it back while no copy pins it
          }
          span.unpin();
        });
        pieces.put(span.start(), new AheadPiece(span.start(), span.length(), plan.group, plan.toEnd, span, fetch, fetched));
      }
      plan.from += len;
      if (plan.from >= plan.end) {
        plans.remove(0);
      }
    }
  }

  /** The reader got to {@code [position, end)} first: what plans had left of it will not be fetched ahead. */
  private void stopPlansOver(long position, long end) {
    for (Iterator<Plan> it = plans.iterator(); it.hasNext(); ) {
      Plan p = it.next();
      if (p.from < end && position < p.end) {
        stats.add(Counter.ROW_GROUP_AHEAD_SKIPPED, (p.end - p.from + pieceSize - 1) / pieceSize);
        it.remove();
      }
    }
  }

  private void dropGroupsBefore(int group) {
    plans.removeIf(p -> p.group < group);
    List<AheadPiece> dropped = new ArrayList<>();
    for (Iterator<AheadPiece> it = pieces.values().iterator(); it.hasNext(); ) {
      AheadPiece piece = it.next();
      if (piece.group < group) {
        it.remove();
        dropped.add(piece);
      }
    }
    release(dropped);
  }

  /** Drops every piece and plan; the pieces' buffers return once their fetch and copies have ended. */
  public synchronized void clear() {
    plans.clear();
    List<AheadPiece> all = new ArrayList<>(pieces.values());
    pieces.clear();
    release(all);
  }

  /** Bytes fetched ahead to the file's end without a split (released so far): predictions' share. */
  public synchronized long fetchedToEnd() {
    return fetchedToEnd;
  }

  /** Of {@link #fetchedToEnd}, the bytes no read copied. */
  public synchronized long unreadToEnd() {
    return unreadToEnd;
  }

  public synchronized void close() {
    closed = true;
    clear();
  }

  /**
   * Gives pieces back once their fetch and copies have ended, and goes on with the plans. The caller
   * holds the lock and has taken the pieces out of the map (no iteration over it is under way: the
   * callback may run at once, on this thread).
   */
  private void release(List<AheadPiece> given) {
    for (AheadPiece piece : given) {
      if (piece.claimed == 0) {
        stats.increment(Counter.ROW_GROUP_AHEAD_WASTED);
      }
      if (piece.toEnd) {
        fetchedToEnd += piece.length;
        unreadToEnd += piece.length - Math.min(piece.length, piece.claimed);
      }
      piece.span.releaseOwner(); // the buffer goes back once the fetch and the copies let go of it
      List<CompletableFuture<Void>> all = new ArrayList<>(piece.copies);
      all.add(piece.fetched);
      CompletableFuture.allOf(all.toArray(CompletableFuture[]::new)).whenComplete((v, t) -> {
        synchronized (this) {
          held -= piece.length;
          fill();
        }
      });
    }
  }
}
