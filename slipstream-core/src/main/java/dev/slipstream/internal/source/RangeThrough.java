/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.source;

import dev.slipstream.ReadStatistics;
import dev.slipstream.internal.block.BufferPool;
import dev.slipstream.internal.block.Destination;
import dev.slipstream.internal.block.PooledBytes;
import dev.slipstream.internal.block.Span;
import dev.slipstream.internal.fetch.BlockFetcher;
import dev.slipstream.internal.fetch.CancelToken;
import dev.slipstream.internal.fetch.ObjectHandle;
import dev.slipstream.internal.fetch.Purpose;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The read-through of a range outside a stream's block grid, the one place such a read asks where its
 * bytes are: the blocks the stream holds ({@link OwnBlocks}), then the tiers of its chain in order, then
 * S3 for what is missing; then what S3 gave back is offered to the tiers (write-behind). A range is kept
 * in pieces cut from its start ({@code keptPiece}): each comes from a tier that kept exactly that piece,
 * else from wherever its blocks are, and is then offered to the tiers to keep. The stream's reads after a
 * jump, its columnar and vectored ranges, its row groups read ahead and its predicted columns all read
 * through here; no class of the stream asks the tiers or S3 about a range itself. Made by its {@link
 * SourceChain} ({@link SourceChain#ranges}), over the same tiers; the chain itself serves blocks.
 *
 * <p>Two ways to wait, one protocol: {@link #range} runs it on the fetch executor, in parallel parts of at
 * most {@link #PART}, and returns at once (a caller who waits does so through the stream's {@link
 * Requests#await}); {@link #readThrough} is for a caller who waits now, in one call: the blocks held,
 * then the tiers, then S3 (the read alone, or an extent around it into a span the caller then holds), then
 * the tiers are offered what came. It looks a small range up on the caller's thread and fetches it in one
 * request; a range of more than a part goes through {@link #range} either way.
 *
 * <p>Rules kept: a tier's trouble is a miss (docs/architecture.md, rule 2); a fetch thread never waits for
 * another fetch; every range is one of the stream's requests ({@link Requests}), so close cancels it, and
 * its parts run under children of its token, so that a caller interrupted while it waits for a range
 * cancels that range's parts and no other request of the stream (rule 7). A range fetched ahead that a
 * reader comes to wait for is promoted ahead of every prefetch ({@link Fetch#promote}), as a block is when
 * its reader arrives. Bytes a tier holds reach a caller only through the tier's access check (rule 8,
 * inside each tier).
 */
public final class RangeThrough {
  /** Largest part of a range: parts of one range are fetched in parallel. */
  public static final int PART = 1024 * 1024;

  /**
   * The requests of one stream, as the read-through makes them: each has a cancel token the stream's
   * close cancels, and a caller who waits for one waits through here, so that an interrupt cancels the
   * requests made for that caller and no other.
   */
  public interface Requests {
    /** A new request's token; cancelled at once if the stream is closed. */
    CancelToken start(Purpose why);

    /** The request of {@code token} has ended. */
    void end(CancelToken token);

    /**
     * Waits on the caller's thread for {@code done}: requests made for this caller alone, which write into
     * its array. An interrupt runs {@code cancel}, which stops them and no other request of the stream, gives
     * them the stream's close wait to stop writing, and ends the wait with an {@link
     * java.io.InterruptedIOException} naming {@code what}.
     */
    void await(CompletableFuture<Void> done, Runnable cancel, String what) throws IOException;
  }

  /** A read into a caller's array on a fetch thread, given the token that can stop it. */
  @FunctionalInterface
  private interface Work {
    void run(CancelToken token) throws IOException;
  }

  private final ObjectHandle h;
  private final S3Source s3;
  private final BlockFetcher fetcher;
  private final Requests requests;
  private final BufferPool pool;
  private final ReadStatistics stats;
  private final int blockSize;
  private final int keptPiece;
  /** The blocks held and the tiers, asked about a range. */
  final RangeTiers kept;

  /**
   * @param own the blocks the stream holds: each block's share of a range is asked of them first
   * @param tiers the tiers before S3, in the order they are asked
   * @param requests the stream's requests: every fetch here is one
   * @param pool where the spans {@link #readThrough} fetches into come from (free memory only)
   * @param blockSize the stream's block size: a range's share of each block is asked of the blocks held
   * @param keptPiece the size of the pieces a range is kept in and looked up by, cut from the range's start:
   *     the pieces the stream's predicted columns and row groups read ahead are fetched in, so that the same
   *     run is found under the same names whichever way a stream (or another host's) fetched it, whole or
   *     in pieces. A tier finds a range only by its exact bounds.
   */
  RangeThrough(ObjectHandle h, OwnBlocks own, List<Tier> tiers, S3Source s3, BlockFetcher fetcher,
      Requests requests, BufferPool pool, int blockSize, int keptPiece) {
    if (keptPiece <= 0) {
      throw new IllegalArgumentException("the kept piece must be positive: " + keptPiece);
    }
    this.h = h;
    this.s3 = s3;
    this.fetcher = fetcher;
    this.requests = requests;
    this.pool = pool;
    this.stats = h.stats();
    this.blockSize = blockSize;
    this.keptPiece = keptPiece;
    this.kept = new RangeTiers(h, own, tiers, pool, blockSize);
  }

  /**
   * Bytes fetched around a read into a span of the pool, which the caller holds for the reads that follow:
   * {@code [start, start + length)}. With {@code keep} (a footer's tail, a columnar extent) it is looked up
   * as a tier kept exactly this range and, once fetched, offered to the tiers; without (a readahead after a
   * small read the tiers did not hold), it comes from S3 alone. {@code why} is the fetch's purpose.
   */
  public record Extent(long start, int length, boolean keep, Purpose why) {}

  /**
   * A read a caller waits for, {@code [position, position + length)}, and how {@link #readThrough} serves it:
   * decided by the stream before it asks.
   *
   * @param blocksFirst first from the blocks the stream and its tiers hold, sending nothing if they hold
   *     it all
   * @param keep the read alone (without {@code around}, or when memory is short for it) is looked up as a
   *     tier kept exactly it, read from wherever its blocks are, and offered to the tiers; without, it
   *     comes from S3 in one request and is not offered
   * @param why the purpose of the read alone
   * @param around the extent fetched around the read and held by the caller; null for the read alone
   */
  public record Through(long position, int length, boolean blocksFirst, boolean keep, Purpose why, Extent around) {
    public Through {
      if (around != null && (position < around.start() || position + length > around.start() + around.length())) {
        throw new IllegalArgumentException("extent " + around.start() + "+" + around.length()
            + " does not cover the read " + position + "+" + length);
      }
    }
  }

  /**
   * Reads {@code how}'s range into {@code dst[off..]} for a caller who waits, in one call: from the blocks
   * the stream and its tiers hold ({@link Through#blocksFirst}); else the extent around it ({@link
   * Through#around}) into a span of free memory, as a tier kept it or from S3 and then offered to the tiers
   * ({@link #fill}); else (no extent, or memory short for it) the read alone ({@link Through#keep}).
   *
   * @return with the read in {@code dst} either way, the span filled with the extent, pinned for the
   *     caller, who holds it and then unpins it; null if no extent was fetched
   */
  public Span readThrough(Through how, byte[] dst, int off) throws IOException {
    long position = how.position();
    int len = how.length();
    Extent e = how.around();
    if (how.blocksFirst() && kept.readFromTiers(position, dst, off, len)) {
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
      readWaiting(position, len, how.why(), token -> s3.readNow(h, position, dst, off, len, token), null);
    }
    return null;
  }

  /**
   * One range being fetched, one request of the stream. {@link #done} completes once the lookup and every
   * part have ended, so that nothing writes into the range's buffer after it; {@link #cancel} stops them
   * all, and {@link #promote} moves those still queued ahead of every prefetch.
   */
  public static final class Fetch {
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
    public CompletableFuture<Void> done() {
      return done;
    }

    /** Stops every part of this range (an interrupted caller's); none of the stream's other requests. */
    public void cancel() {
      token.cancel();
    }

    /** A reader waits for this range now: its parts go ahead of every prefetch, those to come too. */
    public void promote() {
      urgent = true;
      for (BlockFetcher.QueuedRead q : queued) {
        q.promote();
      }
    }

    /** Runs {@code work} on the fetch executor under a child of the range's token. */
    private CompletableFuture<Void> submit(Work work) {
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
  public Fetch range(long position, byte[] dst, int off, int len, Purpose why) {
    return range(position, Destination.of(dst, off), len, why);
  }

  /**
   * {@link #range} into {@code dst}, which may be pieces of the stream's kept size ({@code keptPiece}) end to
   * end, from the range's start: a run of pieces held ahead is fetched in the same parts (the same GETs) as
   * one array would be, and each piece is looked up and kept under its own name, as {@link #range} cuts it.
   */
  public Fetch range(long position, Destination dst, int len, Purpose why) {
    // One request of the stream, ended once the range has; a prefetch queues behind every read a caller waits for.
    Fetch f = new Fetch(requests.start(why), fetcher, why != Purpose.ROW_GROUP_AHEAD);
    CompletableFuture<Void> all;
    if (!kept.keepsRange(position, len)) {
      all = parts(f, position, dst, len);
    } else {
      boolean[] found = new boolean[(int) ((len + (long) keptPiece - 1) / keptPiece)];
      all = f.submit(t -> lookUpPieces(position, dst, len, found))
          .thenCompose(v -> fetchMissingPieces(f, position, dst, len, found));
    }
    f.done = all.whenComplete((v, t) -> requests.end(f.token));
    return f;
  }

  /** Whether a read of {@code len} bytes for a caller who waits goes through {@link #range}. */
  private boolean throughRange(long position, int len) {
    return len > PART || len > keptPiece && kept.keepsRange(position, len);
  }

  /** Looks each kept piece of the range up in the tiers, in order, into its place in {@code dst}. */
  private void lookUpPieces(long position, Destination dst, int len, boolean[] found) throws IOException {
    for (int i = 0; i < found.length; i++) {
      int from = i * keptPiece;
      int n = Math.min(keptPiece, len - from);
      // A piece that would land in two buffers is not one the pieces of dst were cut as: fetched.
      found[i] = dst.inOneArray(from, n) && kept.readKeptRange(position + from, dst.array(from), dst.offset(from), n);
    }
  }

  /**
   * Fetches each run of pieces no tier had, in parts (as the whole range would be when none had any), and
   * offers those pieces to the tiers once their run is in.
   */
  private CompletableFuture<Void> fetchMissingPieces(Fetch f, long position, Destination dst, int len,
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
      runs.add(parts(f, position + from, dst.from(from), to - from).thenRun(() -> {
        for (int p = from; p < to; p += keptPiece) {
          int n = Math.min(keptPiece, to - p);
          if (dst.inOneArray(p, n)) {
            kept.keepRange(position + p, dst.array(p), dst.offset(p), n);
          }
        }
      }));
    }
    return CompletableFuture.allOf(runs.toArray(CompletableFuture[]::new));
  }

  /**
   * {@link #readThrough}'s read alone, with keeping. Reads exactly {@code [position, position + len)} into
   * {@code dst[off..]} for a caller who waits: from a tier that kept exactly this range, else from wherever
   * its blocks are, then offered to the tiers. More than a {@link #PART} comes through {@link #range}; less
   * is looked up on the caller's thread and fetched in one request.
   */
  void read(long position, byte[] dst, int off, int len, Purpose why) throws IOException {
    if (throughRange(position, len)) {
      Fetch f = range(position, Destination.of(dst, off), len, why);
      requests.await(f.done(), f::cancel, "");
      return;
    }
    if (kept.readKeptRange(position, dst, off, len)) {
      return;
    }
    readWaiting(position, len, why, token -> readAnywhere(position, Destination.of(dst, off), len, token), null);
    kept.keepRange(position, dst, off, len);
  }

  /**
   * {@link #readThrough}'s extent. Fills {@code span}, not yet filled, for a caller who waits and holds its
   * filler's pin, and marks it filled. With {@code keep} (a footer's tail, a columnar extent) it reads
   * through as {@link #read} does, straight into the span's buffer: the next query reads it from a tier.
   * Without, it comes from S3 alone and is not offered (a readahead after a small read the tiers did not
   * hold). Each request writing into the buffer pins it until it has ended, so that the buffer goes back to
   * the pool only once none can write into it (a part may be waiting for a tier's access check, which no
   * cancel stops).
   */
  void fill(Span span, boolean keep, Purpose why) throws IOException {
    long start = span.start();
    int len = span.length();
    byte[] buffer = span.buffer();
    if (keep && throughRange(start, len)) {
      Fetch f = range(start, Destination.of(buffer, 0), len, why); // looked up and kept as a range there
      if (span.tryPin()) { // the parts' pin (the filler's is held by the caller): dropped once none of them runs
        f.done().whenComplete((v, t) -> span.unpin());
      }
      requests.await(f.done(), f::cancel, "");
      span.filled();
      return;
    }
    boolean found = keep && kept.readKeptRange(span);
    if (!found) {
      readWaiting(start, len, why, token -> s3.readNow(h, start, buffer, 0, len, token), span);
    }
    span.filled();
    if (keep && !found) {
      kept.keep(Piece.range(span.start(), span.length()), span);
    }
  }

  /**
   * Runs {@code read} on the fetch executor, ahead of every prefetch, as a request of the stream, and waits
   * for it on the caller's thread ({@link Requests#await}). A caller's GET never runs on its own thread:
   * interrupted mid-request, the S3 client drains the response body before it gives up, so a stalled body
   * would hold a killed task for the whole stall timeout; here an interrupt cancels the request. Into {@code
   * into}'s buffer, if not null: pinned until the request has ended, so that a caller interrupted before
   * then, which lets go of the bytes, never has their buffer recycled to another stream while the request
   * may still write into it.
   */
  private void readWaiting(long position, int len, Purpose why, Work read, PooledBytes into) throws IOException {
    CancelToken token = requests.start(why);
    boolean pinned = into != null && into.tryPin();
    CompletableFuture<Void> ended = new CompletableFuture<>();
    CompletableFuture<Void> done = fetcher.submitRead(true, token, () -> read.run(token), () -> {
      requests.end(token);
      if (pinned) {
        into.unpin();
      }
      ended.complete(null);
    });
    // Waited for until the request has ended, as a range's fetch is (Fetch#done): its outcome, once it ended.
    requests.await(done.thenCombine(ended, (v, w) -> null), token::cancel,
        " bytes " + position + "-" + (position + len - 1));
  }

  /** Reads {@code [position, position + len)} into {@code dst} in parallel parts on the fetch executor. */
  private CompletableFuture<Void> parts(Fetch f, long position, Destination dst, int len) {
    int parts = (len + PART - 1) / PART;
    int partSize = (len + parts - 1) / parts;
    List<CompletableFuture<Void>> all = new ArrayList<>(parts);
    for (int done = 0; done < len; done += partSize) {
      long p = position + done;
      Destination d = dst.from(done);
      int n = Math.min(partSize, len - done);
      all.add(f.submit(t -> readAnywhere(p, d, n, t)));
    }
    return CompletableFuture.allOf(all.toArray(CompletableFuture[]::new));
  }

  // ---- S3 for what the tiers do not hold --------------------------------------------------

  /**
   * Reads {@code [position, position + len)} from wherever it is, on a fetch thread: each block's share
   * from the stream's blocks or the first tier that holds it, the shares missing from all from S3, each
   * run of them in one GET, across the buffers of {@code dst} (a share that lands in two is asked of the
   * blocks and tiers a buffer at a time). Never waits for another fetch.
   */
  void readAnywhere(long position, Destination dst, int len, CancelToken token) throws IOException {
    long missingFrom = -1;
    int done = 0;
    while (done < len) {
      long p = position + done;
      int n = Math.min(kept.share(p, len - done), dst.room(done));
      boolean served = kept.readShare(p, dst.array(done), dst.offset(done), n);
      if (served && missingFrom >= 0) {
        s3.readNow(h, missingFrom, dst.from(missingFrom - position), (int) (p - missingFrom), token);
        missingFrom = -1;
      } else if (!served && missingFrom < 0) {
        missingFrom = p;
      }
      done += n;
    }
    if (missingFrom >= 0) {
      long end = position + len;
      s3.readNow(h, missingFrom, dst.from(missingFrom - position), (int) (end - missingFrom), token);
    }
  }
}
