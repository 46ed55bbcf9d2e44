/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.read;

import dev.slipstream.internal.ahead.AheadBudget;
import dev.slipstream.internal.ahead.HeldSpans;
import dev.slipstream.internal.fetch.FetchRig;
import dev.slipstream.internal.fetch.ObjectHandle;
import dev.slipstream.internal.fetch.Purpose;
import dev.slipstream.internal.fetch.StreamRequests;
import dev.slipstream.internal.orc.OrcLayouts;
import dev.slipstream.internal.orc.StreamOrcLayout;
import dev.slipstream.internal.parquet.ParquetFooters;
import dev.slipstream.internal.parquet.RowGroupsAhead;
import dev.slipstream.internal.parquet.StreamFooter;
import dev.slipstream.internal.source.RangeThrough;
import dev.slipstream.internal.source.S3Source;
import dev.slipstream.internal.source.SourceChain;
import dev.slipstream.internal.source.Tier;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The parts of one open stream over a {@link FetchRig}, built as {@link ObjectReader} builds them, with
 * the tiers a test gives the chain: for unit tests of each part, without the stream's dispatch.
 */
final class StreamRig implements AutoCloseable {
  static final long CLOSE_WAIT_MILLIS = 200;

  final FetchRig fetch;
  final ObjectHandle h;
  final int blockSize;
  final int maxDepth;
  final StreamRequests requests;
  final HeldBlocks blocks;
  final SourceChain chain;
  final BlockWindow window;
  final HeldSpans spans;
  final StreamFooter parquet;
  final RangeThrough ranges;
  final VectoredReads vectored;
  final JumpReads jumps;

  /** A stream of an open S3 has answered, of blocks of {@code fetch}'s block size, prefetching at most {@code maxDepth}. */
  StreamRig(FetchRig fetch, int maxDepth, Tier... tiers) {
    this.fetch = fetch;
    this.h = fetch.answered();
    this.blockSize = fetch.config.blockSize();
    this.maxDepth = maxDepth;
    this.requests = new StreamRequests(h, CLOSE_WAIT_MILLIS);
    this.blocks = new HeldBlocks(h.stats());
    this.chain = new SourceChain(h, blocks, List.of(tiers), new S3Source(fetch.ranges, fetch.parts), fetch.pool,
        blockSize, false, null);
    this.window = new BlockWindow(h, fetch.pool, fetch.fetcher, chain, blocks, requests, blockSize, maxDepth, 0, false);
    this.spans = new HeldSpans(new AheadBudget((long) maxDepth * blockSize));
    this.parquet = new StreamFooter(h, new ParquetFooters(), new StreamOrcLayout(h, new OrcLayouts()), spans);
    this.ranges = chain.ranges(fetch.fetcher, requests, blockSize);
    this.vectored = new VectoredReads(ranges, h.stats(), spans);
    this.jumps = new JumpReads(h, requests, spans, parquet, ranges, blockSize);
  }

  long length() {
    return h.length();
  }

  byte[] data(long start, long end) {
    return fetch.data(start, end);
  }

  /** The GET of bytes {@code [start, end)}, as {@code ScriptedStore} names it. */
  static String get(long start, long end) {
    return start + "-" + end;
  }

  /** The GET of block {@code index}. */
  String block(long index) {
    return get(index * blockSize, Math.min(length(), (index + 1) * blockSize));
  }

  /**
   * A vectored read of {@code dst.length} bytes at {@code position} through {@code ahead}, as {@link
   * VectoredReads} makes one: the row groups told first, then what the store holds copied once what is
   * fetched ahead into it is in, each part left fetched as an exact range.
   */
  CompletableFuture<Void> vectoredRead(RowGroupsAhead ahead, long position, byte[] dst) {
    ahead.onRead(position, dst.length);
    return spans.pending(position, dst.length).thenCompose(v -> {
      List<CompletableFuture<Void>> all = new ArrayList<>();
      for (HeldSpans.Unheld g : spans.copyHeldRanges(position, dst, 0, dst.length)) {
        all.add(ranges.range(g.start(), dst, (int) (g.start() - position), g.length(), Purpose.RANGE).done());
      }
      return CompletableFuture.allOf(all.toArray(CompletableFuture[]::new));
    });
  }

  /** Waits until no block of the stream is still being fetched (prefetches included). */
  void awaitBlocks() throws InterruptedException {
    long deadline = System.nanoTime() + 5_000_000_000L;
    while (blocks.all().stream().anyMatch(b -> !b.isDone())) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("blocks still being fetched: " + blocks.all());
      }
      Thread.sleep(1);
    }
  }

  /** Closes the stream as {@link ObjectReader#close} does, then the fetch layer. */
  @Override
  public void close() {
    closeStream();
    fetch.close();
  }

  /** Closes the stream as {@link ObjectReader#close} does; the fetch layer, which other streams may share, stays. */
  void closeStream() {
    requests.close();
    window.dropAll(true);
    requests.awaitEnd();
    spans.releaseAll();
  }
}
