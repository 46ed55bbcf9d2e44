/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.source;

import dev.slipstream.Counter;
import dev.slipstream.ReadStatistics;
import dev.slipstream.internal.block.BufferPool;
import dev.slipstream.internal.block.PooledBytes;
import dev.slipstream.internal.block.Span;
import dev.slipstream.internal.fetch.ObjectHandle;
import java.io.IOException;
import java.util.List;

/**
 * What a stream's blocks and its chain's tiers hold of a range, and what they are offered to keep: the
 * questions {@link RangeThrough} asks before and after it goes to S3. A range is found either as each
 * block's share of it (the stream's own blocks first, then each tier in order), or as exactly the range a
 * tier kept; a range S3 gave back is offered to every tier as a pooled copy. A tier's trouble is a miss
 * (docs/architecture.md, rule 2). It holds no state of its own.
 */
final class RangeTiers {
  private final ObjectHandle h;
  private final OwnBlocks own;
  private final List<Tier> tiers;
  private final BufferPool pool;
  private final ReadStatistics stats;
  private final int blockSize;

  RangeTiers(ObjectHandle h, OwnBlocks own, List<Tier> tiers, BufferPool pool, int blockSize) {
    this.h = h;
    this.own = own;
    this.tiers = List.copyOf(tiers);
    this.pool = pool;
    this.stats = h.stats();
    this.blockSize = blockSize;
  }

  /**
   * Reads {@code [position, position + len)} from the blocks the stream and the tiers hold, each block's
   * share from the stream's blocks or the first tier that has it; false if any share is missing from all
   * (the shares found are then in dst).
   */
  boolean readFromTiers(long position, byte[] dst, int off, int len) throws IOException {
    int done = 0;
    while (done < len) {
      long p = position + done;
      int n = share(p, len - done);
      if (!readShare(p, dst, off + done, n)) {
        return false;
      }
      done += n;
    }
    return true;
  }

  /** Reads exactly the range a columnar reader fetched before, as a tier kept it; false on a miss. */
  boolean readKeptRange(long position, byte[] dst, int off, int len) throws IOException {
    Piece piece = Piece.range(position, len);
    for (Tier t : tiers) {
      if (t.read(piece, 0, dst, off, len)) {
        return true;
      }
    }
    return false;
  }

  /**
   * Fills {@code span}, not yet filled, with exactly its range as a tier kept it: straight into the span's
   * own buffer, which no caller sees before it is filled (no scratch memory, no copy); false on a miss.
   */
  boolean readKeptRange(Span span) throws IOException {
    Piece piece = Piece.range(span.start(), span.length());
    for (Tier t : tiers) {
      if (t.readBlock(piece, span.buffer())) {
        return true;
      }
    }
    return false;
  }

  /** Whether a tier keeps the range {@code [position, position + len)}, so that looking it up can hit. */
  boolean keepsRange(long position, int len) {
    Piece piece = Piece.range(position, len);
    for (Tier t : tiers) {
      if (t.keeps(piece)) {
        return true;
      }
    }
    return false;
  }

  /** Keeps a copy of a range just fetched from S3 into a caller's buffer; skipped (counted) when memory is short. */
  void keepRange(long position, byte[] src, int off, int len) {
    if (!keepsRange(position, len)) {
      return;
    }
    byte[] buffer = pool.tryAcquire(BufferPool.sizeFor(len));
    if (buffer == null) {
      stats.increment(Counter.DISK_CACHE_WRITES_SKIPPED);
      return;
    }
    System.arraycopy(src, off, buffer, 0, len);
    Span copy = new Span(position, buffer, len, pool, stats);
    copy.filled();
    keep(Piece.range(position, len), copy); // each tier pins the copy for as long as it needs it
    copy.unpin();
    copy.releaseOwner();
  }

  void keep(Piece piece, PooledBytes data) {
    for (Tier t : tiers) {
      t.keep(piece, data);
    }
  }

  /** Bytes of {@code [p, p + max)} in the block holding {@code p}. */
  int share(long p, int max) {
    long index = p / blockSize;
    return (int) Math.min(max, (index + 1) * blockSize - p);
  }

  boolean readShare(long p, byte[] dst, int off, int n) throws IOException {
    long index = p / blockSize;
    long start = index * blockSize;
    Piece piece = Piece.block(index, start, (int) Math.min(blockSize, h.length() - start));
    if (own.read(piece, (int) (p - start), dst, off, n)) {
      return true;
    }
    for (Tier t : tiers) {
      if (t.read(piece, (int) (p - start), dst, off, n)) {
        return true;
      }
    }
    return false;
  }
}
