/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.parquet;

import dev.slipstream.Counter;
import dev.slipstream.ReadStatistics;
import dev.slipstream.internal.ahead.AheadFetch;
import dev.slipstream.internal.ahead.HeldSpans;
import dev.slipstream.internal.block.HeapRegions;
import dev.slipstream.internal.block.Span;
import dev.slipstream.internal.learn.LearnedDepth;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;

/**
 * Parquet row groups read ahead: a reader decodes one row group while the next one's column chunks are
 * on their way. When an asynchronous (vectored) range read covers column chunks {@code i..j} of row
 * group {@code g} exactly — as parquet-java asks for the chunks of the columns it reads, all 20 of a full
 * scan in one range of the whole row group — and the stream has read chunks of row group {@code g - 1}
 * before, the bytes of chunks {@code i..j} of every later row group are planned ahead (see below) and
 * fetched in the background, in pieces below half a G1 region, each into a pooled buffer, a run of pieces
 * up to a block filled by one range fetch (the GETs of one large buffer, the heap of small ones), held in
 * the stream's one store as spans fetched ahead ({@link AheadFetch}, {@link HeldSpans#addAhead}). Two row
 * groups in a row first: an engine that splits a file among tasks (Spark) often gives a task a single row
 * group, and what it fetched of the next would be wasted. Only row group 0, where a whole-file reader
 * starts, plans {@value #UNPROVEN_PIECES} blocks' worth of row group 1 before that. A later read, vectored,
 * at a jump or in order, copies what pieces hold from the store, as it copies any span, and fetches only the
 * rest itself. A piece is given back as soon as reads have copied all of it; then the plan goes on with the
 * room it freed in the stream's budget, as it does when any span fetched ahead goes. Pieces and plans of
 * earlier row groups still held when a later row group is asked for are dropped, counted as wasted.
 *
 * <p>The rest of the projection at once, as Arrow's pre-buffer fetches it: once the stream knows the
 * columns its reader takes and that it reads the file's row groups in turn, every later row group's same
 * chunks are planned together, nearest first, and fetched while the stream's budget allows (each run of
 * pieces one range, its parts in parallel), instead of one row group ahead: a reader that decodes little would
 * otherwise wait a round trip and a row group's transfer at each row group. With the end of the caller's
 * split known ({@code splitEnd}), from its first vectored read, up to the last row group the split reads
 * ({@link SplitRowGroups}: nothing past it is fetched); without, once two row groups were read in a row,
 * to the file's end, unless the client's predictions for this schema are switched off for waste
 * ({@code wasteOff}: then the next row group only, as before), and the bytes fetched so are counted for
 * that switch ({@link #fetchedToEnd}, {@link #unreadToEnd}).
 *
 * <p>Bounded: by the stream's one budget for bytes held ahead ({@link
 * dev.slipstream.internal.ahead.AheadBudget}, as many as a sequential reader may have in flight, shared with
 * every other part that fetches ahead), and memory comes only from what is free in the pool (never waiting,
 * never evicting a stream's block). A fetched piece no read is copying from is the pool's to take back ({@link Span}),
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

  private final ParquetFooter footer;
  private final HeldSpans spans;
  private final AheadFetch ahead;
  private final ReadStatistics stats;
  private final int pieceSize;
  /** The most bytes of pieces one fetch fills: whole pieces, up to a block. */
  private final int runMax;
  /** Bytes of row group 1 planned while only row group 0 has been read. */
  private final long unproven;
  /** The pieces the store holds for this stream's row groups, till it lets them go: which row group each is of. */
  private final Map<Span, Piece> pieces = new LinkedHashMap<>();
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
  /** A {@link #fill} is under way on this thread: room given back meanwhile is seen by its loop. */
  private boolean filling;
  private boolean closed;

  /** Part of a row group's range, fetched ahead into one span of the store: what the row group's accounts need. */
  private record Piece(int group, boolean toEnd) {}

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
   * @param spans the stream's store: what it holds is not planned, and the pieces are held there
   * @param ahead how pieces are fetched: as prefetches, within the stream's budget for bytes held ahead
   * @param blockSize the stream's block size: row group 1 is planned {@value #UNPROVEN_PIECES} blocks ahead
   *     before it is proven
   * @param pieceSize the largest piece: a block at most, and below half a G1 region ({@link
   *     HeapRegions#largestOrdinary}), since what a stream holds ahead must not cut up the heap's free regions
   * @param splitEnd the end (exclusive) of the caller's split, or 0 or less for none
   * @param wasteOff whether the client's predictions for the file's schema are off for waste
   */
  public RowGroupsAhead(ParquetFooter footer, HeldSpans spans, AheadFetch ahead, ReadStatistics stats,
      int blockSize, int pieceSize, long splitEnd, BooleanSupplier wasteOff) {
    this.footer = footer;
    this.spans = spans;
    this.ahead = ahead;
    this.stats = stats;
    this.pieceSize = pieceSize;
    this.runMax = Math.max(1, blockSize / pieceSize) * pieceSize;
    this.unproven = (long) UNPROVEN_PIECES * blockSize;
    this.split = splitEnd > 0;
    this.lastGroup = SplitRowGroups.last(footer, splitEnd);
    this.wasteOff = wasteOff;
    spans.budget().whenRoom(this::roomGiven);
  }

  /**
   * A vectored read of {@code [position, position + len)} is about to be served (from the store, then
   * fetched): the plans over it are left to it, and if the range is a row group's column chunks, the
   * earlier row groups' pieces are let go and the later row groups' same chunks are planned ahead.
   */
  public synchronized void onRead(long position, int len) {
    if (closed) {
      return;
    }
    long end = position + len;
    stopPlansOver(position, end);
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

  /**
   * Plans the first {@code most} bytes of chunks {@code first..last} of row group {@code group}, but for
   * chunks the stream holds already, and unless they are planned or held ahead already.
   */
  private void plan(int group, int first, int last, long most, boolean toEnd) {
    List<ParquetFooter.Chunk> chunks = footer.rowGroup(group);
    if (spans.budget().bound() <= 0 || last >= chunks.size()) {
      return; // nothing ahead, or row groups with other columns: no guess
    }
    long from = chunks.get(first).start();
    long limit = most > Long.MAX_VALUE - from ? Long.MAX_VALUE : from + most;
    long runStart = -1;
    long runEnd = -1;
    for (int i = first; i <= last; i++) {
      ParquetFooter.Chunk c = chunks.get(i);
      boolean skip = spans.unheldEnd(c.start(), c.end()) <= c.start();
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
    end = spans.unheldEnd(start, end);
    if (end <= start || pieces.keySet().stream().anyMatch(s -> s.start() == start)) {
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
   * Starts the planned pieces, in order, while the stream's budget and the pool's free memory allow: each
   * run of a plan's pieces, up to {@code runMax} bytes, is one fetch into their buffers end to end (one
   * range, in the parts of a block), so that small pieces cost the GETs of large ones.
   */
  private void fill() {
    if (filling) {
      return; // room given back by a piece this fill started (its fetch could not start): the loop goes on
    }
    filling = true;
    try {
      while (!closed && !plans.isEmpty()) {
        Plan plan = plans.get(0);
        List<byte[]> buffers = new ArrayList<>();
        int len = 0;
        while (len < runMax && plan.from + len < plan.end) {
          int n = (int) Math.min(pieceSize, plan.end - plan.from - len);
          byte[] buffer = ahead.buffer(n);
          if (buffer == null) {
            break;
          }
          buffers.add(buffer);
          len += n;
        }
        if (buffers.isEmpty()) {
          return;
        }
        stats.add(Counter.ROW_GROUP_AHEAD_STARTED, buffers.size());
        long from = plan.from;
        plan.from += len;
        if (plan.from >= plan.end) {
          plans.remove(0);
        }
        Piece piece = new Piece(plan.group, plan.toEnd);
        ahead.start(from, buffers, len, pieceSize, buffer -> { }, span -> {
          pieces.put(span, piece); // before its fetch starts: told when it goes, whenever that is
          return new Account(span);
        }, true);
      }
    } finally {
      filling = false;
    }
  }

  /** What the store tells of one piece: its first copy, and how much of it reads copied when it goes. */
  private final class Account implements HeldSpans.Released {
    private final Span span;

    Account(Span span) {
      this.span = span;
    }

    @Override
    public void used() {
      stats.increment(Counter.ROW_GROUP_AHEAD_USED);
    }

    @Override
    public void released(long copied) {
      gone(span, copied);
    }
  }

  /** The store let {@code span} go, {@code copied} of its bytes read: counted, wasted if none. */
  private synchronized void gone(Span span, long copied) {
    Piece piece = pieces.remove(span);
    if (piece == null) {
      return;
    }
    if (copied == 0) {
      stats.increment(Counter.ROW_GROUP_AHEAD_WASTED);
    }
    if (piece.toEnd()) {
      fetchedToEnd += span.length();
      unreadToEnd += span.length() - Math.min(span.length(), copied);
    }
  }

  /** Room was given back in the stream's budget (a piece read, any span ahead gone): the plans go on. */
  private synchronized void roomGiven() {
    if (!closed && !plans.isEmpty()) {
      fill();
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
    List<Span> dropped = new ArrayList<>();
    for (Map.Entry<Span, Piece> e : pieces.entrySet()) {
      if (e.getValue().group() < group) {
        dropped.add(e.getKey());
      }
    }
    dropped.forEach(spans::releaseAhead); // each told back to gone(), which takes it out of the map
  }

  /** Drops every piece and plan; the pieces' buffers return once their fetch and copies have ended. */
  public synchronized void clear() {
    plans.clear();
    new ArrayList<>(pieces.keySet()).forEach(spans::releaseAhead);
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
}
