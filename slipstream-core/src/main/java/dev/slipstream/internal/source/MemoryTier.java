/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.source;

import dev.slipstream.Counter;
import dev.slipstream.ReadStatistics;
import dev.slipstream.internal.block.BufferPool;
import dev.slipstream.internal.block.KeptBuffers;
import dev.slipstream.internal.block.PooledBytes;
import dev.slipstream.internal.cache.DiskCache;
import dev.slipstream.internal.fetch.ObjectHandle;
import dev.slipstream.internal.util.AccessGate;
import java.io.IOException;
import java.util.function.Supplier;

/**
 * The memory cache as a tier of one open object: pieces earlier streams of the same client were done
 * with, still in the pool's free memory (see {@link BufferPool}), named as the disk cache names them
 * plus the client they belong to. A whole block is taken over with its buffer ({@link #lend}); any other
 * read is a copy. Nothing is served before S3 has answered this open (docs/architecture.md, rule 8).
 */
final class MemoryTier implements Tier {
  /** The name of a piece in the pool: the client's own names only. */
  record Name(Object client, DiskCache.BlockKey piece) {}

  private final BufferPool pool;
  private final Object client;
  private final ObjectHandle h;
  private final int blockSize;
  private final ReadStatistics stats;
  private final Supplier<AccessGate> gate;

  MemoryTier(BufferPool pool, Object client, ObjectHandle h, int blockSize, Supplier<AccessGate> gate) {
    this.pool = pool;
    this.client = client;
    this.h = h;
    this.blockSize = blockSize;
    this.stats = h.stats();
    this.gate = gate;
  }

  private Name name(Piece piece) {
    DiskCache.BlockKey k = DiskTier.name(h, blockSize, piece);
    return k == null ? null : new Name(client, k);
  }

  @Override
  public Piece.Origin origin() {
    return Piece.Origin.MEMORY;
  }

  @Override
  public boolean read(Piece piece, int from, byte[] dst, int off, int n) throws IOException {
    Name name = name(piece);
    KeptBuffers.Kept kept = name == null ? null : pool.pinKept(name);
    if (kept == null) {
      return false;
    }
    try {
      if (from < 0 || from + n > kept.length()) {
        return false;
      }
      gate.get().await(); // S3's refusal of this open fails the read; the bytes never reach dst
      System.arraycopy(kept.buffer(), from, dst, off, n);
    } finally {
      pool.unpinKept(kept);
    }
    served(n);
    return true;
  }

  @Override
  public byte[] lend(Piece piece, int bufferSize) {
    Name name = name(piece);
    return name == null ? null : pool.takeKept(name, bufferSize);
  }

  @Override
  public void served(Piece piece) throws IOException {
    gate.get().await();
    served(piece.length());
  }

  private void served(int n) {
    stats.increment(Counter.MEMORY_CACHE_HITS);
    stats.add(Counter.MEMORY_CACHE_BYTES_READ, n);
  }

  @Override
  public void keep(Piece piece, PooledBytes data) {
    Name name = name(piece);
    if (name != null) {
      data.keepInMemory(name);
    }
  }

  @Override
  public boolean keeps(Piece piece) {
    return name(piece) != null;
  }

  @Override
  public boolean keepsEveryBlock() {
    return true;
  }
}
