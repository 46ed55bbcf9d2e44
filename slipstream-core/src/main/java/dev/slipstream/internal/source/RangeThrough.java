/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.source;

import dev.slipstream.internal.block.BufferPool;
import dev.slipstream.internal.block.Destination;
import dev.slipstream.internal.block.PooledBytes;
import dev.slipstream.internal.block.Span;
import dev.slipstream.internal.fetch.BlockFetcher;
import dev.slipstream.internal.fetch.CancelToken;
import dev.slipstream.internal.fetch.ObjectHandle;
import dev.slipstream.internal.fetch.Purpose;
import dev.slipstream.internal.fetch.StreamRequests;
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
 * <p>Ask, then fetch, in one line down: this class runs the range's pass and makes its requests; {@link
 * RangeTiers} answers what the blocks held and the tiers have and returns what is missing, which this class
 * then fetches (on the fetch executor, as requests of the stream) and offers back to the tiers. Nothing
 * below calls back up. Two ways to wait, one pass: {@link #range} runs it in parallel parts of at most
 * {@link #PART} (a guess's, in as many parts as threads are idle when it starts), one request of the
 * stream, and returns at once (a caller who waits does so through the
 * stream's {@link StreamRequests#await}); {@link #readThrough} is for a caller who waits now, in one call:
 * the blocks held, then (the read alone, or an extent around it into a span the caller then holds) the
 * tiers, then S3, then the tiers are offered what came. It looks a small range up on the caller's thread
 * and fetches it in one request; a range of more than a part in parts, as {@link #range} does, waited for
 * at once.
 *
 * <p>Rules kept: a tier's trouble is a miss (docs/architecture.md, rule 2); a fetch thread never waits for
 * another fetch; every range is one of the stream's requests ({@link StreamRequests}), so close cancels it,
 * and its parts run under children of its token, so that a caller interrupted while it waits for a range
 * cancels that range's parts and no other request of the stream (rule 7). A range fetched ahead that a
 * reader comes to wait for is promoted ahead of every prefetch ({@link Fetch#promote}), as a block is when
 * its reader arrives. Bytes a tier holds reach a caller only through the tier's access check (rule 8,
 * inside each tier).
 */
public final class RangeThrough {
  /** Largest part of a range: parts of one range are fetched in parallel. */
  public static final int PART = 1024 * 1024;

  /** A read into a caller's buffer on a fetch thread, given the token that can stop it. */
  @FunctionalInterface
  private interface Work {
    void run(CancelToken token) throws IOException;
  }

  private final ObjectHandle h;
  private final S3Source s3;
  private final BlockFetcher fetcher;
  private final StreamRequests requests;
  private final BufferPool pool;
  private final int keptPiece;
  /** What the blocks held and the tiers have of a range, and what they are offered once it is fetched. */
  final RangeTiers tiers;

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
      StreamRequests requests, BufferPool pool, int blockSize, int keptPiece) {
    if (keptPiece <= 0) {
      throw new IllegalArgumentException("the kept piece must be positive: " + keptPiece);
    }
    this.h = h;
    this.s3 = s3;
    this.fetcher = fetcher;
    this.requests = requests;
    this.pool = pool;
    this.keptPiece = keptPiece;
    this.tiers = new RangeTiers(h, own, tiers, s3, pool, blockSize, keptPiece);
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
    /** Fetched ahead, no caller waiting when it began: its parts are split as threads allow. */
    private final boolean guess;
    private CompletableFuture<Void> done;

    private Fetch(CancelToken token, BlockFetcher fetcher, boolean urgent) {
      this.token = token;
      this.fetcher = fetcher;
      this.urgent = urgent;
      this.guess = !urgent;
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

  // ---- a range in parts, asynchronously ------------------------------------------------------

  /**
   * Reads {@code [position, position + len)} into {@code dst[off..]}, asynchronously: each of its kept
   * pieces from a tier that kept exactly that piece (looked up on the fetch executor), the pieces missing
   * from wherever their blocks are, in parallel parts, then offered to the tiers piece by piece. Behind
   * every read a caller waits for if {@code why} is {@linkplain Purpose#fetchedAhead fetched ahead}, until
   * promoted.
   */
  public Fetch range(long position, byte[] dst, int off, int len, Purpose why) {
    return range(position, Destination.of(dst, off), len, why);
  }

  /**
   * {@link #range} into {@code dst}, which may be pieces of the stream's kept size ({@code keptPiece}) end to
   * end, from the range's start: a run of pieces held ahead is fetched in the same parts (the same GETs) as
   * one array would be, and each piece is looked up and kept under its own name, as {@link #range} cuts it.
   * The range is one request of the stream, whose parts run under children of its token ({@link #inParts}).
   */
  public Fetch range(long position, Destination dst, int len, Purpose why) {
    // A guess queues behind every read a caller waits for, until a reader claims it (Fetch#promote).
    Fetch f = new Fetch(requests.start(why), fetcher, !why.fetchedAhead());
    CompletableFuture<Void> all = inParts(position, dst, len, f);
    f.done = all.whenComplete((v, t) -> requests.end(f.token));
    return f;
  }

  /**
   * The pass of {@code [position, position + len)} into {@code dst}, each read a part of {@code f}: the
   * tiers are asked for its kept pieces (on the fetch executor), each run of pieces none had is fetched from
   * wherever it is in parallel parts of at most {@link #PART} (as the whole range would be when none had
   * any), then offered to the tiers piece by piece once the run is in. Where no tier keeps the range, it is
   * read in parts at once, with nothing to look up or offer.
   */
  private CompletableFuture<Void> inParts(long position, Destination dst, int len, Fetch f) {
    if (!tiers.keepsRange(position, len)) {
      return parts(position, dst, len, f);
    }
    boolean[][] found = new boolean[1][];
    CompletableFuture<Void> lookedUp = f.submit(t -> found[0] = tiers.lookUpPieces(position, dst, len));
    return lookedUp.thenCompose(v -> fetchMissingPieces(position, dst, len, found[0], f));
  }

  /** Fetches each run of pieces no tier had, in parts, and offers those pieces to the tiers once their run is in. */
  private CompletableFuture<Void> fetchMissingPieces(long position, Destination dst, int len, boolean[] found,
      Fetch f) {
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
      CompletableFuture<Void> run = parts(position + from, dst.from(from), to - from, f);
      runs.add(run.thenRun(() -> tiers.keepPieces(position, dst, from, to)));
    }
    return CompletableFuture.allOf(runs.toArray(CompletableFuture[]::new));
  }

  /**
   * Reads {@code [position, position + len)} into {@code dst} from wherever it is, in parallel parts of {@code
   * f}: of at most {@link #PART} for a read a caller waits for; for a guess, as many as threads are idle when
   * it starts ({@link #partsAsThreadsAllow}).
   */
  private CompletableFuture<Void> parts(long position, Destination dst, int len, Fetch f) {
    if (f.guess && len > PART) {
      return partsAsThreadsAllow(position, dst, len, f);
    }
    int parts = (len + PART - 1) / PART;
    int partSize = (len + parts - 1) / parts;
    List<CompletableFuture<Void>> all = new ArrayList<>(parts);
    for (int done = 0; done < len; done += partSize) {
      long p = position + done;
      Destination d = dst.from(done);
      int n = Math.min(partSize, len - done);
      all.add(f.submit(t -> tiers.readAnywhere(p, d, n, t)));
    }
    return CompletableFuture.allOf(all.toArray(CompletableFuture[]::new));
  }

  /**
   * A guess's range, split when its first part starts: while other fetches wait for a thread, into as many
   * parts as the fetch executor then has idle threads for, each at least a {@link #PART} but for the last;
   * else (nothing queued behind it, or a reader claimed it meanwhile) in parts of at most a {@link #PART}, as
   * a read a caller waits for. So guesses fetched many at once (a projection's later row groups) fill the
   * threads with one GET each, which spends less of each connection's time waiting for a first byte and
   * less CPU a byte in the SDK, and the last of them, with nothing behind, still spread over the threads
   * that come free. The first part runs on the thread that split the range and waits for no other part:
   * the range completes once every part has ended.
   */
  private CompletableFuture<Void> partsAsThreadsAllow(long position, Destination dst, int len, Fetch f) {
    List<CompletableFuture<Void>> others = new ArrayList<>();
    CompletableFuture<Void> first = f.submit(t -> {
      int most = (len + PART - 1) / PART;
      // Claimed by a reader before it started, or nothing waits behind it: parts for the threads to come.
      int parts = f.urgent || fetcher.queued() == 0 ? most : Math.min(most, 1 + fetcher.idleThreads());
      int size = (len + parts - 1) / parts;
      synchronized (others) {
        for (int done = size; done < len; done += size) {
          long p = position + done;
          Destination d = dst.from(done);
          int n = Math.min(size, len - done);
          others.add(f.submit(u -> tiers.readAnywhere(p, d, n, u)));
        }
      }
      tiers.readAnywhere(position, dst, Math.min(size, len), t);
    });
    CompletableFuture<Void> all = new CompletableFuture<>();
    first.whenComplete((v, t) -> {
      CompletableFuture<?>[] rest;
      synchronized (others) {
        rest = others.toArray(CompletableFuture[]::new);
      }
      CompletableFuture.allOf(rest).whenComplete((w, u) -> {
        Throwable failed = t != null ? t : u;
        if (failed == null) {
          all.complete(null);
        } else {
          all.completeExceptionally(failed);
        }
      });
    });
    return all;
  }

  // ---- a read a caller waits for --------------------------------------------------------------

  /**
   * Reads {@code how}'s range into {@code dst[off..]} for a caller who waits, in one pass, its requests made
   * here: from the blocks the stream and its tiers hold ({@link Through#blocksFirst}), sending nothing; else
   * the extent around it ({@link Through#around}) into a span of free memory ({@link #fillExtent}), the read
   * copied out of it; else (no extent, or memory short for it) the read alone ({@link #readAlone}).
   *
   * @return with the read in {@code dst} either way, the span filled with the extent, pinned for the
   *     caller, who holds it and then unpins it; null if no extent was fetched
   */
  public Span readThrough(Through how, byte[] dst, int off) throws IOException {
    long position = how.position();
    int len = how.length();
    Through.Extent e = how.around();
    if (how.blocksFirst() && tiers.readFromTiers(position, dst, off, len)) {
      return null;
    }
    byte[] buffer = e == null ? null : pool.tryAcquire(BufferPool.sizeFor(e.length()));
    if (buffer != null) {
      Span span = new Span(e.start(), buffer, e.length(), pool, h.stats());
      try {
        fillExtent(span, e.keep(), e.why());
        System.arraycopy(buffer, (int) (position - e.start()), dst, off, len);
        return span;
      } catch (IOException | RuntimeException ex) {
        span.unpin();
        span.releaseOwner();
        throw ex;
      }
    }
    readAlone(position, dst, off, len, how.keep(), how.why());
    return null;
  }

  /**
   * Whether a read of {@code len} bytes for a caller who waits, with keeping, goes in parts: more than a
   * {@link #PART}, or than a kept piece where a tier keeps ranges (then kept piece by piece).
   */
  private boolean inParts(long position, int len) {
    return len > PART || len > keptPiece && tiers.keepsRange(position, len);
  }

  /**
   * Reads exactly {@code [position, position + len)} into {@code dst[off..]} for a caller who waits. With
   * {@code keep}: in parts ({@link #inParts(long, Destination, int, Fetch)}, one request) if it is large;
   * else from a tier that kept exactly this range (looked up on the caller's thread), else from wherever its
   * blocks are in one request, then offered to the tiers. Without, from S3 alone in one request, and not
   * offered.
   */
  void readAlone(long position, byte[] dst, int off, int len, boolean keep, Purpose why) throws IOException {
    if (!keep) {
      waitOne(position, len, why, token -> s3.readNow(h, position, dst, off, len, token), null);
      return;
    }
    if (inParts(position, len)) {
      waitInParts(why, position, Destination.of(dst, off), len, null);
      return;
    }
    if (tiers.readKeptRange(position, dst, off, len)) {
      return;
    }
    waitOne(position, len, why, token -> tiers.readAnywhere(position, Destination.of(dst, off), len, token), null);
    tiers.keepRange(position, dst, off, len);
  }

  /**
   * Fills {@code span}, not yet filled, for a caller who waits and holds its filler's pin, and marks it
   * filled. With {@code keep} (a footer's tail, a columnar extent): in parts straight into the span's buffer
   * (one request) if it is large; else as a tier kept exactly its range, straight into the span's buffer,
   * else from S3 in one request and then the span itself offered to the tiers. Without (a readahead after a
   * small read the tiers did not hold), from S3 alone. Each request pins the span until it has ended, so
   * that its buffer goes back to the pool only once none can write into it (a part may be waiting for a
   * tier's access check, which no cancel stops).
   */
  void fillExtent(Span span, boolean keep, Purpose why) throws IOException {
    long start = span.start();
    int len = span.length();
    byte[] buffer = span.buffer();
    if (keep && inParts(start, len)) {
      waitInParts(why, start, Destination.of(buffer, 0), len, span);
      span.filled();
      return;
    }
    boolean found = keep && tiers.readKeptRange(span);
    if (!found) {
      waitOne(start, len, why, token -> s3.readNow(h, start, buffer, 0, len, token), span);
    }
    span.filled();
    if (keep && !found) {
      tiers.keep(Piece.range(start, len), span);
    }
  }

  /**
   * Runs {@code read} on the fetch executor, ahead of every prefetch, as a request of the stream, and waits
   * for it on the caller's thread ({@link StreamRequests#await}). A caller's GET never runs on its own
   * thread: interrupted mid-request, the S3 client drains the response body before it gives up, so a stalled
   * body would hold a killed task for the whole stall timeout; here an interrupt cancels the request. Into
   * {@code into}'s buffer, if not null: pinned until the request has ended, so that a caller interrupted
   * before then, which lets go of the bytes, never has their buffer recycled to another stream while the
   * request may still write into it.
   */
  private void waitOne(long position, int len, Purpose why, Work read, PooledBytes into) throws IOException {
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

  /**
   * Runs the pass of {@code [position, position + len)} into {@code dst} as one request of the stream, ahead
   * of every prefetch, each part under a child of its token, and waits for it on the caller's thread as
   * {@link #waitOne} does, until none of its parts runs. Into {@code into}'s buffer, if not null: pinned
   * until then (the filler's pin is the caller's).
   */
  private void waitInParts(Purpose why, long position, Destination dst, int len, PooledBytes into)
      throws IOException {
    Fetch f = new Fetch(requests.start(why), fetcher, true);
    f.done = inParts(position, dst, len, f).whenComplete((v, t) -> requests.end(f.token));
    if (into != null && into.tryPin()) {
      f.done.whenComplete((v, t) -> into.unpin());
    }
    requests.await(f.done, f::cancel, "");
  }
}
