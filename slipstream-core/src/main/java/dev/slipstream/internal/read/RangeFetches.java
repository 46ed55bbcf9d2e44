/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.read;

import dev.slipstream.ReadStatistics;
import dev.slipstream.internal.block.BufferPool;
import dev.slipstream.internal.block.Span;
import dev.slipstream.internal.fetch.BlockFetcher;
import dev.slipstream.internal.fetch.CancelToken;
import dev.slipstream.internal.fetch.Purpose;
import dev.slipstream.internal.source.SourceChain;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A stream's reads of ranges outside its block grid, and the one place they ask its {@link SourceChain}:
 * the read-through of a range. A range is kept in pieces cut from its start ({@code keptPiece}): each comes
 * from a tier that kept exactly that piece, else from wherever its blocks are (the stream's blocks, a tier,
 * S3 for the rest), and is then offered to the tiers to keep.
 * The jump and columnar reads ({@link JumpReads}), the asynchronous ranges ({@link VectoredReads}), the
 * row groups read ahead ({@link RowGroupAhead}) and the predicted columns ({@link ColumnsAhead}) all read
 * through here; nothing else in this package asks the chain about a range.
 *
 * <p>Two ways to wait, one protocol: {@link #range} runs it on the fetch executor, in parallel parts of at
 * most {@link #PART}, and returns at once (a caller who waits does so through {@link
 * StreamRequests#await}); {@link #readThrough} is for a caller who waits now, in one call: the blocks held,
 * then the tiers, then S3 (the read alone, or an extent around it into a span the caller then holds), then
 * the tiers are offered what came. It looks a small range up on the caller's thread and fetches it in one
 * request; a range of more than a part goes through {@link #range} either way.
 *
 * <p>Rules kept: a fetch thread never waits for another fetch; every range is one of the stream's
 * requests, so close cancels it, and its parts run under children of its token, so that a caller
 * interrupted while it waits for a range cancels that range's parts and no other request of the stream
 * (docs/architecture.md, rule 7). A range fetched ahead that a reader comes to wait for is promoted ahead
 * of every prefetch ({@link Fetch#promote}), as a block is when its reader arrives. Bytes a tier holds
 * reach a caller only through the tier's access check (rule 8, inside each tier).
 */
final class RangeFetches {
  /** Largest part of a range: parts of one range are fetched in parallel. */
  static final int PART = 1024 * 1024;

  private final SourceChain chain;
  private final BlockFetcher fetcher;
  private final StreamRequests requests;
  private final BufferPool pool;
  private final ReadStatistics stats;
  private final HeldSpans spans;
  private final int keptPiece;

  /**
   * @param pool where the spans {@link #readThrough} fetches into come from (free memory only)
   * @param spans what the stream holds outside its blocks: a vectored range copies it ({@link #rangeUnheld})
   * @param keptPiece the size of the pieces a range is kept in and looked up by, cut from the range's start:
   *     the pieces {@link ColumnsAhead} and {@link RowGroupAhead} fetch a run in, so that the same run is
   *     found under the same names whichever way a stream (or another host's) fetched it, whole or in
   *     pieces. A tier finds a range only by its exact bounds.
   */
  RangeFetches(SourceChain chain, BlockFetcher fetcher, StreamRequests requests, BufferPool pool,
      ReadStatistics stats, HeldSpans spans, int keptPiece) {
    if (keptPiece <= 0) {
      throw new IllegalArgumentException("the kept piece must be positive: " + keptPiece);
    }
    this.chain = chain;
    this.fetcher = fetcher;
    this.requests = requests;
    this.pool = pool;
    this.stats = stats;
    this.spans = spans;
    this.keptPiece = keptPiece;
  }

  /**
   * Bytes fetched around a read into a span of the pool, which the caller holds for the reads that follow:
   * {@code [start, start + length)}. With {@code keep} (a footer's tail, a columnar extent) it is looked up
   * as a tier kept exactly this range and, once fetched, offered to the tiers; without (a readahead after a
   * small read the tiers did not hold), it comes from S3 alone. {@code why} is the fetch's purpose.
   */
  record Extent(long start, int length, boolean keep, Purpose why) {}

  /**
   * How {@link #readThrough} serves a read a caller waits for.
   *
   * @param blocksFirst first from the blocks the stream and its tiers hold, sending nothing if they hold
   *     it all
   * @param keep the read alone (without {@code around}, or when memory is short for it) is looked up as a
   *     tier kept exactly it, read from wherever its blocks are, and offered to the tiers; without, it
   *     comes from S3 in one request and is not offered
   * @param why the purpose of the read alone
   * @param around the extent fetched around the read and held by the caller; null for the read alone
   */
  record Through(boolean blocksFirst, boolean keep, Purpose why, Extent around) {}

  /**
   * Reads {@code [position, position + len)} into {@code dst[off..]} for a caller who waits, in one call,
   * as {@code how} says: from the blocks the stream and its tiers hold ({@link Through#blocksFirst}); else
   * the extent around it ({@link Through#around}) into a span of free memory, as a tier kept it or from S3
   * and then offered to the tiers ({@link #fill}); else (no extent, or memory short for it) the read alone
   * ({@link Through#keep}).
   *
   * @return with the read in {@code dst} either way, the span filled with the extent, pinned for the
   *     caller, who holds it and then unpins it; null if no extent was fetched
   */
  Span readThrough(long position, byte[] dst, int off, int len, Through how) throws IOException {
    Extent e = how.around();
    if (e != null && (position < e.start() || position + len > e.start() + e.length())) {
      throw new IllegalArgumentException("extent " + e.start() + "+" + e.length() + " does not cover the read "
          + position + "+" + len);
    }
    if (how.blocksFirst() && chain.readFromTiers(position, dst, off, len)) {
      return null;
    }
    byte[] buffer = e == null ? null : pool.tryAcquire(BufferPool.sizeFor(e.length()));
    if (buffer != null) {
      Span span = new Span(e.start(), buffer, e.length(), pool, stats);
      try {
        fill(span, e.keep(), e.why());
        System.arraycopy(buffer, (int) (position - e.start()), dst, off, len);
        return span;
      } catch (IOException | RuntimeException ex) {
        span.unpin();
        span.releaseOwner();
        throw ex;
      }
    }
    if (how.keep()) {
      read(position, dst, off, len, how.why());
    } else {
      requests.readWaiting(position, len, how.why(), token -> chain.readFromStore(position, dst, off, len, token));
    }
    return null;
  }

  /**
   * One range being fetched, one request of the stream. {@link #done} completes once the lookup and every
   * part have ended, so that nothing writes into the range's buffer after it; {@link #cancel} stops them
   * all, and {@link #promote} moves those still queued ahead of every prefetch.
   */
  static final class Fetch {
    private final CancelToken token;
    private final BlockFetcher fetcher;
    private final Set<BlockFetcher.QueuedRead> queued = ConcurrentHashMap.newKeySet();
    private volatile boolean urgent;
    private CompletableFuture<Void> done;

    private Fetch(CancelToken token, BlockFetcher fetcher, boolean urgent) {
      this.token = token;
      this.fetcher = fetcher;
      this.urgent = urgent;
    }

    /** Completes once nothing of this fetch runs any more, exceptionally if it failed or was cancelled. */
    CompletableFuture<Void> done() {
      return done;
    }

    /** Stops every part of this range (an interrupted caller's); none of the stream's other requests. */
    void cancel() {
      token.cancel();
    }

    /** A reader waits for this range now: its parts go ahead of every prefetch, those to come too. */
    void promote() {
      urgent = true;
      for (BlockFetcher.QueuedRead q : queued) {
        q.promote();
      }
    }

    /** Runs {@code work} on the fetch executor under a child of the range's token. */
    private CompletableFuture<Void> submit(StreamRequests.ReadWork work) {
      CancelToken part = token.child();
      BlockFetcher.QueuedRead q = fetcher.submitRead(urgent, part, () -> work.run(part), () -> token.forget(part));
      queued.add(q);
      q.whenComplete((v, t) -> queued.remove(q));
      if (urgent) {
        q.promote(); // promoted while it was being submitted
      }
      return q;
    }
  }

  /**
   * Reads {@code [position, position + len)} into {@code dst[off..]}, asynchronously: each of its kept
   * pieces from a tier that kept exactly that piece (looked up on the fetch executor), the pieces missing
   * from wherever their blocks are, in parallel parts, then offered to the tiers piece by piece. Behind
   * every read a caller waits for if {@code why} is {@link Purpose#ROW_GROUP_AHEAD}, until promoted.
   */
  Fetch range(long position, byte[] dst, int off, int len, Purpose why) {
    // A prefetch queues behind every read a caller waits for.
    Fetch f = new Fetch(requests.start(why), fetcher, why != Purpose.ROW_GROUP_AHEAD);
    CompletableFuture<Void> all;
    if (!chain.keepsRange(position, len)) {
      all = parts(f, position, dst, off, len);
    } else {
      boolean[] found = new boolean[(int) ((len + (long) keptPiece - 1) / keptPiece)];
      all = f.submit(t -> lookUpPieces(position, dst, off, len, found))
          .thenCompose(v -> fetchMissingPieces(f, position, dst, off, len, found));
    }
    f.done = all.whenComplete((v, t) -> requests.end(f.token));
    return f;
  }

  /** Whether a read of {@code len} bytes for a caller who waits goes through {@link #range}. */
  private boolean throughRange(long position, int len) {
    return len > PART || len > keptPiece && chain.keepsRange(position, len);
  }

  /** Looks each kept piece of the range up in the tiers, in order, into its place in {@code dst}. */
  private void lookUpPieces(long position, byte[] dst, int off, int len, boolean[] found) throws IOException {
    for (int i = 0; i < found.length; i++) {
      int from = i * keptPiece;
      found[i] = chain.readKeptRange(position + from, dst, off + from, Math.min(keptPiece, len - from));
    }
  }

  /**
   * Fetches each run of pieces no tier had, in parts (as the whole range would be when none had any), and
   * offers those pieces to the tiers once their run is in.
   */
  private CompletableFuture<Void> fetchMissingPieces(Fetch f, long position, byte[] dst, int off, int len,
      boolean[] found) {
    List<CompletableFuture<Void>> runs = new ArrayList<>();
    for (int i = 0; i < found.length; ) {
      if (found[i]) {
        i++;
        continue;
      }
      int first = i;
      while (i < found.length && !found[i]) {
        i++;
      }
      int from = first * keptPiece;
      int to = Math.min(len, i * keptPiece);
      runs.add(parts(f, position + from, dst, off + from, to - from).thenRun(() -> {
        for (int p = from; p < to; p += keptPiece) {
          chain.keepRange(position + p, dst, off + p, Math.min(keptPiece, to - p));
        }
      }));
    }
    return CompletableFuture.allOf(runs.toArray(CompletableFuture[]::new));
  }

  /**
   * A vectored range: copies what the stream's spans hold of {@code [position, position + len)} now (a
   * column chunk a dictionary read fetched whole, say) and reads the rest by {@link #range}: the one gap
   * at an end, or the whole range if what is held lies inside it (it would cut one GET in two).
   */
  CompletableFuture<Void> rangeUnheld(long position, byte[] dst, int off, int len) {
    List<long[]> gaps = spans.copyHeld(position, dst, off, len);
    if (gaps.isEmpty()) {
      return CompletableFuture.completedFuture(null);
    }
    if (gaps.size() > 1 || gaps.get(0)[0] == position && gaps.get(0)[1] == position + len) {
      return range(position, dst, off, len, Purpose.RANGE).done();
    }
    long[] g = gaps.get(0);
    return range(g[0], dst, off + (int) (g[0] - position), (int) (g[1] - g[0]), Purpose.RANGE).done();
  }

  /**
   * {@link #readThrough}'s read alone, with keeping. Reads exactly {@code [position, position + len)} into
   * {@code dst[off..]} for a caller who waits: from a tier that kept exactly this range, else from wherever its blocks are, then offered to the tiers. More
   * than a {@link #PART} comes through {@link #range}; less is looked up on the caller's thread and fetched
   * in one request.
   */
  void read(long position, byte[] dst, int off, int len, Purpose why) throws IOException {
    if (throughRange(position, len)) {
      Fetch f = range(position, dst, off, len, why);
      requests.await(f.done(), f::cancel);
      return;
    }
    if (chain.readKeptRange(position, dst, off, len)) {
      return;
    }
    requests.readWaiting(position, len, why, token -> chain.readAnywhere(position, dst, off, len, token));
    chain.keepRange(position, dst, off, len);
  }

  /**
   * {@link #readThrough}'s extent. Fills {@code span}, not yet filled, for a caller who waits and holds its
   * filler's pin, and marks it filled. With {@code keep} (a footer's tail, a columnar extent) it reads through as {@link #read} does,
   * straight into the span's buffer: the next query reads it from a tier. Without, it comes from S3 alone
   * and is not offered (a readahead after a small read the tiers did not hold). Each request writing into
   * the buffer pins it until it has ended, so that the buffer goes back to the pool only once none can
   * write into it (a part may be waiting for a tier's access check, which no cancel stops).
   */
  void fill(Span span, boolean keep, Purpose why) throws IOException {
    long start = span.start();
    int len = span.length();
    byte[] buffer = span.buffer();
    if (keep && throughRange(start, len)) {
      Fetch f = range(start, buffer, 0, len, why); // looked up and kept as a range there
      if (span.tryPin()) { // the parts' pin (the filler's is held by the caller): dropped once none of them runs
        f.done().whenComplete((v, t) -> span.unpin());
      }
      requests.await(f.done(), f::cancel);
      span.filled();
      return;
    }
    boolean kept = keep && chain.readKeptRange(span);
    if (!kept) {
      requests.readWaiting(start, len, why, token -> chain.readFromStore(start, buffer, 0, len, token), span);
    }
    span.filled();
    if (keep && !kept) {
      chain.keepRange(span);
    }
  }

  /** Reads {@code [position, position + len)} into {@code dst} in parallel parts on the fetch executor. */
  private CompletableFuture<Void> parts(Fetch f, long position, byte[] dst, int off, int len) {
    int parts = (len + PART - 1) / PART;
    int partSize = (len + parts - 1) / parts;
    List<CompletableFuture<Void>> all = new ArrayList<>(parts);
    for (int done = 0; done < len; done += partSize) {
      long p = position + done;
      int o = off + done;
      int n = Math.min(partSize, len - done);
      all.add(f.submit(t -> chain.readAnywhere(p, dst, o, n, t)));
    }
    return CompletableFuture.allOf(all.toArray(CompletableFuture[]::new));
  }
}
