/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.source;

import dev.slipstream.Counter;
import dev.slipstream.ReadStatistics;
import dev.slipstream.internal.block.BufferPool;
import dev.slipstream.internal.block.PooledBytes;
import dev.slipstream.internal.cache.DiskCache;
import dev.slipstream.internal.fetch.ObjectHandle;
import dev.slipstream.internal.util.AccessGate;
import java.io.IOException;
import java.util.function.Supplier;

/**
 * The local disk cache as a tier of one open object: what its pieces are named there, and reading them
 * back through the object's access check (docs/architecture.md, rule 8).
 *
 * <p>Every name holds the object's version (its ETag), so a new version never meets old bytes; an object
 * whose ETag is unknown is never cached. Blocks are named by the stream's block size and index; ranges
 * by their offset and length, and only ranges of at least {@link #MIN_RANGE} bytes are kept, as files of
 * their own.
 *
 * <p>What it writes: every block it is offered (the chain offers blocks left unread, or every block with
 * {@code cache.disk.mode=all}); a range at the object's end (a footer's tail) at once; any other range (a
 * column chunk, a stripe, a vectored range) at once with {@code all}, else at its second fetch from S3 in
 * this process ({@link DiskCache#fetchedBefore}). A scan that reads its columns once then writes none of
 * them to disk, where each range cost a file written on the cores that decode; a range read again after the
 * memory cache gave it up is kept from then on.
 */
public final class DiskTier implements Tier {
  /** Smallest range kept as a file of its own. */
  public static final int MIN_RANGE = Piece.MIN_RANGE;

  private final DiskCache cache;
  private final BufferPool pool;
  private final ObjectHandle h;
  private final int blockSize;
  private final ReadStatistics stats;
  private final Supplier<AccessGate> gate;
  private final boolean everyRange;

  /**
   * A tier over {@code cache} for {@code h}; {@code gate} gives the access check a cached byte passes;
   * {@code pool} lends the buffers a read for a caller goes through; {@code everyRange}: every range is
   * written at its first fetch ({@code cache.disk.mode=all}), not only a footer's tail.
   */
  public DiskTier(DiskCache cache, ObjectHandle h, int blockSize, BufferPool pool, Supplier<AccessGate> gate,
      boolean everyRange) {
    this.everyRange = everyRange;
    this.cache = cache;
    this.pool = pool;
    this.h = h;
    this.blockSize = blockSize;
    this.stats = h.stats();
    this.gate = gate;
  }

  /** The name of {@code piece} in the cache; null if it is not kept (see above). */
  DiskCache.BlockKey key(Piece piece) {
    return name(h, blockSize, piece);
  }

  /**
   * The name of {@code piece} of {@code h}'s version in a cache of the stream's grid of {@code blockSize}:
   * null if the version is unknown, or for a range shorter than {@link #MIN_RANGE}.
   */
  static DiskCache.BlockKey name(ObjectHandle h, int blockSize, Piece piece) {
    String etag = h.etag();
    if (etag == null) {
      return null;
    }
    if (!piece.worthKeeping()) {
      return null;
    }
    String bucket = h.location().bucket();
    String key = h.location().key();
    return piece.isBlock() ? new DiskCache.BlockKey(bucket, key, etag, blockSize, piece.index())
        : DiskCache.BlockKey.range(bucket, key, etag, piece.start(), piece.length());
  }

  /** Through a buffer of the pool: the caller's array sees no byte before S3's answer (rule 8). */
  @Override
  public Piece.Origin origin() {
    return Piece.Origin.DISK;
  }

  @Override
  public boolean read(Piece piece, int from, byte[] dst, int off, int n) throws IOException {
    DiskCache.BlockKey k = key(piece);
    return k != null && cache.read(k, piece.length(), from, dst, off, n, stats, gate.get(), pool);
  }

  /** Straight into the block's own buffer. */
  @Override
  public boolean readBlock(Piece piece, byte[] buffer) throws IOException {
    DiskCache.BlockKey k = key(piece);
    return k != null && cache.read(k, piece.length(), 0, buffer, 0, piece.length(), stats, gate.get(), null);
  }

  @Override
  public void keep(Piece piece, PooledBytes data) {
    DiskCache.BlockKey k = key(piece);
    if (k == null) {
      return;
    }
    if (piece.isBlock() || everyRange || piece.start() + piece.length() == h.length() || cache.fetchedBefore(k)) {
      cache.offer(k, data, stats);
    } else {
      stats.increment(Counter.DISK_CACHE_RANGES_DEFERRED);
    }
  }

  @Override
  public boolean keeps(Piece piece) {
    return key(piece) != null;
  }
}
