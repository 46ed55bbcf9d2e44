/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.read;

import dev.slipstream.Counter;
import dev.slipstream.ReadStatistics;
import dev.slipstream.internal.block.BufferPool;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;

/**
 * Parquet row groups read ahead: a reader decodes one row group while the next one's column chunks are
 * on their way. When an asynchronous (vectored) range read covers column chunks {@code i..j} of row
 * group {@code g} exactly — as parquet-java asks for the chunks of the columns it reads — the bytes of
 * chunks {@code i..j} of row group {@code g + 1} are fetched at once, in the background, into a pooled
 * buffer; a later range read inside them is served from it. Ranges of earlier row groups still held when
 * a later row group is asked for are dropped, counted as wasted.
 *
 * <p>Bounded: a range ahead is at most {@link #MAX_RANGE} bytes, a stream holds at most
 * {@link #MAX_HELD} bytes of them, and memory comes only from what is free in the pool (never waiting,
 * never evicting). Its fetches are prefetches: they queue behind every read a caller waits for.
 * Thread-safe.
 */
final class RowGroupAhead {
  static final int MAX_RANGE = 16 << 20;
  static final long MAX_HELD = 64L << 20;

  /** Fetches {@code [position, position + len)} into {@code dst[off..]}, as a prefetch. */
  interface Fetch {
    CompletableFuture<Void> start(long position, byte[] dst, int off, int len);
  }

  private final ParquetFooter footer;
  private final BufferPool pool;
  private final Fetch fetch;
  private final ReadStatistics stats;
  private final TreeMap<Long, Ahead> ahead = new TreeMap<>();
  private long held;
  private boolean closed;

  private static final class Ahead {
    final long start;
    final int length;
    final int group;
    final byte[] buffer;
    final CompletableFuture<Void> fetched;
    final List<CompletableFuture<Void>> copies = new ArrayList<>();
    boolean used;

    Ahead(long start, int length, int group, byte[] buffer, CompletableFuture<Void> fetched) {
      this.start = start;
      this.length = length;
      this.group = group;
      this.buffer = buffer;
      this.fetched = fetched;
    }
  }

  RowGroupAhead(ParquetFooter footer, BufferPool pool, Fetch fetch, ReadStatistics stats) {
    this.footer = footer;
    this.pool = pool;
    this.fetch = fetch;
    this.stats = stats;
  }

  /**
   * A range read is starting: if a range fetched ahead holds it, returns the future of its copy into
   * {@code dst}; else null (the caller fetches it). Either way, the next row group's same chunks are
   * fetched ahead if this read is one of a row group's column chunks.
   */
  synchronized CompletableFuture<Void> serve(long position, byte[] dst, int off, int len) {
    if (closed) {
      return null;
    }
    CompletableFuture<Void> served = null;
    Map.Entry<Long, Ahead> e = ahead.floorEntry(position);
    if (e != null && position + len <= e.getKey() + e.getValue().length) {
      Ahead a = e.getValue();
      if (!a.used) {
        a.used = true;
        stats.increment(Counter.ROW_GROUP_AHEAD_USED);
      }
      int from = (int) (position - a.start);
      served = a.fetched.thenRun(() -> System.arraycopy(a.buffer, from, dst, off, len));
      a.copies.add(served);
    }
    int[] at = footer.locate(position, position + len);
    if (at != null) {
      dropGroupsBefore(at[0]);
      if (at[0] + 1 < footer.rowGroupCount()) {
        startAhead(at[0] + 1, at[1], at[2]);
      }
    }
    return served;
  }

  private void startAhead(int group, int firstChunk, int lastChunk) {
    List<ParquetFooter.Chunk> chunks = footer.rowGroup(group);
    if (lastChunk >= chunks.size()) {
      return; // row groups with other columns: no guess
    }
    long start = chunks.get(firstChunk).start();
    long end = chunks.get(lastChunk).end();
    if (end <= start || end - start > MAX_RANGE || ahead.containsKey(start)) {
      return;
    }
    int len = (int) (end - start);
    if (held + len > MAX_HELD) {
      stats.increment(Counter.ROW_GROUP_AHEAD_SKIPPED);
      return;
    }
    byte[] buffer = pool.tryAcquire(BufferPool.sizeFor(len));
    if (buffer == null) {
      stats.increment(Counter.ROW_GROUP_AHEAD_SKIPPED);
      return;
    }
    held += len;
    stats.increment(Counter.ROW_GROUP_AHEAD_STARTED);
    ahead.put(start, new Ahead(start, len, group, buffer, fetch.start(start, buffer, 0, len)));
  }

  private void dropGroupsBefore(int group) {
    for (Iterator<Ahead> it = ahead.values().iterator(); it.hasNext(); ) {
      Ahead a = it.next();
      if (a.group < group) {
        it.remove();
        release(a);
      }
    }
  }

  /** Drops every range held; their buffers return once their fetch and copies have ended. */
  synchronized void clear() {
    for (Ahead a : ahead.values()) {
      release(a);
    }
    ahead.clear();
  }

  synchronized void close() {
    closed = true;
    clear();
  }

  /** Caller holds the lock and has taken {@code a} out of the map. */
  private void release(Ahead a) {
    if (!a.used) {
      stats.increment(Counter.ROW_GROUP_AHEAD_WASTED);
    }
    List<CompletableFuture<Void>> all = new ArrayList<>(a.copies);
    all.add(a.fetched);
    CompletableFuture.allOf(all.toArray(CompletableFuture[]::new)).whenComplete((v, t) -> {
      synchronized (this) {
        held -= a.length;
      }
      pool.release(a.buffer);
    });
  }
}
