/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.read;

import dev.slipstream.Counter;
import dev.slipstream.ReadStatistics;
import dev.slipstream.SlipstreamConfig.CacheMode;
import dev.slipstream.internal.block.Block;
import dev.slipstream.internal.block.BufferPool;
import dev.slipstream.internal.cache.DiskCache;
import dev.slipstream.internal.fetch.BlockFetcher;
import dev.slipstream.internal.fetch.ObjectHandle;
import java.io.IOException;

/**
 * One open object's view of the disk cache: what its blocks and ranges are named there, which of them
 * are kept, and reading them back through the object's access check (DESIGN.md section 4, rule 8).
 *
 * <p>Two kinds of entry, each named by the object's version so that a new version never meets old
 * bytes: blocks (of the stream's block size), kept when a stream drops them unread to their end (every
 * block read, in mode {@code all}); and ranges, exactly as a columnar reader fetched them (a footer's
 * tail, column chunks, row groups read ahead), found again only by a read of exactly that range, as the
 * same query of the same columns makes. Without a cache, in mode {@code off}, or for an object whose
 * ETag is unknown, every lookup misses and nothing is kept.
 */
final class StreamDiskCache {
  /** Smallest range kept as a file of its own. */
  static final int MIN_RANGE = 4 * 1024;

  private final DiskCache cache;
  private final CacheMode mode;
  private final ObjectHandle h;
  private final BlockFetcher fetcher;
  private final BufferPool pool;
  private final int blockSize;
  private final ReadStatistics stats;

  /** @param cache the disk cache, or null */
  StreamDiskCache(DiskCache cache, CacheMode mode, ObjectHandle h, BlockFetcher fetcher, BufferPool pool,
      int blockSize) {
    this.cache = mode == CacheMode.OFF ? null : cache;
    this.mode = mode;
    this.h = h;
    this.fetcher = fetcher;
    this.pool = pool;
    this.blockSize = blockSize;
    this.stats = h.stats();
  }

  /** The name of block {@code index} of this version; null without a cache or a known ETag. */
  DiskCache.BlockKey blockKey(long index) {
    String etag = h.etag();
    if (cache == null || etag == null) {
      return null;
    }
    return new DiskCache.BlockKey(h.location().bucket(), h.location().key(), etag, blockSize, index);
  }

  /** The name of the range {@code [position, position + len)}; null if it is not kept (see above). */
  DiskCache.BlockKey rangeKey(long position, int len) {
    String etag = h.etag();
    if (cache == null || etag == null || len < MIN_RANGE) {
      return null;
    }
    return DiskCache.BlockKey.range(h.location().bucket(), h.location().key(), etag, position, len);
  }

  /**
   * Reads {@code [position, position + len)} from cached blocks; false (dst then undefined) if any is
   * missing.
   *
   * @throws IOException only S3's refusal of this open (the access check)
   */
  boolean readBlocks(long position, byte[] dst, int off, int len) throws IOException {
    if (cache == null || h.etag() == null) {
      return false;
    }
    long length = h.length();
    int done = 0;
    while (done < len) {
      long p = position + done;
      long index = p / blockSize;
      long start = index * blockSize;
      int blockLength = (int) Math.min(blockSize, length - start);
      int from = (int) (p - start);
      int n = Math.min(len - done, blockLength - from);
      if (!cache.read(blockKey(index), blockLength, from, dst, off + done, n, stats, fetcher.accessGate(h))) {
        return false;
      }
      done += n;
    }
    return true;
  }

  /**
   * Reads exactly the range a columnar read fetched before; false on a miss.
   *
   * @throws IOException only S3's refusal of this open (the access check)
   */
  boolean readRange(long position, byte[] dst, int off, int len) throws IOException {
    DiskCache.BlockKey k = rangeKey(position, len);
    return k != null && cache.read(k, len, 0, dst, off, len, stats, fetcher.accessGate(h));
  }

  /** Keeps {@code span}, a range just fetched from S3 into a pooled buffer (pinned until written). */
  void keepRange(Block span) {
    DiskCache.BlockKey k = rangeKey(span.start(), span.length());
    if (k != null) {
      cache.offer(k, span, stats);
    }
  }

  /** Keeps a copy of a range just fetched from S3 into a caller's buffer; skipped (counted) when memory is short. */
  void keepRange(long position, byte[] src, int off, int len) {
    DiskCache.BlockKey k = rangeKey(position, len);
    if (k == null) {
      return;
    }
    byte[] buffer = pool.tryAcquire(BufferPool.sizeFor(len));
    if (buffer == null) {
      stats.increment(Counter.DISK_CACHE_WRITES_SKIPPED);
      return;
    }
    System.arraycopy(src, off, buffer, 0, len);
    Block copy = new Block(-1, position, buffer, len, false, pool, stats, 1);
    copy.complete();
    cache.offer(k, copy, stats); // pins the copy until written
    copy.unpin();
    copy.releaseOwner();
  }

  /** A fetched block leaves the stream: kept if it was not read to its end (every block, in mode 'all'). */
  void blockDropped(Block b) {
    if (cache != null && b.isReady() && (mode == CacheMode.ALL || !b.readToEnd())) {
      DiskCache.BlockKey k = blockKey(b.index());
      if (k != null) {
        cache.offer(k, b, stats);
      }
    }
  }
}
