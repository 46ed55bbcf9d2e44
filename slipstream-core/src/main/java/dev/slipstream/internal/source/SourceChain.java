/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.source;

import dev.slipstream.internal.block.Block;
import dev.slipstream.internal.block.BufferPool;
import dev.slipstream.internal.fetch.BlockFetcher;
import dev.slipstream.internal.fetch.CancelToken;
import dev.slipstream.internal.fetch.StreamRequests;
import dev.slipstream.internal.fetch.ObjectHandle;
import java.io.IOException;
import java.util.List;

/**
 * Where one open object's blocks come from, in one place: its tiers in the order {@link Sources} built
 * them (the memory cache, the disk cache, the shared tier, each where configured), then S3; and where the
 * blocks a stream leaves go (write-behind). Ranges outside the block grid read through the same tiers by
 * the chain's {@link RangeThrough} ({@link #ranges}), which asks the blocks the stream holds first. Every
 * read of the stream that is not a copy from a block or span it holds asks one of the two, and they alone
 * offer what S3 gave back to the tiers.
 *
 * <p>Rules kept: a tier's trouble is a miss and the read goes on down the chain (docs/architecture.md,
 * rule 2); only S3's answer fails a read; bytes come from a tier only by the name of this version, and
 * through S3's access check for this open (rule 8, inside each tier).
 */
public final class SourceChain {
  private final ObjectHandle h;
  private final OwnBlocks own;
  private final List<Tier> tiers;
  private final S3Source s3;
  private final BufferPool pool;
  private final int blockSize;
  private final boolean keepEveryBlock;
  /** The client's simulated caches, or null. */
  private final dev.slipstream.internal.cache.ShadowCaches shadows;

  /**
   * @param own the blocks the stream holds: asked for the shares of a range read ({@link RangeThrough})
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
   * The read-through of ranges outside the stream's block grid, over this chain's blocks held and tiers
   * (one a stream): the one place the stream's range reads ask where their bytes are.
   *
   * @param fetcher runs the range's requests on the shared fetch executor
   * @param requests the stream's requests: every fetch of a range is one
   * @param keptPiece the size of the pieces a range is kept in and looked up by ({@link RangeThrough})
   */
  public RangeThrough ranges(BlockFetcher fetcher, StreamRequests requests, int keptPiece) {
    return new RangeThrough(h, own, tiers, s3, fetcher, requests, pool, blockSize, keptPiece);
  }

  // ---- blocks a tier lends, blocks the stream leaves (write-behind) ---------------------------

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
   * not read to its end (or to every one, with keepEveryBlock). {@code readOnce}: the stream declared it
   * reads the object once, start to end; a block it read to its end is then kept as passed ({@link
   * Block#passed}).
   */
  public void blockLeft(Block b, boolean readOnce) {
    if (!b.isReady()) {
      return;
    }
    if (readOnce && b.readToEnd()) {
      b.passed();
    }
    Piece piece = Piece.block(b.index(), b.start(), b.length());
    boolean everyTier = keepEveryBlock || !b.readToEnd();
    for (Tier t : tiers) {
      if (everyTier || t.keepsEveryBlock()) {
        t.keep(piece, b);
      }
    }
  }
}
