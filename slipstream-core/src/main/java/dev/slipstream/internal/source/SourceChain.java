/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.source;

import dev.slipstream.Counter;
import dev.slipstream.ReadStatistics;
import dev.slipstream.internal.block.Block;
import dev.slipstream.internal.block.BufferPool;
import dev.slipstream.internal.block.PooledBytes;
import dev.slipstream.internal.block.Span;
import dev.slipstream.internal.fetch.CancelToken;
import dev.slipstream.internal.fetch.ObjectHandle;
import java.io.IOException;
import java.util.List;

/**
 * Where one open object's bytes come from, in one place: the blocks the stream holds ({@link OwnBlocks},
 * for the shares of a range read only), then its tiers in the order {@link Sources} built them (the memory
 * cache, the disk cache, the shared tier, each where configured), then S3. Every read of the stream that
 * is not a copy from a block or span it holds asks the chain, and the chain alone offers what S3 gave back
 * to the tiers (write-behind).
 *
 * <p>Rules kept: a tier's trouble is a miss and the read goes on down the chain (docs/architecture.md,
 * rule 2); only S3's answer fails a read; bytes come from a tier only by the name of this version, and
 * through S3's access check for this open (rule 8, inside each tier).
 */
public final class SourceChain {
  /**
   * The blocks the stream holds, fetched: asked first for each block's share of a range read, never for a
   * block (a block being fetched is not one the stream holds yet), and never offered anything.
   */
  @FunctionalInterface
  public interface OwnBlocks {
    /** None: a chain for a stream that holds no blocks. */
    OwnBlocks NONE = (piece, from, dst, off, n) -> false;

    /**
     * Copies {@code [from, from + n)} of block {@code piece} into {@code dst[off, off + n)} if the stream
     * holds it fetched; false otherwise. Never waits.
     */
    boolean read(Piece piece, int from, byte[] dst, int off, int n);
  }

  private final ObjectHandle h;
  private final OwnBlocks own;
  private final List<Tier> tiers;
  private final S3Source s3;
  private final BufferPool pool;
  private final int blockSize;
  private final boolean keepEveryBlock;
  private final ReadStatistics stats;
  /** The client's simulated caches, or null. */
  private final dev.slipstream.internal.cache.ShadowCaches shadows;

  /**
   * @param own the blocks the stream holds
   * @param tiers the tiers before S3, in the order they are asked
   * @param keepEveryBlock every block read is offered to the tiers when the stream drops it ({@code
   *     cache.disk.mode=all}), not only those left before their end
   * @param shadows simulated caches told of every block this chain fills, or null
   */
  public SourceChain(ObjectHandle h, OwnBlocks own, List<Tier> tiers, S3Source s3, BufferPool pool, int blockSize,
      boolean keepEveryBlock, dev.slipstream.internal.cache.ShadowCaches shadows) {
    this.shadows = shadows;
    this.h = h;
    this.own = own;
    this.tiers = List.copyOf(tiers);
    this.s3 = s3;
    this.pool = pool;
    this.blockSize = blockSize;
    this.keepEveryBlock = keepEveryBlock;
    this.stats = h.stats();
  }

  /**
   * Fills block {@code b} of the grid (on a fetch thread): from the first tier that holds it, else from
   * S3 (in parallel parts if {@code parts} allows); a block whose buffer a tier lent holding its bytes only
   * waits until that tier may serve it. Returns where the bytes came from; a block the disk cache served
   * is marked so ({@link Block#markOnDisk}): it is not written there again.
   */
  public Piece.Origin readBlock(Block b, CancelToken token, boolean parts) throws IOException {
    Piece piece = Piece.block(b.index(), b.start(), b.length());
    String etag = h.etag();
    if (shadows != null && etag != null) {
      // named as the disk cache names blocks: by version, block size and index
      shadows.fetched(h.location().bucket() + "/" + h.location().key() + "\n" + etag + "\n" + blockSize + "\n"
          + b.index(), b.length());
    }
    if (b.lender() instanceof Tier lender) {
      lender.served(piece); // its buffer holds the bytes already
      return lender.origin();
    }
    for (Tier t : tiers) {
      if (token.isCancelled()) {
        break;
      }
      if (t.readBlock(piece, b.buffer())) {
        if (t.origin() == Piece.Origin.DISK) {
          b.markOnDisk();
        }
        return t.origin();
      }
    }
    s3.read(h, b.start(), b.buffer(), 0, b.length(), token, parts);
    return Piece.Origin.S3;
  }

  /**
   * Reads {@code [position, position + len)} from the blocks the stream and the tiers hold, each block's
   * share from the stream's blocks or the first tier that has it; false if any share is missing from all
   * (the shares found are then in dst).
   */
  public boolean readFromTiers(long position, byte[] dst, int off, int len) throws IOException {
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
  public boolean readKeptRange(long position, byte[] dst, int off, int len) throws IOException {
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
  public boolean readKeptRange(Span span) throws IOException {
    Piece piece = Piece.range(span.start(), span.length());
    for (Tier t : tiers) {
      if (t.readBlock(piece, span.buffer())) {
        return true;
      }
    }
    return false;
  }

  /** Whether a tier keeps the range {@code [position, position + len)}, so that looking it up can hit. */
  public boolean keepsRange(long position, int len) {
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
   * run of them in one GET. Never waits for another fetch.
   */
  public void readAnywhere(long position, byte[] dst, int off, int len, CancelToken token) throws IOException {
    long missingFrom = -1;
    int done = 0;
    while (done < len) {
      long p = position + done;
      int n = share(p, len - done);
      boolean served = readShare(p, dst, off + done, n);
      if (served && missingFrom >= 0) {
        s3.readNow(h, missingFrom, dst, off + (int) (missingFrom - position), (int) (p - missingFrom), token);
        missingFrom = -1;
      } else if (!served && missingFrom < 0) {
        missingFrom = p;
      }
      done += n;
    }
    if (missingFrom >= 0) {
      long end = position + len;
      s3.readNow(h, missingFrom, dst, off + (int) (missingFrom - position), (int) (end - missingFrom), token);
    }
  }

  /** Reads {@code [position, position + len)} from S3 for a caller who waits for it (on a fetch thread). */
  public void readFromStore(long position, byte[] dst, int off, int len, CancelToken token) throws IOException {
    s3.readNow(h, position, dst, off, len, token);
  }

  // ---- write-behind --------------------------------------------------------------------------

  /**
   * The buffer of a tier that holds block {@code index} ({@code length} bytes) already, if one does:
   * the new block is {@link Block#lentBy} that tier. Null if none does.
   */
  public Lent lend(long index, int length, int bufferSize) {
    Piece piece = Piece.block(index, index * blockSize, length);
    for (Tier t : tiers) {
      byte[] buffer = t.lend(piece, bufferSize);
      if (buffer != null) {
        return new Lent(buffer, t);
      }
    }
    return null;
  }

  /** A buffer holding a block's bytes, and the tier that lent it. */
  public record Lent(byte[] buffer, Tier by) {}

  /**
   * A block leaves the stream: offered to the tiers that keep every block, and to the others if it was
   * not read to its end (or to every one, with keepEveryBlock).
   */
  public void blockLeft(Block b) {
    if (!b.isReady()) {
      return;
    }
    Piece piece = Piece.block(b.index(), b.start(), b.length());
    boolean everyTier = keepEveryBlock || !b.readToEnd();
    for (Tier t : tiers) {
      if (everyTier || t.keepsEveryBlock()) {
        t.keep(piece, b);
      }
    }
  }

  /** Keeps {@code span}, a range just fetched from S3 into a pooled buffer. */
  public void keepRange(Span span) {
    keep(Piece.range(span.start(), span.length()), span);
  }

  /** Keeps a copy of a range just fetched from S3 into a caller's buffer; skipped (counted) when memory is short. */
  public void keepRange(long position, byte[] src, int off, int len) {
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
    keepRange(copy); // each tier pins the copy for as long as it needs it
    copy.unpin();
    copy.releaseOwner();
  }

  private void keep(Piece piece, PooledBytes data) {
    for (Tier t : tiers) {
      t.keep(piece, data);
    }
  }

  // ---- block shares --------------------------------------------------------------------------

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
}
