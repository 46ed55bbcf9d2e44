/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.source;

import dev.slipstream.CacheMode;
import dev.slipstream.SharedMode;
import dev.slipstream.spi.SharedBlockStore;
import dev.slipstream.internal.block.BufferPool;
import dev.slipstream.internal.cache.DiskCache;
import dev.slipstream.internal.cache.ShadowCaches;
import dev.slipstream.internal.fetch.BlockFetcher;
import dev.slipstream.internal.fetch.ObjectHandle;
import java.util.ArrayList;
import java.util.List;

/**
 * A client's sources of bytes, and the one place where an open object's {@link SourceChain} is
 * assembled: the stream's own blocks, then the tiers in order: the memory cache ({@link MemoryTier}, what
 * the client's earlier streams left in free pool memory), the disk cache ({@link DiskTier}), the shared
 * tier ({@link SharedTier}), each where configured; then S3 ({@link S3Source}). A new tier is one class
 * and one line here.
 */
public final class Sources {
  private final boolean memoryCache;
  private final Shared shared;
  private final SharedWrites sharedWrites;
  private final SharedComparisons sharedComparisons;

  /**
   * The shared tier of a client: its store, what it does, the names its blocks have there, and the share of
   * blocks shadow mode compares ({@code shared.shadow.fraction}; the other modes ignore it).
   */
  public record Shared(SharedBlockStore store, SharedMode mode, SharedNames names, double shadowFraction) {}
  private final DiskCache disk;
  private final boolean keepEveryBlock;
  private final S3Source s3;
  private final BlockFetcher fetcher;
  private final BufferPool pool;
  private final ShadowCaches shadows;

  /**
   * @param disk the disk cache, or null; {@code mode} says which blocks are offered to it
   * @param shadows the client's simulated caches, told of every block fetched (may be empty)
   */
  public Sources(DiskCache disk, CacheMode mode, boolean memoryCache, S3Source s3, BlockFetcher fetcher,
      BufferPool pool, ShadowCaches shadows) {
    this(disk, mode, memoryCache, null, s3, fetcher, pool, shadows);
  }

  /**
   * @param shared the shared tier's store, its mode and names, or null for none
   */
  public Sources(DiskCache disk, CacheMode mode, boolean memoryCache, Shared shared, S3Source s3,
      BlockFetcher fetcher, BufferPool pool, ShadowCaches shadows) {
    this.shared = shared;
    this.sharedWrites = shared != null && shared.mode() == SharedMode.READ_WRITE ? new SharedWrites(shared.store())
        : null;
    this.sharedComparisons = shared != null && shared.mode() == SharedMode.SHADOW
        ? new SharedComparisons(shared.store(), ShadowSample.of(shared.shadowFraction())) : null;
    this.memoryCache = memoryCache;
    this.disk = mode == CacheMode.OFF ? null : disk;
    this.keepEveryBlock = mode == CacheMode.ALL;
    this.s3 = s3;
    this.fetcher = fetcher;
    this.pool = pool;
    this.shadows = shadows;
  }

  /** What each server of the shared tier has seen; empty without a shared tier. */
  public java.util.List<SharedBlockStore.ServerStatistics> sharedServers() {
    return shared == null ? java.util.List.of() : shared.store().servers();
  }

  /** S3 alone: for fetches before a stream exists (open-ahead). */
  public S3Source s3() {
    return s3;
  }

  /** Forgets what the memory cache keeps for this client (closing): the memory becomes plain free memory. */
  public void close() {
    pool.dropKept(name -> name instanceof MemoryTier.Name n && n.client() == this);
    if (sharedWrites != null) {
      sharedWrites.close(); // each waits at most 10 s for its queue; a client has one or the other
    }
    if (sharedComparisons != null) {
      sharedComparisons.close();
    }
    if (shared != null) {
      shared.store().close();
    }
  }

  /** The chain of one open object, whose stream holds the blocks {@code own}. */
  public SourceChain chain(ObjectHandle h, OwnBlocks own, int blockSize) {
    List<Tier> tiers = new ArrayList<>();
    if (memoryCache) {
      tiers.add(new MemoryTier(pool, this, h, blockSize, () -> fetcher.accessGate(h)));
    }
    if (disk != null) {
      tiers.add(new DiskTier(disk, h, blockSize, pool, () -> fetcher.accessGate(h), keepEveryBlock));
    }
    if (shared != null) {
      tiers.add(new SharedTier(shared.store(), sharedWrites, sharedComparisons, shared.names(), h, blockSize, pool,
          () -> fetcher.accessGate(h)));
    }
    return new SourceChain(h, own, tiers, s3, pool, blockSize, keepEveryBlock, shadows.isEmpty() ? null : shadows);
  }
}
