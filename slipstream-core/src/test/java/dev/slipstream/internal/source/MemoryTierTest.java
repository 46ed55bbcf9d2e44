/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.source;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.slipstream.Counter;
import dev.slipstream.internal.block.Block;
import dev.slipstream.internal.block.BufferPool;
import dev.slipstream.internal.fetch.FetchRig;
import dev.slipstream.internal.fetch.ObjectHandle;
import dev.slipstream.internal.store.ScriptedStore;
import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.util.Arrays;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The memory cache as a tier, over a scripted store: what an earlier stream of the same client left in
 * the pool's free memory, by version, and the one request it makes, the access check of an open S3 has not
 * answered yet.
 */
class MemoryTierTest {
  private static final int BLOCK = 64 * 1024;
  private static final int LENGTH = 4 * BLOCK;

  private final FetchRig rig = new FetchRig(LENGTH, BLOCK, 2);
  private final Object client = new Object();

  @AfterEach
  void close() {
    rig.close();
  }

  private MemoryTier tier(Object client, ObjectHandle h) {
    return new MemoryTier(rig.pool, client, h, BLOCK, () -> rig.fetcher.accessGate(h));
  }

  private static Piece block(long index) {
    return Piece.block(index, index * BLOCK, BLOCK);
  }

  /** An earlier stream of {@code client} fetched block {@code index} and let it go: it stays in free memory. */
  private void leftBehind(long index) {
    ObjectHandle earlier = rig.answered();
    Block b = rig.filledBlock(index);
    tier(client, earlier).keep(block(index), b);
    b.releaseOwner();
    assertThat(rig.pool.keptBytes()).isPositive();
  }

  @Test
  void aBlockAnEarlierStreamLeftIsReadAgainWithNoRequest() throws IOException {
    leftBehind(1);
    ObjectHandle h = rig.answered();
    byte[] dst = new byte[100];

    assertThat(tier(client, h).read(block(1), 10, dst, 0, 100)).isTrue();

    assertThat(dst).isEqualTo(rig.data(BLOCK + 10, BLOCK + 110));
    assertThat(rig.store.ranges()).isEmpty();
    assertThat(h.stats().get(Counter.MEMORY_CACHE_HITS)).isEqualTo(1);
    assertThat(h.stats().get(Counter.MEMORY_CACHE_BYTES_READ)).isEqualTo(100);
  }

  @Test
  void anotherClientOrAnotherVersionFindsNothing() throws IOException {
    leftBehind(1);
    ObjectHandle v2 = new ObjectHandle(FetchRig.WHERE, LENGTH, true, "\"v2\"", rig.stats.child());
    v2.answered(0);

    assertThat(tier(new Object(), rig.answered()).read(block(1), 0, new byte[10], 0, 10)).isFalse();
    assertThat(tier(client, v2).read(block(1), 0, new byte[10], 0, 10)).isFalse();
    assertThat(tier(client, rig.answered()).read(block(2), 0, new byte[10], 0, 10)).isFalse();
    assertThat(rig.store.ranges()).isEmpty();
  }

  @Test
  void aHitBeforeS3AnsweredWaitsForOneConditionalOneByteGet() throws IOException {
    leftBehind(0);
    ObjectHandle h = rig.open();
    byte[] dst = new byte[BLOCK];

    assertThat(tier(client, h).read(block(0), 0, dst, 0, BLOCK)).isTrue();

    assertThat(dst).isEqualTo(rig.data(0, BLOCK));
    assertThat(rig.store.ranges()).containsExactly("0-1");
  }

  @Test
  void s3sRefusalOfTheOpenFailsTheReadAndLeavesTheCallersArrayAsItWas() {
    leftBehind(0);
    rig.store.then(ScriptedStore.fail(new AccessDeniedException("s3://b/k")));
    ObjectHandle h = rig.open();
    byte[] dst = new byte[100];

    assertThatThrownBy(() -> tier(client, h).read(block(0), 0, dst, 0, 100))
        .isInstanceOf(AccessDeniedException.class);

    assertThat(dst).containsOnly(0);
    assertThat(rig.store.ranges()).containsExactly("0-1");
  }

  @Test
  void aWholeBlockIsLentWithItsBufferOnceAndServedOnlyAfterTheAccessCheck() throws IOException {
    leftBehind(2);
    ObjectHandle h = rig.open();
    MemoryTier tier = tier(client, h);
    int size = BufferPool.blockBufferSize(LENGTH, BLOCK, BLOCK);

    byte[] buffer = tier.lend(block(2), size);

    assertThat(buffer).isNotNull();
    assertThat(Arrays.copyOf(buffer, BLOCK)).isEqualTo(rig.data(2 * BLOCK, 3 * BLOCK));
    assertThat(tier.lend(block(2), size)).isNull(); // taken over: no longer kept
    assertThat(rig.store.ranges()).isEmpty(); // lending asks nothing yet
    tier.served(block(2));
    assertThat(rig.store.ranges()).containsExactly("0-1");
    assertThat(h.stats().get(Counter.MEMORY_CACHE_BYTES_READ)).isEqualTo(BLOCK);
    rig.pool.release(buffer);
  }

  @Test
  void aRangeOfAtLeastMinRangeBytesIsKeptAndFoundByExactlyThatRange() throws IOException {
    MemoryTier tier = tier(client, rig.answered());
    assertThat(tier.keeps(Piece.range(0, DiskTier.MIN_RANGE - 1))).isFalse();
    assertThat(tier.keeps(Piece.range(0, DiskTier.MIN_RANGE))).isTrue();
    assertThat(tier.keepsEveryBlock()).isTrue();
    assertThat(tier.origin()).isEqualTo(Piece.Origin.MEMORY);
    Piece range = Piece.range(1000, DiskTier.MIN_RANGE);
    var span = rig.filledSpan(1000, DiskTier.MIN_RANGE);
    tier.keep(range, span);
    span.releaseOwner();

    byte[] dst = new byte[DiskTier.MIN_RANGE];
    MemoryTier later = tier(client, rig.answered());
    assertThat(later.read(range, 0, dst, 0, dst.length)).isTrue();
    assertThat(later.read(Piece.range(1000, DiskTier.MIN_RANGE + 1), 0, new byte[10], 0, 10)).isFalse();

    assertThat(dst).isEqualTo(rig.data(1000, 1000 + DiskTier.MIN_RANGE));
    assertThat(rig.store.ranges()).isEmpty();
  }
}
