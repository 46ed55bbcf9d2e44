/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.ahead;

import dev.slipstream.internal.block.BufferPool;
import dev.slipstream.internal.block.Span;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The bytes a stream holds outside its block grid, in one store: the object's tail (a footer and the
 * metadata before it), the spans its reads fetched beyond what they asked for (a whole column chunk when a
 * read started in it, the page indexes, a readahead after a small read), and every span fetched ahead of
 * the reads, whichever part fetched it. The sequential reads ({@link #copyAll}), the reads at a jump
 * ({@link #copyHeld}) and the vectored reads ({@link #copyHeldRanges}) of the stream all copy from here
 * before they fetch, each asking it once.
 *
 * <p>The spans fetched ahead ({@link #addAhead}: a predicted Parquet column's chunks, the later row groups'
 * chunks, an ORC file's stripe footers and streams, each through {@link AheadFetch}) are held while they are
 * fetched too: a read that needs bytes of one waits for it ({@link #pending}) instead of fetching them
 * again; how many bytes of each reads copied is told to whoever fetched it when it goes ({@link Released}),
 * and the accounts are theirs. Their buffers count against the stream's one {@link AheadBudget}, from the
 * moment one is taken until the store lets its span go: passed by the reader ({@link #releaseAhead}), read
 * to its end where its fetcher asked for that, found taken back by the pool, failed, or on close and unbuffer.
 *
 * <p>Bounded: the tail, at most {@link #MAX_SPANS} other spans, the oldest dropped first, and the spans
 * fetched ahead by the budget. Every span is filled pool memory that the pool may take back while no reader
 * copies from it (then a read finds it gone and fetches again). Released on close and unbuffer; a buffer
 * returns to the pool once no reader copies from it. Thread-safe.
 */
public final class HeldSpans {
  /**
   * Spans held besides the tail: a Parquet reader filtering by dictionary holds one column chunk per
   * filtered column and row group until it reads the row group; a few row groups of a few columns fit.
   */
  public static final int MAX_SPANS = 8;

  private volatile Span tail;
  /** Newest last; guarded by {@code this}. */
  private final List<Span> spans = new ArrayList<>();
  /** The spans fetched ahead: held bytes too, under their own lock (never taken inside this one's). */
  private final Ahead ahead;
  private final AheadBudget budget;

  /** A store that holds nothing ahead (a budget of 0): the tail and the extents of reads only. */
  public HeldSpans() {
    this(new AheadBudget(0));
  }

  /** @param budget the stream's one budget for the spans fetched ahead */
  public HeldSpans(AheadBudget budget) {
    this.budget = budget;
    this.ahead = new Ahead(budget);
  }

  /** The stream's budget for the spans fetched ahead, which this store gives back as they go. */
  public AheadBudget budget() {
    return budget;
  }

  /** Told, once, when a span fetched ahead goes: how many of its bytes reads copied (0 if its fetch failed). */
  @FunctionalInterface
  public interface Released {
    void released(long copied);

    /** Told once, when a read first copies bytes of the span. */
    default void used() {}
  }

  /**
   * Holds {@code span}, fetched ahead of the reads and being fetched: with its owner's reference (the
   * filler's pin is the filler's to drop); {@code fetched} completes once it is filled or dropped; {@code
   * released} is told once when it goes; {@code claimed} runs when a read comes to wait for it ({@link
   * #pending}): its fetch is then no longer a guess, and goes ahead of every prefetch. Its buffer, {@code
   * BufferPool.sizeFor(span.length())} bytes, was taken from the {@link #budget} ({@link AheadFetch#buffer})
   * and is given back when it goes. With {@code untilRead}, it goes once reads have copied as many bytes as
   * it holds (a row group's piece: the reader reads each once and moves on), else when its fetcher lets it
   * go ({@link #releaseAhead}), on a failed fetch, or with every span.
   */
  public void addAhead(Span span, CompletableFuture<Void> fetched, Released released, Runnable claimed,
      boolean untilRead) {
    ahead.add(span, fetched, released, claimed, untilRead);
  }

  /** A span fetched ahead whose fetch failed: dropped (a read fetches its bytes itself), none of it copied. */
  public void dropAhead(Span span) {
    ahead.drop(span);
  }

  /**
   * A span fetched ahead that the reads are done with (the reader has moved past it): let go, its fetcher
   * told how many of its bytes reads copied. Its buffer returns once its fetch and the readers copying from
   * it let go.
   */
  public void releaseAhead(Span span) {
    ahead.release(span);
  }

  /** The object's tail, if a read fetched it; null otherwise. */
  public Span tail() {
    return tail;
  }

  public void setTail(Span span) {
    Span old;
    synchronized (this) {
      old = tail;
      tail = span;
    }
    if (old != null) {
      old.releaseOwner();
    }
  }

  /** Holds {@code span} (filled, with its owner's reference), dropping the oldest beyond the bound. */
  public void add(Span span) {
    Span dropped = null;
    synchronized (this) {
      spans.add(span);
      if (spans.size() > MAX_SPANS) {
        dropped = spans.remove(0);
      }
    }
    if (dropped != null) {
      dropped.releaseOwner();
    }
  }

  /**
   * Where the bytes of {@code [p, end)} that no span (nor the tail) holds at its end stop: {@code end} if
   * none holds its last byte, {@code p} or less if spans end to end hold all of it (a chunk fetched ahead in
   * pieces). What a fetch ahead of the reader may leave out.
   */
  public long unheldEnd(long p, long end) {
    List<Span> found = candidates(p, end);
    long unheld = end;
    for (boolean moved = true; moved && unheld > p; ) {
      moved = false;
      for (Span s : found) {
        if (s.start() < unheld && s.end() >= unheld) {
          unheld = s.start(); // holds the bytes just before: the unheld ones stop earlier still
          moved = true;
        }
      }
    }
    return unheld;
  }

  /** The greatest end of a span (or the tail) at or before {@code p}; 0 if none. */
  public long previousEnd(long p) {
    long previous = 0;
    Span t = tail;
    if (t != null && t.end() <= p) {
      previous = t.end();
    }
    synchronized (this) {
      for (Span s : spans) {
        if (s.end() <= p && s.end() > previous) {
          previous = s.end();
        }
      }
    }
    for (Span s : ahead.spans()) {
      if (s.end() <= p && s.end() > previous) {
        previous = s.end();
      }
    }
    return previous;
  }

  /** The least start of a span (or the tail) at or after {@code p}; {@code Long.MAX_VALUE} if none. */
  public long nextStart(long p) {
    long next = Long.MAX_VALUE;
    Span t = tail;
    if (t != null && t.start() >= p) {
      next = t.start();
    }
    synchronized (this) {
      for (Span s : spans) {
        if (s.start() >= p && s.start() < next) {
          next = s.start();
        }
      }
    }
    for (Span s : ahead.spans()) {
      if (s.start() >= p && s.start() < next) {
        next = s.start();
      }
    }
    return next;
  }

  /** Copies {@code [p, p + len)} if one span (or the tail) holds all of it; false otherwise. */
  public boolean copyAll(long p, byte[] dst, int off, int len) {
    for (Span s : candidates(p, p + len)) {
      if (s.start() <= p && p + len <= s.end() && copy(s, p, dst, off, p, len)) {
        return true;
      }
    }
    return false;
  }

  /**
   * What a read must still fetch once {@link #copyHeld} copied what the spans hold of it: {@code [start,
   * end)}, and {@code nextHeld}, where the next span (or the tail) at or after {@code end} starts ({@code
   * Long.MAX_VALUE} if none): a fetch that extends the read stops there, since what is held saves no round
   * trip.
   */
  public record Unheld(long start, long end, long nextHeld) {
    public int length() {
      return (int) (end - start);
    }
  }

  /**
   * Copies what the spans hold of {@code [p, p + len)} into {@code dst[off..]} and says what is left to
   * fetch: the one part they do not hold, or the whole range if what they hold lies inside it (fetching
   * around it would cut one GET in two); null if they hold all of it. One question for a read at a jump
   * or a vectored range, after the spans fetched ahead into it are in ({@link #pending}).
   */
  public Unheld copyHeld(long p, byte[] dst, int off, int len) {
    List<long[]> gaps = copyHeldParts(p, dst, off, len, false);
    if (gaps.isEmpty()) {
      return null;
    }
    long start = gaps.size() == 1 ? gaps.get(0)[0] : p;
    long end = gaps.size() == 1 ? gaps.get(0)[1] : p + len;
    return new Unheld(start, end, nextStart(end));
  }

  /**
   * Copies what the spans hold of {@code [p, p + len)} into {@code dst[off..]} and says what is left to
   * fetch, in order (empty if they hold all of it): the parts between the spans fetched ahead, which are
   * never fetched again (a row group's pieces hold exactly its chunks), each one request; bytes the other
   * spans hold inside such a part are fetched with it, as {@link #copyHeld} does (fetching around them
   * would cut one GET in two). One question for a vectored range, after the spans fetched ahead into it
   * are in ({@link #pending}).
   */
  public List<Unheld> copyHeldRanges(long p, byte[] dst, int off, int len) {
    List<Unheld> left = new ArrayList<>(2);
    for (long[] gap : copyHeldParts(p, dst, off, len, true)) {
      left.add(new Unheld(gap[0], gap[1], nextStart(gap[1])));
    }
    return left;
  }

  /**
   * Copies what the spans hold of {@code [p, p + len)} into {@code dst[off..]} and returns the ranges
   * they do not hold, in order, as {start, end} pairs (the whole range if they hold none of it); with
   * {@code acrossHeld}, two ranges that only bytes of spans not fetched ahead lie between are one.
   */
  private List<long[]> copyHeldParts(long p, byte[] dst, int off, int len, boolean acrossHeld) {
    long end = p + len;
    List<Span> found = candidates(p, end);
    found.sort(Comparator.comparingLong(Span::start));
    List<long[]> gaps = new ArrayList<>();
    long at = p;
    boolean aheadSinceGap = true; // a span fetched ahead was copied since the last gap (or there is none)
    for (Span s : found) {
      if (at >= end) {
        break;
      }
      if (s.end() <= at || s.start() >= end) {
        continue;
      }
      long from = Math.max(at, s.start());
      long to = Math.min(end, s.end());
      if (copy(s, from, dst, off, p, (int) (to - from))) {
        if (from > at) {
          aheadSinceGap = gap(gaps, at, from, acrossHeld && !aheadSinceGap);
        }
        aheadSinceGap |= ahead.holds(s);
        at = to;
      }
    }
    if (at < end) {
      gap(gaps, at, end, acrossHeld && !aheadSinceGap);
    }
    return gaps;
  }

  /** Adds the gap {@code [from, to)}, as the last one's end if {@code joined}; false (no span ahead since). */
  private static boolean gap(List<long[]> gaps, long from, long to, boolean joined) {
    if (joined && !gaps.isEmpty()) {
      gaps.get(gaps.size() - 1)[1] = to;
    } else {
      gaps.add(new long[] {from, to});
    }
    return false;
  }

  /** Spans (the tail among them) that overlap {@code [p, end)}. */
  private List<Span> candidates(long p, long end) {
    List<Span> found = new ArrayList<>(2);
    Span t = tail;
    if (t != null && t.start() < end && p < t.end()) {
      found.add(t);
    }
    synchronized (this) {
      for (int i = spans.size() - 1; i >= 0; i--) { // newest first
        Span s = spans.get(i);
        if (s.start() < end && p < s.end()) {
          found.add(s);
        }
      }
    }
    for (Span s : ahead.spans()) {
      if (s.start() < end && p < s.end()) {
        found.add(s);
      }
    }
    return found;
  }

  /**
   * Copies {@code [from, from + n)} of {@code s} to where it goes in a read of {@code dst[off..]} at {@code p},
   * and counts the bytes copied in the span's account (if it was fetched ahead) before letting go of it. A
   * span fetched ahead to go once read goes after the copy has let go of it, so that its buffer is back in
   * the pool when the room it frees is told.
   */
  private boolean copy(Span s, long from, byte[] dst, int off, long p, int n) {
    if (!s.tryPin()) {
      ahead.release(s); // taken back by the pool: if fetched ahead, it goes, and its budget with it
      return false;
    }
    boolean read = false;
    try {
      if (!s.isReady()) {
        return false;
      }
      System.arraycopy(s.buffer(), (int) (from - s.start()), dst, off + (int) (from - p), n);
      read = ahead.copied(s, n);
      return true;
    } finally {
      s.unpin();
      if (read) {
        ahead.release(s);
      }
    }
  }

  /**
   * Completes once every span fetched ahead overlapping {@code [p, p + len)} is filled or has failed (never
   * exceptionally): then what the spans hold can be copied, and the rest is fetched. A read asks this before
   * it waits, so the fetches of those still being fetched are claimed: promoted ahead of every prefetch.
   */
  public CompletableFuture<Void> pending(long p, int len) {
    return ahead.pending(p, len);
  }

  /** Drops every span, the tail and those fetched ahead; their buffers return once no reader copies from them. */
  public void releaseAll() {
    List<Span> all;
    synchronized (this) {
      all = new ArrayList<>(spans);
      spans.clear();
      if (tail != null) {
        all.add(tail);
      }
      tail = null;
    }
    List<Span> fetchedAhead = ahead.removeAll();
    for (Span s : all) {
      s.releaseOwner();
    }
    for (Span s : fetchedAhead) {
      s.releaseOwner();
      budget.give(BufferPool.sizeFor(s.length()));
    }
  }

  /**
   * The spans fetched ahead, being fetched or filled, in the order they were started, and how many bytes
   * of each reads copied; their buffers given back to the budget as they go. Thread-safe; never calls out
   * while it holds its lock.
   */
  private static final class Ahead {
    private final AheadBudget budget;
    /** Guarded by {@code this}. */
    private final Map<Span, Fetched> spans = new LinkedHashMap<>();

    Ahead(AheadBudget budget) {
      this.budget = budget;
    }

    /**
     * A span's fetch, who is told when it goes, what runs when a read claims it, whether it goes once read,
     * and how many of its bytes reads copied, each byte once at most.
     */
    private record Fetched(CompletableFuture<Void> fetched, Released released, Runnable claimed, boolean untilRead,
        AtomicLong copied) {}

    synchronized void add(Span span, CompletableFuture<Void> fetched, Released released, Runnable claimed,
        boolean untilRead) {
      spans.put(span, new Fetched(fetched, released, claimed, untilRead, new AtomicLong()));
    }

    synchronized boolean holds(Span span) {
      return spans.containsKey(span);
    }

    void drop(Span span) {
      gone(span, true);
    }

    void release(Span span) {
      gone(span, false);
    }

    /** Lets {@code span} go, if held: its fetcher told what reads copied (none if {@code failed}), its buffer's budget given back. */
    private void gone(Span span, boolean failed) {
      Fetched f;
      synchronized (this) {
        f = spans.remove(span);
      }
      if (f != null) {
        try {
          f.released().released(failed ? 0 : f.copied().get());
        } finally {
          span.releaseOwner();
          budget.give(BufferPool.sizeFor(span.length()));
        }
      }
    }

    synchronized List<Span> spans() {
      return spans.isEmpty() ? List.of() : List.copyOf(spans.keySet());
    }

    /** Counts {@code n} bytes of {@code s} copied; true if it is to go now: read to its end, and so asked. */
    boolean copied(Span s, int n) {
      Fetched f;
      synchronized (this) {
        f = spans.get(s);
      }
      if (f == null) {
        return false;
      }
      long had = f.copied().getAndAccumulate(n, (was, more) -> Math.min(s.length(), was + more));
      if (had == 0) {
        f.released().used();
      }
      return f.untilRead() && had + n >= s.length();
    }

    CompletableFuture<Void> pending(long p, int len) {
      long end = p + len;
      List<CompletableFuture<Void>> waits = new ArrayList<>(2);
      List<Runnable> claims = new ArrayList<>(2);
      synchronized (this) {
        for (Map.Entry<Span, Fetched> e : spans.entrySet()) {
          Span s = e.getKey();
          if (s.start() < end && p < s.end() && !e.getValue().fetched().isDone()) {
            waits.add(e.getValue().fetched().handle((v, t) -> null));
            claims.add(e.getValue().claimed());
          }
        }
      }
      claims.forEach(Runnable::run); // outside the lock: a promotion reaches the fetch executor
      return waits.isEmpty() ? CompletableFuture.completedFuture(null)
          : CompletableFuture.allOf(waits.toArray(CompletableFuture[]::new));
    }

    /**
     * Lets go of every span, telling each one's fetcher what reads copied; returns them, for the caller to
     * release and to give their buffers' budget back.
     */
    List<Span> removeAll() {
      Map<Span, Fetched> all;
      synchronized (this) {
        all = new LinkedHashMap<>(spans);
        spans.clear();
      }
      for (Map.Entry<Span, Fetched> e : all.entrySet()) {
        e.getValue().released().released(e.getValue().copied().get());
      }
      return new ArrayList<>(all.keySet());
    }
  }
}
