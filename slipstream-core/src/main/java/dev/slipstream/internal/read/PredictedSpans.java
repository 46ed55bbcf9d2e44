/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.read;

import dev.slipstream.Counter;
import dev.slipstream.ReadStatistics;
import dev.slipstream.internal.block.Span;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The column chunks one stream fetched by prediction ({@link ColumnPrefetch}), and their accounts. While
 * one is being fetched, a read that needs its bytes waits for it ({@link #pending}) instead of fetching
 * them again; what reads copied of each is counted, and what they did not is counted unread when it is
 * released: the stream's share of what {@link PredictedColumns} judges a schema's predictions by. The
 * spans themselves are held bytes like any other: {@link HeldSpans} copies from them and releases them.
 * Thread-safe; never calls out while it holds its lock.
 */
final class PredictedSpans {
  private final ReadStatistics stats;
  /** Being fetched or filled, in the order they were started; guarded by {@code this}. */
  private final Map<Span, Predicted> predicted = new LinkedHashMap<>();
  /** Bytes fetched by prediction and released so far, and how many of them no read copied; guarded by {@code this}. */
  private long predictedBytes;
  private long unreadBytes;

  /**
   * A predicted span's fetch; its first {@code chunkBytes} are the predicted chunks' (the rest, bytes after
   * a small chunk up to the 64 KiB floor); how many of its bytes reads copied, each byte once at most.
   */
  private record Predicted(CompletableFuture<Void> fetched, long chunkBytes, AtomicLong copied) {}

  PredictedSpans(ReadStatistics stats) {
    this.stats = stats;
  }

  /**
   * Holds {@code span}, predicted chunks (or a part of one) being fetched: with its owner's reference
   * (the filler's pin is the filler's to drop); {@code fetched} completes once it is filled or dropped;
   * {@code chunkBytes}: the bytes of it that are predicted chunks, counted as such.
   */
  void add(Span span, CompletableFuture<Void> fetched, long chunkBytes) {
    synchronized (this) {
      predicted.put(span, new Predicted(fetched, chunkBytes, new AtomicLong()));
    }
    stats.add(Counter.PREDICTED_COLUMN_BYTES, chunkBytes);
  }

  /** A predicted span's fetch failed: dropped, its bytes unread (a read fetches them itself). */
  void drop(Span span) {
    Predicted pr;
    synchronized (this) {
      pr = predicted.remove(span);
      if (pr != null) {
        predictedBytes += pr.chunkBytes();
        unreadBytes += pr.chunkBytes();
      }
    }
    if (pr != null) {
      stats.add(Counter.PREDICTED_COLUMN_BYTES_UNREAD, pr.chunkBytes());
      span.releaseOwner();
    }
  }

  /** The spans held, being fetched or filled, in the order they were started. */
  synchronized List<Span> spans() {
    return predicted.isEmpty() ? List.of() : List.copyOf(predicted.keySet());
  }

  /** A read copied {@code n} bytes of {@code s}: counted if {@code s} is a predicted span. */
  void copied(Span s, int n) {
    Predicted pr;
    synchronized (this) {
      pr = predicted.get(s);
    }
    if (pr != null) {
      pr.copied().accumulateAndGet(n, (had, more) -> Math.min(s.length(), had + more));
    }
  }

  /**
   * Completes once every predicted span overlapping {@code [p, p + len)} is filled or has failed (never
   * exceptionally): then what they hold can be copied, and the rest is fetched.
   */
  CompletableFuture<Void> pending(long p, int len) {
    long end = p + len;
    List<CompletableFuture<Void>> waits = new ArrayList<>(2);
    synchronized (this) {
      for (Map.Entry<Span, Predicted> e : predicted.entrySet()) {
        Span s = e.getKey();
        if (s.start() < end && p < s.end() && !e.getValue().fetched().isDone()) {
          waits.add(e.getValue().fetched().handle((v, t) -> null));
        }
      }
    }
    return waits.isEmpty() ? CompletableFuture.completedFuture(null)
        : CompletableFuture.allOf(waits.toArray(CompletableFuture[]::new));
  }

  /** Bytes fetched by prediction and released so far (close, unbuffer). */
  synchronized long predictedBytes() {
    return predictedBytes;
  }

  /** Of {@link #predictedBytes}, the bytes no read copied. */
  synchronized long unreadBytes() {
    return unreadBytes;
  }

  /**
   * Lets go of every span, counting the bytes of each that no read copied as unread; returns them, for
   * the caller to release (after it let go of its own lock).
   */
  List<Span> removeAll() {
    List<Span> all;
    long unread = 0;
    synchronized (this) {
      all = new ArrayList<>(predicted.keySet());
      for (Predicted pr : predicted.values()) {
        predictedBytes += pr.chunkBytes();
        unread += Math.max(0, pr.chunkBytes() - pr.copied().get());
      }
      predicted.clear();
      unreadBytes += unread;
    }
    stats.add(Counter.PREDICTED_COLUMN_BYTES_UNREAD, unread);
    return all;
  }
}
