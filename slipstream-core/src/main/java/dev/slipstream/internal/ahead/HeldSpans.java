/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.ahead;

import dev.slipstream.internal.block.Span;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The bytes a stream holds outside its block grid: the object's tail (a footer and the metadata before
 * it), and the spans its reads fetched beyond what they asked for (a whole column chunk when a read
 * started in it, the page indexes, a readahead after a small read). The sequential reads, the positional
 * reads and the vectored reads of the stream all copy from here before they fetch.
 *
 * <p>Also the spans fetched ahead of the reads ({@link #addAhead}: the chunks a stream fetches
 * ahead by prediction, an ORC file's stripe footers and streams, through {@link AheadFetch}), while they are fetched too: a read that needs bytes of one waits for it ({@link #pending})
 * instead of fetching them again; how many bytes of each reads copied is told to whoever fetched it when
 * it goes ({@link Released}), and the accounts are theirs.
 *
 * <p>Bounded: the tail, and at most {@link #MAX_SPANS} other spans, the oldest dropped first (the spans
 * fetched ahead are bounded by their fetcher's budget, not here). Every span
 * is filled pool memory that the pool may take back while no reader copies from it (then a read finds it
 * gone and fetches again). Released on close and unbuffer; a buffer returns to the pool once no reader
 * copies from it. Thread-safe.
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
  private final Ahead ahead = new Ahead();

  /** Told, once, when a span fetched ahead goes: how many of its bytes reads copied (0 if its fetch failed). */
  @FunctionalInterface
  public interface Released {
    void released(long copied);
  }

  /**
   * Holds {@code span}, fetched ahead of the reads and being fetched: with its owner's reference (the
   * filler's pin is the filler's to drop); {@code fetched} completes once it is filled or dropped; {@code
   * released} is told once when it goes; {@code claimed} runs when a read comes to wait for it ({@link
   * #pending}): its fetch is then no longer a guess, and goes ahead of every prefetch.
   */
  public void addAhead(Span span, CompletableFuture<Void> fetched, Released released, Runnable claimed) {
    ahead.add(span, fetched, released, claimed);
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
    List<long[]> gaps = copyHeldParts(p, dst, off, len);
    if (gaps.isEmpty()) {
      return null;
    }
    long start = gaps.size() == 1 ? gaps.get(0)[0] : p;
    long end = gaps.size() == 1 ? gaps.get(0)[1] : p + len;
    return new Unheld(start, end, nextStart(end));
  }

  /**
   * Copies what the spans hold of {@code [p, p + len)} into {@code dst[off..]} and returns the ranges
   * they do not hold, in order, as {start, end} pairs (the whole range if they hold none of it).
   */
  private List<long[]> copyHeldParts(long p, byte[] dst, int off, int len) {
    long end = p + len;
    List<Span> found = candidates(p, end);
    found.sort(Comparator.comparingLong(Span::start));
    List<long[]> gaps = new ArrayList<>();
    long at = p;
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
          gaps.add(new long[] {at, from});
        }
        at = to;
      }
    }
    if (at < end) {
      gaps.add(new long[] {at, end});
    }
    return gaps;
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
   * and counts the bytes copied in the span's account (if it was fetched ahead) before letting go of it.
   */
  private boolean copy(Span s, long from, byte[] dst, int off, long p, int n) {
    if (!s.tryPin()) {
      return false; // taken back by the pool
    }
    try {
      if (!s.isReady()) {
        return false;
      }
      System.arraycopy(s.buffer(), (int) (from - s.start()), dst, off + (int) (from - p), n);
      ahead.copied(s, n);
      return true;
    } finally {
      s.unpin();
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
    all.addAll(ahead.removeAll());
    for (Span s : all) {
      s.releaseOwner();
    }
  }

  /**
   * The spans fetched ahead, being fetched or filled, in the order they were started, and how many bytes
   * of each reads copied. Thread-safe; never calls out while it holds its lock.
   */
  private static final class Ahead {
    /** Guarded by {@code this}. */
    private final Map<Span, Fetched> spans = new LinkedHashMap<>();

    /**
     * A span's fetch, who is told when it goes, what runs when a read claims it, and how many of its bytes
     * reads copied, each byte once at most.
     */
    private record Fetched(CompletableFuture<Void> fetched, Released released, Runnable claimed, AtomicLong copied) {}

    synchronized void add(Span span, CompletableFuture<Void> fetched, Released released, Runnable claimed) {
      spans.put(span, new Fetched(fetched, released, claimed, new AtomicLong()));
    }

    void drop(Span span) {
      Fetched f;
      synchronized (this) {
        f = spans.remove(span);
      }
      if (f != null) {
        f.released().released(0);
        span.releaseOwner();
      }
    }

    void release(Span span) {
      Fetched f;
      synchronized (this) {
        f = spans.remove(span);
      }
      if (f != null) {
        f.released().released(f.copied().get());
        span.releaseOwner();
      }
    }

    synchronized List<Span> spans() {
      return spans.isEmpty() ? List.of() : List.copyOf(spans.keySet());
    }

    void copied(Span s, int n) {
      Fetched f;
      synchronized (this) {
        f = spans.get(s);
      }
      if (f != null) {
        f.copied().accumulateAndGet(n, (had, more) -> Math.min(s.length(), had + more));
      }
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

    /** Lets go of every span, telling each one's fetcher what reads copied; returns them, for the caller to release. */
    List<Span> removeAll() {
      Map<Span, Fetched> all;
      synchronized (this) {
        all = new LinkedHashMap<>(spans);
        spans.clear();
      }
      for (Fetched f : all.values()) {
        f.released().released(f.copied().get());
      }
      return new ArrayList<>(all.keySet());
    }
  }
}
