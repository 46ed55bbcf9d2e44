/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.read;

import dev.slipstream.Counter;
import dev.slipstream.ReadStatistics;
import dev.slipstream.internal.block.Block;
import dev.slipstream.internal.block.BufferPool;
import dev.slipstream.internal.fetch.BlockFetcher;
import dev.slipstream.internal.fetch.CancelToken;
import dev.slipstream.internal.fetch.ObjectHandle;
import dev.slipstream.internal.fetch.Purpose;
import dev.slipstream.internal.fetch.StreamRequests;
import dev.slipstream.internal.source.SourceChain;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The blocks one stream holds ({@link HeldBlocks}), by index: pinning, fetching (through the stream's
 * {@link SourceChain}, which is given the same blocks, to serve the ranges that cross them, but never
 * asks them for a block it fetches), prefetching at the depth the {@link ReadPlanner} asks for, and
 * dropping.
 *
 * <p>Rules kept (docs/architecture.md, rules 4 and 6): a reader pins at most one block at a time and never while it waits
 * for memory (see {@link BufferPool}); prefetch takes free memory only; a stream holds at most its
 * prefetch depth plus four blocks, the least recently used dropped first; a dropped block's fetch is
 * cancelled if nobody waits for it, and a block not read to its end is offered to the tiers. The window
 * moves with each read of the stream's position, in the call that serves it: after a jump, the blocks
 * fetched for the old position are dropped before the read sends anything (their memory freed, their
 * prefetches cancelled), and once the read is done, the blocks behind it.
 */
final class BlockWindow {
  /** A wait for a block shorter than this is a block arriving just in time, not a reader starved. */
  static final long NOTICEABLE_WAIT_NANOS = 1_000_000;
  private final ObjectHandle h;
  private final BufferPool pool;
  private final BlockFetcher fetcher;
  private final SourceChain chain;
  private final StreamRequests requests;
  private final ReadStatistics stats;
  private final int blockSize;
  private final long length;
  private final int maxDepth;
  private final int maxBlocks;
  /** The last block prefetch may start: the object's last, or the one holding the split's last byte. */
  private final long prefetchLimit;
  private final HeldBlocks blocks;
  /** The stream declared it reads the object once, start to end: blocks it read past leave as passed. */
  private final boolean readOnce;
  private final AtomicLong clock = new AtomicLong();
  private final Map<Block, Long> lastUse = new ConcurrentHashMap<>();
  /** A block fetched before this stream was opened (open-ahead), or null. */
  private volatile Block adopted;

  /**
   * @param blocks where the window keeps its blocks: empty, and given to {@code chain} too
   * @param chain where blocks are fetched from, and offered to when dropped
   * @param splitEnd the end of the caller's split (prefetch stops at its last block), or 0 for none
   */
  BlockWindow(ObjectHandle h, BufferPool pool, BlockFetcher fetcher, SourceChain chain, HeldBlocks blocks,
      StreamRequests requests, int blockSize, int maxDepth, long splitEnd, boolean readOnce) {
    this.h = h;
    this.readOnce = readOnce;
    this.pool = pool;
    this.fetcher = fetcher;
    this.chain = chain;
    this.blocks = blocks;
    this.requests = requests;
    this.stats = h.stats();
    this.blockSize = blockSize;
    this.length = h.length();
    // The sequential window, the block being read, and a few for positional readers.
    this.maxDepth = maxDepth;
    this.maxBlocks = maxDepth + 4;
    long last = length == 0 ? -1 : (length - 1) / blockSize;
    this.prefetchLimit = splitEnd > 0 ? Math.min(last, (splitEnd - 1) / blockSize) : last;
  }

  /**
   * Takes over a block fetched before this stream was opened (see {@code ObjectReader.adopt}); a block
   * of the wrong shape is released instead.
   */
  void adopt(Block b) {
    long start = b.index() * (long) blockSize;
    boolean fits = b.start() == start && b.length() == (int) Math.min(blockSize, length - start)
        && b.index() <= prefetchLimit && !requests.isClosed();
    if (!fits || blocks.putIfAbsent(b) != null) {
      b.releaseOwner();
      return;
    }
    lastUse.put(b, clock.incrementAndGet());
    adopted = b; // its fetch is not one of this stream's requests: close() waits for it separately
  }

  boolean holds(long index) {
    return blocks.holds(index);
  }

  /**
   * Copies {@code [position, position + len)} from blocks: a read in order prefetches ahead at the
   * planner's depth; a read after a jump starts all the blocks it spans and nothing beyond. A read of the
   * stream's position ({@code streamPath}) moves the window, as a jump does ({@link #jumpTo}): after a jump, what was
   * fetched for the old position is dropped first; once the read is done, the blocks behind it.
   */
  void copy(long position, byte[] dst, int off, int len, ReadPlanner planner, boolean inOrder,
      boolean streamPath) throws IOException {
    if (streamPath && !inOrder) {
      dropAway(position, len);
    }
    int done = 0;
    while (done < len) {
      long p = position + done;
      long index = p / blockSize;
      int depth = inOrder ? planner.enterBlock(index) : (int) ((position + len - 1) / blockSize - index);
      // in parts only while a run's window (this block and those ahead, up to the end of what it reads) is
      // too small to fill the threads with whole blocks; a jump's blocks are all wanted now
      int window = (int) Math.min(depth, Math.max(0, prefetchLimit - index)) + 1;
      boolean partsNow = !inOrder || planner.partsNow(window);
      boolean partsAhead = !inOrder || planner.partsAhead(window);
      done += copyFromBlock(index, p, dst, off + done, len - done, depth, partsNow, partsAhead,
          inOrder ? planner : null);
    }
    if (streamPath) {
      dropBefore((position + len) / blockSize);
    }
  }

  /**
   * The stream's position jumps to {@code [position, position + len)}, for a read the blocks do not serve:
   * what was fetched for the old position is dropped, before the read sends anything, so that its memory
   * is free and its prefetches are cancelled; the blocks the read spans, and the prefetch depth after them,
   * stay, since the read may take bytes from them. Once the read is done, its caller says so ({@link
   * #jumpRead}); a read that fails drops nothing more.
   */
  void jumpTo(long position, int len) {
    dropAway(position, len);
  }

  /** The read after a jump ({@link #jumpTo}) is done: the blocks behind its end are dropped. */
  void jumpRead(long position, int len) {
    dropBefore((position + len) / blockSize);
  }

  /**
   * Copies what block {@code index} holds of {@code [p, p + max)}; returns the bytes copied. Tells
   * {@code planner}, if any, whether the reader had to wait for the block.
   */
  private int copyFromBlock(long index, long p, byte[] dst, int off, int max, int prefetchDepth,
      boolean partsNow, boolean partsAhead, ReadPlanner planner) throws IOException {
    while (true) {
      Block b = pinOrFetch(index, partsNow);
      try {
        prefetch(index + 1, prefetchDepth, partsAhead);
        b.promote();
        boolean atHand = b.isReady();
        long waited = b.await();
        if (waited > 0) {
          stats.add(Counter.WAIT_NANOS, waited);
          stats.record(dev.slipstream.Latency.READ_WAIT, waited);
        }
        if (planner != null) {
          planner.blockArrived(index, !atHand && waited > NOTICEABLE_WAIT_NANOS);
        }
        requests.checkOpen();
        b.markUsed();
        lastUse.replace(b, clock.incrementAndGet());
        int inBlock = (int) (p - b.start());
        int n = Math.min(max, b.length() - inBlock);
        System.arraycopy(b.buffer(), inBlock, dst, off, n);
        b.noteRead(inBlock + n);
        if (atHand) {
          stats.add(Counter.BYTES_FROM_MEMORY, n);
        }
        return n;
      } catch (IOException e) {
        drop(b, false);
        requests.checkOpen();
        if (e instanceof BlockCancelledException) {
          continue; // dropped and cancelled just before we pinned it; we still want it
        }
        throw e; // the block had its retries; a later read will fetch it afresh
      } catch (RuntimeException e) {
        drop(b, false); // never leave a failed block where the next read would find it
        throw e;
      } finally {
        b.unpin();
      }
    }
  }

  /**
   * The block at {@code index}, pinned: from the map, or a new fetch (waiting for memory if need be), in
   * parallel parts if {@code parts}.
   */
  private Block pinOrFetch(long index, boolean parts) throws IOException {
    while (true) {
      requests.checkOpen();
      Block b = blocks.get(index);
      if (b != null) {
        if (b.tryPin()) {
          return b;
        }
        blocks.remove(b); // evicted by the pool: fetch it again
        lastUse.remove(b);
        continue;
      }
      if (blocks.size() >= maxBlocks) {
        dropLeastRecentlyUsed(); // positional reads must not make a stream hoard blocks
      }
      long start = index * blockSize;
      int len = (int) Math.min(blockSize, length - start);
      SourceChain.Lent lent = chain.lend(index, len, bufferSize(len));
      byte[] buffer = lent != null ? lent.buffer() : pool.acquire(bufferSize(len));
      // Owner + fetch + this reader.
      Block nb = new Block(index, start, buffer, len, false, pool, stats, 2);
      if (lent != null) {
        nb.lentBy(lent.by());
      }
      if (blocks.putIfAbsent(nb) != null) {
        nb.discard(2);
        continue;
      }
      start(nb, true, parts); // the reader waits for it
      return nb;
    }
  }

  /**
   * Starts fetching blocks {@code [from, from + depth)} not yet held, while memory allows; from S3 in
   * parallel parts if {@code parts} (see {@link dev.slipstream.internal.fetch.ParallelParts}).
   */
  private void prefetch(long from, int depth, boolean parts) {
    long last = Math.min(prefetchLimit, from + depth - 1);
    for (long i = from; i <= last && !requests.isClosed(); i++) {
      if (blocks.holds(i)) {
        continue;
      }
      if (blocks.size() >= maxBlocks) {
        dropLeastRecentlyUsed();
        if (blocks.size() >= maxBlocks) {
          return;
        }
      }
      long start = i * blockSize;
      int len = (int) Math.min(blockSize, length - start);
      SourceChain.Lent lent = chain.lend(i, len, bufferSize(len));
      byte[] buffer = lent != null ? lent.buffer() : pool.tryAcquire(bufferSize(len));
      if (buffer == null) {
        return; // memory is short: prefetch less, never wait for it
      }
      Block nb = new Block(i, start, buffer, len, true, pool, stats, 1);
      if (lent != null) {
        nb.lentBy(lent.by());
      }
      if (blocks.putIfAbsent(nb) != null) {
        nb.discard(1);
        continue;
      }
      start(nb, false, parts);
    }
  }

  private void start(Block b, boolean urgent, boolean parts) {
    CancelToken token = requests.start(BlockCancelledException::new, urgent ? Purpose.BLOCK : Purpose.PREFETCH);
    lastUse.put(b, clock.incrementAndGet());
    fetcher.submit(h, b, (blk, t) -> chain.readBlock(blk, t, parts), urgent, token, () -> requests.end(token));
    if (requests.isClosed()) {
      // close() may have swept the map before this block was in it, or before it could be cancelled
      b.cancel();
      drop(b, true);
    }
  }

  private int bufferSize(int blockLength) {
    return BufferPool.blockBufferSize(length, blockSize, blockLength);
  }

  // ---- dropping ------------------------------------------------------------------------------

  /**
   * Takes a block out of the map and drops the owner's reference. Its fetch is cancelled if no reader
   * is waiting for it, or with {@code force} (close): a waiting reader then gets the closed error. A
   * fetched block leaves through the chain, which offers it to the tiers.
   */
  private boolean drop(Block b, boolean force) {
    lastUse.remove(b);
    if (!blocks.remove(b)) {
      return false;
    }
    if (!b.isDone() && (force || !b.isWanted())) {
      b.cancel();
    }
    chain.blockLeft(b, readOnce);
    b.releaseOwner();
    return true;
  }

  /** The sequential reader moved on: blocks behind it are done with. */
  private void dropBefore(long index) {
    for (Block b : blocks.all()) {
      if (b.index() < index) {
        drop(b, false);
      }
    }
  }

  /**
   * A jump to {@code [position, position + len)}: what was fetched for the old position is dropped, all but
   * the blocks the read spans and the prefetch depth after its first.
   */
  private void dropAway(long position, int len) {
    long first = position / blockSize;
    dropOutside(first, first + Math.max(maxDepth, (len - 1) / blockSize + 1));
  }

  /** Drops the blocks outside {@code [from, to]}. */
  void dropOutside(long from, long to) {
    for (Block b : blocks.all()) {
      if (b.index() < from || b.index() > to) {
        drop(b, false);
      }
    }
  }

  /**
   * Drops every block (with {@code force}, cancelling even fetches a reader waits for) and returns those
   * this call dropped.
   */
  List<Block> dropAll(boolean force) {
    List<Block> dropped = new ArrayList<>();
    for (Block b : blocks.all()) {
      if (drop(b, force)) {
        dropped.add(b);
      }
    }
    return dropped;
  }

  private void dropLeastRecentlyUsed() {
    Block victim = null;
    long oldest = Long.MAX_VALUE;
    for (Block b : blocks.all()) {
      if (!b.isDone()) {
        continue;
      }
      long t = lastUse.getOrDefault(b, 0L);
      if (t < oldest) {
        oldest = t;
        victim = b;
      }
    }
    if (victim != null) {
      drop(victim, false);
    }
  }

  /** The adopted block's fetch (not one of this stream's requests) ended within {@code millis}, or there is none. */
  boolean awaitAdoptedFetch(long millis) {
    Block a = adopted;
    return a == null || a.awaitFetchEnd(millis);
  }
}
