/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.read;

import dev.slipstream.Counter;
import dev.slipstream.ReadStatistics;
import dev.slipstream.internal.block.BufferPool;
import dev.slipstream.internal.fetch.BlockFetcher;
import dev.slipstream.internal.fetch.CancelToken;
import dev.slipstream.internal.fetch.Purpose;
import dev.slipstream.internal.fetch.ObjectHandle;
import dev.slipstream.internal.source.SourceChain;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A stream's asynchronous range reads (Hadoop's vectored reads, and the large ranges of a columnar
 * reader): what the stream's spans hold is copied ({@link HeldSpans}: a column chunk a dictionary read
 * fetched whole, say), the rest read from wherever it is, through the chain, on the fetch executor; a
 * range larger than {@link #PART} in parallel parts. Once the stream has a Parquet plan, the row groups
 * a reader is about to ask for are fetched ahead ({@link RowGroupAhead}), and a read takes what they hold.
 *
 * <p>Rules kept: a fetch thread never waits for another fetch; every part is one of the stream's
 * requests, so close cancels it; an interrupted caller gets its buffer back only once the parts writing
 * into it have ended (bounded).
 */
final class VectoredReads {
  /** Largest part of an asynchronous range read: parts of one range are fetched in parallel. */
  static final int PART = 1024 * 1024;

  private final ObjectHandle h;
  private final SourceChain chain;
  private final BlockFetcher fetcher;
  private final BufferPool pool;
  private final StreamRequests requests;
  private final ReadStatistics stats;
  private final HeldSpans spans;
  private final StreamPlan plan;
  private final int blockSize;
  private final long maxAhead;
  private final Object lock = new Object();
  /** Parquet row groups read ahead (guarded by {@code lock}); null until the stream has a plan. */
  private RowGroupAhead rowGroups;

  /**
   * @param spans the bytes the stream holds outside its blocks
   * @param plan the stream's Parquet plan
   * @param blockSize the largest piece of a row group read ahead
   * @param maxAhead the most bytes of row groups a stream holds ahead
   */
  VectoredReads(ObjectHandle h, SourceChain chain, BlockFetcher fetcher, BufferPool pool, StreamRequests requests,
      HeldSpans spans, StreamPlan plan, int blockSize, long maxAhead) {
    this.h = h;
    this.chain = chain;
    this.fetcher = fetcher;
    this.pool = pool;
    this.requests = requests;
    this.stats = h.stats();
    this.spans = spans;
    this.plan = plan;
    this.blockSize = blockSize;
    this.maxAhead = maxAhead;
  }

  /** Reads {@code [position, position + len)} (inside the object, len > 0) into {@code dst} asynchronously. */
  CompletableFuture<Void> read(long position, byte[] dst, int off, int len) {
    CompletableFuture<Void> predicted = spans.pending(position, len); // chunks being fetched by prediction
    CompletableFuture<Void> done = predicted.isDone() ? readNow(position, dst, off, len)
        : predicted.thenCompose(v -> readNow(position, dst, off, len));
    return done.thenRun(() -> stats.add(Counter.BYTES_READ, len));
  }

  private CompletableFuture<Void> readNow(long position, byte[] dst, int off, int len) {
    RowGroupAhead ahead = rowGroupAhead();
    return ahead == null ? heldOrRange(position, dst, off, len) : ahead.read(position, dst, off, len, this::heldOrRange);
  }

  /**
   * Copies what the stream's spans hold of a range now, and reads the rest: one range, or the whole if
   * what is held lies inside it and would cut it in two.
   */
  private CompletableFuture<Void> heldOrRange(long position, byte[] dst, int off, int len) {
    List<long[]> gaps = spans.copyHeld(position, dst, off, len);
    if (gaps.isEmpty()) {
      return CompletableFuture.completedFuture(null);
    }
    if (gaps.size() > 1 || gaps.get(0)[0] == position && gaps.get(0)[1] == position + len) {
      // Held bytes in the middle of a range would split one GET into two: fetch it whole.
      return range(position, dst, off, len, Purpose.RANGE);
    }
    long[] g = gaps.get(0);
    return range(g[0], dst, off + (int) (g[0] - position), (int) (g[1] - g[0]), Purpose.RANGE);
  }

  /**
   * A range, asynchronously: from a tier if exactly this range is kept there (looked up on the fetch
   * executor), else from wherever its blocks are in parallel parts, then offered to the tiers.
   */
  CompletableFuture<Void> range(long position, byte[] dst, int off, int len, Purpose why) {
    boolean urgent = why != Purpose.ROW_GROUP_AHEAD; // a prefetch queues behind every read a caller waits for
    if (!chain.keepsRange(position, len)) {
      return parts(position, dst, off, len, urgent, why);
    }
    AtomicBoolean hit = new AtomicBoolean();
    CancelToken token = requests.start(why);
    return fetcher.submitRead(urgent, token, () -> hit.set(chain.readKeptRange(position, dst, off, len)),
            () -> requests.end(token))
        .thenCompose(v -> hit.get() ? CompletableFuture.<Void>completedFuture(null)
            : parts(position, dst, off, len, urgent, why).thenRun(() -> chain.keepRange(position, dst, off, len)));
  }

  /** Reads {@code [position, position + len)} into {@code dst} in parallel parts on the fetch executor. */
  private CompletableFuture<Void> parts(long position, byte[] dst, int off, int len, boolean urgent, Purpose why) {
    int parts = (len + PART - 1) / PART;
    int partSize = (len + parts - 1) / parts;
    List<CompletableFuture<Void>> all = new ArrayList<>(parts);
    for (int done = 0; done < len; done += partSize) {
      long p = position + done;
      int o = off + done;
      int n = Math.min(partSize, len - done);
      CancelToken token = requests.start(why);
      all.add(fetcher.submitRead(urgent, token, () -> chain.readAnywhere(p, dst, o, n, token),
          () -> requests.end(token)));
    }
    return CompletableFuture.allOf(all.toArray(CompletableFuture[]::new));
  }

  /** An S3 read into a caller's array, given the token that can stop it. */
  interface ReadWork {
    void run(CancelToken token) throws IOException;
  }

  /**
   * Runs {@code read} on the fetch executor, ahead of every prefetch, and waits for it on the caller's
   * thread. A caller's GET never runs on its own thread: interrupted mid-request, the S3 client drains
   * the response body before it gives up, so a stalled body would hold a killed task for the whole stall
   * timeout. Here an interrupt cancels the request (an open body is aborted, a response still to come
   * is dropped unread) and the read ends at once with an {@link java.io.InterruptedIOException}, the
   * interrupt status kept; the caller's array is handed back only once the request stopped writing into
   * it (bounded by the stream's close wait).
   */
  void readWaiting(long position, int len, Purpose why, ReadWork read) throws IOException {
    requests.checkOpen();
    CancelToken token = requests.start(why);
    await(fetcher.submitRead(true, token, () -> read.run(token), () -> requests.end(token)), token::cancel,
        " bytes " + position + "-" + (position + len - 1));
  }

  /** Waits for {@code range} on the caller's thread; an interrupt cancels its parts (see the class comment). */
  void await(CompletableFuture<Void> range) throws IOException {
    await(range, requests::cancelAll, "");
  }

  /**
   * Waits for {@code done}; if interrupted, runs {@code cancel}, gives the work the stream's close wait to
   * stop writing into the caller's array, and ends with an {@link java.io.InterruptedIOException} naming
   * the location and {@code what}, the interrupt status kept.
   */
  private void await(CompletableFuture<Void> done, Runnable cancel, String what) throws IOException {
    long t0 = System.nanoTime();
    try {
      done.get();
    } catch (InterruptedException e) {
      cancel.run();
      try {
        done.get(requests.closeWaitMillis(), TimeUnit.MILLISECONDS);
      } catch (Exception ended) {
        // cancelled, failed or still ending: the interrupt is what the caller hears of
      }
      Thread.currentThread().interrupt();
      throw new java.io.InterruptedIOException("interrupted while reading " + h.location() + what
          + ": the request was cancelled");
    } catch (ExecutionException e) {
      throw rethrown(e);
    } finally {
      long waited = System.nanoTime() - t0;
      stats.add(Counter.WAIT_NANOS, waited);
      stats.record(dev.slipstream.Latency.READ_WAIT, waited);
    }
  }

  /** The failure of a read run on a fetch thread, as the caller would have had it on its own. */
  private IOException rethrown(ExecutionException e) {
    return dev.slipstream.internal.fetch.Failures.cause(e, h.location().toString());
  }

  /** The Parquet row-group read-ahead, once the stream has a plan; null otherwise. */
  private RowGroupAhead rowGroupAhead() {
    synchronized (lock) {
      if (rowGroups != null) {
        return rowGroups;
      }
      ParquetFooter footer = plan.footer();
      if (footer != null && !requests.isClosed()) {
        // Through the chain: a row group fetched ahead by an earlier query is read from disk.
        rowGroups = new RowGroupAhead(footer, pool, (p, d, o, n) -> range(p, d, o, n, Purpose.ROW_GROUP_AHEAD), spans::unheldEnd,
            stats, blockSize, maxAhead);
      }
      return rowGroups;
    }
  }

  /** Gives back the row groups read ahead (unbuffer). */
  void clear() {
    RowGroupAhead rg = rowGroups();
    if (rg != null) {
      rg.clear();
    }
  }

  /** Cancels the row groups being read ahead: before the stream waits for its requests to end. */
  void close() {
    RowGroupAhead rg = rowGroups();
    if (rg != null) {
      rg.close();
    }
  }

  private RowGroupAhead rowGroups() {
    synchronized (lock) {
      return rowGroups;
    }
  }
}
