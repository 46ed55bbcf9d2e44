/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.source;

import dev.slipstream.Counter;
import dev.slipstream.ReadStatistics;
import dev.slipstream.internal.block.BufferPool;
import dev.slipstream.internal.block.Destination;
import dev.slipstream.internal.block.PooledBytes;
import dev.slipstream.internal.block.Span;
import dev.slipstream.internal.fetch.CancelToken;
import dev.slipstream.internal.fetch.ObjectHandle;
import java.io.IOException;
import java.util.List;

/**
 * What the blocks a stream holds and the tiers before S3 have of a range, and what they are offered once
 * S3 gave it back (write-behind). It answers and keeps; it never fetches on its own and never waits:
 * {@link RangeThrough}, the one caller, decides how a range's requests run and asks this class, in turn,
 * what is held ({@link #readFromTiers}, {@link #lookUpPieces}, {@link #readKeptRange}), reads what is
 * missing from wherever it is on a fetch thread ({@link #readAnywhere}), and offers what came ({@link
 * #keepRange}, {@link #keepPieces}). A range is found either as each block's share of it, or as exactly the
 * range a tier kept, looked up in pieces cut from its start ({@code keptPiece}); a range S3 gave back is
 * offered to every tier as a pooled copy, piece by piece. A tier's trouble is a miss (docs/architecture.md,
 * rule 2). It holds no state of its own and knows nothing of the class that calls it.
 */
final class RangeTiers {
  private final ObjectHandle h;
  private final OwnBlocks own;
  private final List<Tier> tiers;
  private final S3Source s3;
  private final BufferPool pool;
  private final ReadStatistics stats;
  private final int blockSize;
  private final int keptPiece;

  RangeTiers(ObjectHandle h, OwnBlocks own, List<Tier> tiers, S3Source s3, BufferPool pool, int blockSize,
      int keptPiece) {
    this.h = h;
    this.own = own;
    this.tiers = List.copyOf(tiers);
    this.s3 = s3;
    this.pool = pool;
    this.stats = h.stats();
    this.blockSize = blockSize;
    this.keptPiece = keptPiece;
  }

  // ---- kept pieces of a range ----------------------------------------------------------------

  /**
   * Looks each kept piece of {@code [position, position + len)} up in the tiers, in order, into its place
   * in {@code dst}, on a fetch thread: which pieces were found, piece {@code i} being {@code [i * keptPiece,
   * (i + 1) * keptPiece)} of the range (the last may be shorter). A piece that would land in two buffers of
   * {@code dst} is not one the pieces of dst were cut as: not looked up.
   */
  boolean[] lookUpPieces(long position, Destination dst, int len) throws IOException {
    boolean[] found = new boolean[(int) ((len + (long) keptPiece - 1) / keptPiece)];
    for (int i = 0; i < found.length; i++) {
      int from = i * keptPiece;
      int n = Math.min(keptPiece, len - from);
      found[i] = dst.inOneArray(from, n) && readKeptRange(position + from, dst.array(from), dst.offset(from), n);
    }
    return found;
  }

  /**
   * Offers the kept pieces of {@code [from, to)} of a range at {@code position}, fetched into {@code dst},
   * to the tiers, piece by piece ({@code from} a piece's start in the range).
   */
  void keepPieces(long position, Destination dst, int from, int to) {
    for (int p = from; p < to; p += keptPiece) {
      int n = Math.min(keptPiece, to - p);
      if (dst.inOneArray(p, n)) {
        keepRange(position + p, dst.array(p), dst.offset(p), n);
      }
    }
  }

  // ---- what the blocks held and the tiers have -----------------------------------------------

  /**
   * Reads {@code [position, position + len)} from the blocks the stream and the tiers hold, each block's
   * share from the stream's blocks or the first tier that has it; false if any share is missing from all
   * (the shares found are then in dst). Sends nothing.
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

  /**
   * Reads {@code [position, position + len)} from wherever it is, on a fetch thread: each block's share
   * from the stream's blocks or the first tier that holds it, the shares missing from all from S3, each
   * run of them in one GET, across the buffers of {@code dst} (a share that lands in two is asked of the
   * blocks and tiers a buffer at a time). Never waits for another fetch.
   */
  void readAnywhere(long position, Destination dst, int len, CancelToken token) throws IOException {
    long missingFrom = -1;
    int done = 0;
    while (done < len) {
      long p = position + done;
      int n = Math.min(share(p, len - done), dst.room(done));
      boolean served = readShare(p, dst.array(done), dst.offset(done), n);
      if (served && missingFrom >= 0) {
        s3.readNow(h, missingFrom, dst.from(missingFrom - position), (int) (p - missingFrom), token);
        missingFrom = -1;
      } else if (!served && missingFrom < 0) {
        missingFrom = p;
      }
      done += n;
    }
    if (missingFrom >= 0) {
      long end = position + len;
      s3.readNow(h, missingFrom, dst.from(missingFrom - position), (int) (end - missingFrom), token);
    }
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

  /** Bytes of {@code [p, p + max)} in the block holding {@code p}. */
  private int share(long p, int max) {
    long index = p / blockSize;
    return (int) Math.min(max, (index + 1) * blockSize - p);
  }

  private boolean readShare(long p, byte[] dst, int off, int n) throws IOException {
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

  // ---- what S3 gave back, offered ------------------------------------------------------------

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

  /** Offers {@code data}, exactly the bytes of {@code piece}, to every tier. */
  void keep(Piece piece, PooledBytes data) {
    for (Tier t : tiers) {
      t.keep(piece, data);
    }
  }
}
