/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.read;

import dev.slipstream.internal.fetch.BlockFetcher;
import dev.slipstream.internal.fetch.CancelToken;
import dev.slipstream.internal.fetch.Purpose;
import dev.slipstream.internal.source.SourceChain;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A stream's asynchronous fetches of exact ranges, each one of its requests, on the fetch executor: from
 * a tier that kept exactly that range, else through the chain in parallel parts of at most {@link #PART}
 * (each block's share from wherever it is), then offered to the tiers. What the large columnar ranges
 * ({@link JumpReads}), the asynchronous ranges ({@link VectoredReads}), the row groups read ahead ({@link
 * RowGroupAhead}) and the predicted columns ({@link ColumnsAhead}) fetch with; none of them waits here
 * (a caller who waits does so through {@link StreamRequests#await}).
 *
 * <p>Rules kept: a fetch thread never waits for another fetch; every range is one of the stream's
 * requests, so close cancels it, and its parts run under children of its token, so that a caller
 * interrupted while it waits for a range cancels that range's parts and no other request of the stream
 * (docs/architecture.md, rule 7). A range fetched ahead that a reader comes to wait for is promoted ahead
 * of every prefetch ({@link Fetch#promote}), as a block is when its reader arrives.
 */
final class RangeFetches {
  /** Largest part of a range: parts of one range are fetched in parallel. */
  static final int PART = 1024 * 1024;

  private final SourceChain chain;
  private final BlockFetcher fetcher;
  private final StreamRequests requests;

  RangeFetches(SourceChain chain, BlockFetcher fetcher, StreamRequests requests) {
    this.chain = chain;
    this.fetcher = fetcher;
    this.requests = requests;
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
   * Reads {@code [position, position + len)} into {@code dst[off..]}, asynchronously: from a tier if
   * exactly this range is kept there (looked up on the fetch executor), else from wherever its blocks are
   * in parallel parts, then offered to the tiers. Behind every read a caller waits for if {@code why} is
   * {@link Purpose#ROW_GROUP_AHEAD}, until promoted.
   */
  Fetch range(long position, byte[] dst, int off, int len, Purpose why) {
    // A prefetch queues behind every read a caller waits for.
    Fetch f = new Fetch(requests.start(why), fetcher, why != Purpose.ROW_GROUP_AHEAD);
    CompletableFuture<Void> all;
    if (!chain.keepsRange(position, len)) {
      all = parts(f, position, dst, off, len);
    } else {
      AtomicBoolean hit = new AtomicBoolean();
      all = f.submit(t -> hit.set(chain.readKeptRange(position, dst, off, len)))
          .thenCompose(v -> hit.get() ? CompletableFuture.<Void>completedFuture(null)
              : parts(f, position, dst, off, len).thenRun(() -> chain.keepRange(position, dst, off, len)));
    }
    f.done = all.whenComplete((v, t) -> requests.end(f.token));
    return f;
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
