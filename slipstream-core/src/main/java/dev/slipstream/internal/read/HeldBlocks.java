/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.read;

import dev.slipstream.Counter;
import dev.slipstream.ReadStatistics;
import dev.slipstream.internal.block.Block;
import dev.slipstream.internal.source.Piece;
import dev.slipstream.internal.source.OwnBlocks;
import java.util.Collection;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The blocks one stream holds, by index, fetched or being fetched: the map its {@link BlockWindow}
 * fills and drops, and, for its {@link dev.slipstream.internal.source.RangeThrough}, the stream's own blocks, which serve the shares of
 * range reads that cross them. Made before both, so that each is given it when it is built; the window
 * alone adds and removes blocks. Thread-safe.
 */
final class HeldBlocks implements OwnBlocks {
  private final ReadStatistics stats;
  private final Map<Long, Block> blocks = new ConcurrentHashMap<>();

  HeldBlocks(ReadStatistics stats) {
    this.stats = stats;
  }

  Block get(long index) {
    return blocks.get(index);
  }

  boolean holds(long index) {
    return blocks.containsKey(index);
  }

  /** Puts {@code b} at its index unless a block is there already; returns that block, or null. */
  Block putIfAbsent(Block b) {
    return blocks.putIfAbsent(b.index(), b);
  }

  /** Removes {@code b} if it is still the block at its index. */
  boolean remove(Block b) {
    return blocks.remove(b.index(), b);
  }

  int size() {
    return blocks.size();
  }

  /** A live view of the blocks held, for sweeping (weakly consistent). */
  Collection<Block> all() {
    return blocks.values();
  }

  /** Copies from block {@code piece} if the stream holds it fetched; never waits. */
  @Override
  public boolean read(Piece piece, int from, byte[] dst, int off, int n) {
    Block b = piece.isBlock() ? blocks.get(piece.index()) : null;
    if (b == null || !b.isReady() || !b.tryPin()) {
      return false;
    }
    try {
      if (!b.isReady()) {
        return false;
      }
      System.arraycopy(b.buffer(), from, dst, off, n);
      b.noteRead(from + n);
      stats.add(Counter.BYTES_FROM_MEMORY, n);
      return true;
    } finally {
      b.unpin();
    }
  }
}
