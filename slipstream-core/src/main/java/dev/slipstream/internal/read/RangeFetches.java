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
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A stream's asynchronous fetches of exact ranges, each one of its requests, on the fetch executor: from
 * a tier that kept exactly that range, else through the chain in parallel parts of at most {@link #PART}
 * (each block's share from wherever it is), then offered to the tiers. What the large columnar ranges
 * ({@link JumpReads}), the asynchronous ranges ({@link VectoredReads}), the row groups read ahead ({@link
 * RowGroupAhead}) and the predicted columns ({@link ColumnsAhead}) fetch with; none of them waits here
 * (a caller who waits does so through {@link StreamRequests#await}).
 *
 * <p>Rules kept: a fetch thread never waits for another fetch; every part is one of the stream's
 * requests, so close cancels it.
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
   * Reads {@code [position, position + len)} into {@code dst[off..]}, asynchronously: from a tier if
   * exactly this range is kept there (looked up on the fetch executor), else from wherever its blocks are
   * in parallel parts, then offered to the tiers. Behind every read a caller waits for if {@code why} is
   * {@link Purpose#ROW_GROUP_AHEAD}.
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
}
