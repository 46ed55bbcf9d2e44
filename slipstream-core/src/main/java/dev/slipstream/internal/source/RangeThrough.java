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
import java.io.IOException;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

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
 * <p>Decide, then do: this class makes the stream's requests and decides how each waits; {@link RangeTiers}
 * runs the range's pass through the tiers in one call (ask, fetch what is missing, keep), reaching the
 * fetch executor only through the requests handed to it, and never calls back for a decision. Two ways to
 * wait, one pass: {@link #range} runs it in parallel parts of at most {@link #PART}, one request of the
 * stream, and returns at once (a caller who waits does so through the stream's {@link Requests#await});
 * {@link #readThrough} is for a caller who waits now, in one call: the blocks held, then (the read alone,
 * or an extent around it into a span the caller then holds) the tiers, then S3, then the tiers are
 * offered what came. It looks a small range up on the caller's thread and fetches it in one request; a
 * range of more than a part in parts, as {@link #range} does, waited for at once.
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

  private final BlockFetcher fetcher;
  private final Requests requests;
  /** The range's pass through the blocks held, the tiers and S3: asked, fetched, then kept. */
  final RangeTiers kept;
  /** How the reads of a caller who waits now run, handed to {@link #kept}. */
  final RangeTiers.Waits waiting = new RangeTiers.Waits(this::waitOne, this::waitInParts);

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
    this.fetcher = fetcher;
    this.requests = requests;
    this.kept = new RangeTiers(h, own, tiers, s3, pool, blockSize, keptPiece);
  }

  /**
   * Reads {@code how}'s range into {@code dst[off..]} for a caller who waits, in one call to the range's pass
   * ({@link RangeTiers#readWaiting}), its requests made here: from the blocks the stream and its tiers hold
   * ({@link Through#blocksFirst}); else the extent around it ({@link Through#around}) into a span of free
   * memory, as a tier kept it or from S3 and then offered to the tiers; else (no extent, or memory short for
   * it) the read alone ({@link Through#keep}).
   *
   * @return with the read in {@code dst} either way, the span filled with the extent, pinned for the
   *     caller, who holds it and then unpins it; null if no extent was fetched
   */
  public Span readThrough(Through how, byte[] dst, int off) throws IOException {
    return kept.readWaiting(how, dst, off, waiting);
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
    private CompletableFuture<Void> submit(RangeTiers.Work work) {
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
   * The range is one request of the stream, whose parts run under children of its token; it goes through
   * the tiers in one pass ({@link RangeTiers#readInParts}).
   */
  public Fetch range(long position, Destination dst, int len, Purpose why) {
    // A guess queues behind every read a caller waits for, until a reader claims it (Fetch#promote).
    Fetch f = new Fetch(requests.start(why), fetcher, !why.fetchedAhead());
    CompletableFuture<Void> all = kept.readInParts(position, dst, len, f::submit);
    f.done = all.whenComplete((v, t) -> requests.end(f.token));
    return f;
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
  private void waitOne(long position, int len, Purpose why, RangeTiers.Work read, PooledBytes into)
      throws IOException {
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
   * Runs {@code parts} as one request of the stream, ahead of every prefetch, each part under a child of its
   * token, and waits for it on the caller's thread as {@link #waitOne} does, until none of its parts runs.
   * Into {@code into}'s buffer, if not null: pinned until then (the filler's pin is the caller's).
   */
  private void waitInParts(Purpose why, Function<RangeTiers.Submit, CompletableFuture<Void>> parts,
      PooledBytes into) throws IOException {
    Fetch f = new Fetch(requests.start(why), fetcher, true);
    f.done = parts.apply(f::submit).whenComplete((v, t) -> requests.end(f.token));
    if (into != null && into.tryPin()) {
      f.done.whenComplete((v, t) -> into.unpin());
    }
    requests.await(f.done, f::cancel, "");
  }
}
