/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.source;

import dev.slipstream.Counter;
import dev.slipstream.Latency;
import dev.slipstream.ReadStatistics;
import dev.slipstream.internal.block.Block;
import dev.slipstream.internal.block.BufferPool;
import dev.slipstream.internal.block.PooledBytes;
import dev.slipstream.internal.block.Scratch;
import dev.slipstream.internal.fetch.ObjectHandle;
import dev.slipstream.internal.util.AccessGate;
import dev.slipstream.spi.SharedBlockStore;
import java.io.IOException;
import java.util.Arrays;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * The shared block tier as a tier of one open object: blocks of its version in a {@link SharedBlockStore}
 * (memcached, shared by a cluster), under names {@link SharedNames} gives: keyed with the cluster's secret,
 * so that no bucket or key reaches the servers, nor which objects are cached, and a new version is a new
 * name. A block found there is served only after S3 has answered this open (docs/architecture.md, rule 8):
 * a read for a caller goes through a buffer of the pool, copied to the caller's array only then, so that
 * neither a refusal nor a partial hit (some chunks found, one missing) leaves the tier's bytes there. Every
 * block this open fetched from S3 is written there in the background ({@code read-write}), never one it
 * read from the tier. In {@code shadow} mode it serves nothing: each block or range from S3 whose name is in
 * the shadow sample is looked up in the background, compared, and written if missing, as read-write would
 * have ({@link SharedComparisons}); the others are left alone.
 * Blocks, and the exact ranges a columnar reader fetched (at least {@link Piece#MIN_RANGE} bytes: a footer's
 * tail, column chunks), found again by a read of exactly that range, as the same query of the same columns
 * makes on another host: a Spark executor reads Parquet by ranges.
 */
final class SharedTier implements Tier {
  private final SharedBlockStore store;
  private final SharedWrites writes;
  private final SharedComparisons comparisons;
  private final SharedNames names;
  private final ObjectHandle h;
  private final int blockSize;
  private final BufferPool pool;
  private final ReadStatistics stats;
  private final Supplier<AccessGate> gate;
  /** Blocks and ranges this open read from the tier whole: not written back. */
  private final Set<Piece> served = ConcurrentHashMap.newKeySet();

  /**
   * @param writes where blocks from S3 are written ({@code read-write}), or null
   * @param comparisons null, or shadow mode: never serve; blocks from S3 are compared with the tier's there,
   *     in the background, and written if missing. With neither, the tier is only read ({@code read-only}).
   */
  SharedTier(SharedBlockStore store, SharedWrites writes, SharedComparisons comparisons, SharedNames names,
      ObjectHandle h, int blockSize, BufferPool pool, Supplier<AccessGate> gate) {
    if (writes != null && comparisons != null) {
      throw new IllegalArgumentException("a shared tier either writes or compares (shadow), not both");
    }
    this.store = store;
    this.writes = writes;
    this.comparisons = comparisons;
    this.names = names;
    this.h = h;
    this.blockSize = blockSize;
    this.pool = pool;
    this.stats = h.stats();
    this.gate = gate;
  }

  /** The store's name of {@code piece}: null for a range too short to keep, or while the version is unknown. */
  byte[] name(Piece piece) {
    String etag = h.etag();
    if (etag == null || !piece.worthKeeping()) {
      return null;
    }
    String bucket = h.location().bucket();
    String key = h.location().key();
    return piece.isBlock() ? names.block(bucket, key, etag, blockSize, piece.index())
        : names.range(bucket, key, etag, piece.start(), piece.length());
  }

  /**
   * Through a buffer of the pool ({@link Scratch}: never memory beside the budget), copied to {@code dst}
   * after S3's answer; a miss on a fetch thread when the pool has none free.
   */
  @Override
  public Piece.Origin origin() {
    return Piece.Origin.SHARED;
  }

  @Override
  public boolean read(Piece piece, int from, byte[] dst, int off, int n) throws IOException {
    byte[] name = comparisons != null ? null : name(piece); // shadow mode serves nothing
    if (name == null) {
      return false;
    }
    byte[] scratch = Scratch.acquire(pool, BufferPool.sizeFor(n));
    if (scratch == null) {
      stats.increment(Counter.SHARED_MISSES); // no memory to spare for it: S3 reads it into dst itself
      return false;
    }
    try {
      if (!lookUp(name, piece, from, scratch, n)) {
        return false;
      }
      System.arraycopy(scratch, 0, dst, off, n);
    } finally {
      pool.release(scratch);
    }
    hit(piece, from, n);
    return true;
  }

  /** Straight into the block's own buffer, cleared if S3 refuses this open. */
  @Override
  public boolean readBlock(Piece piece, byte[] buffer) throws IOException {
    byte[] name = comparisons != null ? null : name(piece); // shadow mode serves nothing
    if (name == null) {
      return false;
    }
    try {
      if (!lookUp(name, piece, 0, buffer, piece.length())) {
        return false;
      }
    } catch (IOException refused) {
      Arrays.fill(buffer, 0, piece.length(), (byte) 0); // none of the tier's bytes stay in the pool's buffer
      throw refused;
    }
    hit(piece, 0, piece.length());
    return true;
  }

  /**
   * Asks the store for {@code [from, from + n)} of the block named {@code name} into {@code dst[0, n)}, and
   * on a hit waits for S3's answer to this open; false on a miss ({@code dst} may hold some chunks).
   */
  private boolean lookUp(byte[] name, Piece piece, int from, byte[] dst, int n) throws IOException {
    long t0 = System.nanoTime();
    boolean hit;
    try {
      hit = store.get(name, piece.length(), from, dst, 0, n);
    } catch (RuntimeException e) {
      stats.increment(Counter.SHARED_ERRORS); // a store that broke its contract: still only a miss (rule 2)
      hit = false;
    }
    stats.record(Latency.SHARED_GET, System.nanoTime() - t0);
    if (!hit) {
      stats.increment(Counter.SHARED_MISSES);
      return false;
    }
    gate.get().await();
    return true;
  }

  /** Counts a hit; a whole block read is not written back. */
  private void hit(Piece piece, int from, int n) {
    if (from == 0 && n == piece.length()) {
      served.add(piece);
    }
    stats.increment(Counter.SHARED_HITS);
    stats.add(Counter.SHARED_BYTES_READ, n);
  }

  @Override
  public void keep(Piece piece, PooledBytes data) {
    if ((writes == null && comparisons == null) || served.contains(piece)
        || (data instanceof Block b && b.lender() != null)) {
      return; // read-only, or read from the tier, or kept in memory since it came from S3 (written then)
    }
    byte[] name = name(piece);
    if (name == null) {
      return;
    }
    if (comparisons != null) {
      comparisons.compare(name, data, pool, stats); // only if the name is in the shadow sample
    } else {
      writes.offer(name, data, stats);
    }
  }

  @Override
  public boolean keeps(Piece piece) {
    return h.etag() != null && piece.worthKeeping();
  }

  @Override
  public boolean keepsEveryBlock() {
    return true;
  }
}
