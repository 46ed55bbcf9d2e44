/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.source;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.slipstream.Counter;
import dev.slipstream.internal.block.Block;
import dev.slipstream.internal.fetch.FetchRig;
import dev.slipstream.internal.fetch.ObjectHandle;
import dev.slipstream.internal.store.ScriptedStore;
import dev.slipstream.spi.SharedBlockStore;
import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The shared tier, over a store of blocks in memory and a scripted S3: what it serves, what it writes
 * back, and the one request it makes of S3, the access check of an open S3 has not answered yet.
 */
class SharedTierTest {
  private static final int BLOCK = 8 * 1024;
  private static final int LENGTH = 4 * BLOCK;

  private final FetchRig rig = new FetchRig(LENGTH, BLOCK, 2);
  private final Blocks blocks = new Blocks();
  private final SharedNames names = new SharedNames("test", "secret");
  private final SharedWrites writes = new SharedWrites(blocks);
  private final SharedComparisons comparisons = new SharedComparisons(blocks, ShadowSample.of(1));

  @AfterEach
  void close() {
    writes.close();
    comparisons.close();
    rig.close();
  }

  /**
   * A shared store in memory: blocks by name, how often it was asked, and the names it was asked for. With
   * {@link #hold} set, each get waits for it to open (after counting down {@link #entered}).
   */
  static final class Blocks implements SharedBlockStore {
    final Map<String, byte[]> byName = new ConcurrentHashMap<>();
    final AtomicInteger gets = new AtomicInteger();
    final AtomicInteger puts = new AtomicInteger();
    final Set<String> asked = ConcurrentHashMap.newKeySet();
    volatile boolean broken;
    volatile CountDownLatch hold;
    final CountDownLatch entered = new CountDownLatch(1);

    @Override
    public boolean get(byte[] name, int blockLength, int from, byte[] dst, int off, int n) {
      gets.incrementAndGet();
      asked.add(HexFormat.of().formatHex(name));
      if (broken) {
        throw new IllegalStateException("a store that breaks its contract");
      }
      CountDownLatch h = hold;
      if (h != null) {
        entered.countDown();
        try {
          h.await();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
      byte[] b = byName.get(HexFormat.of().formatHex(name));
      if (b == null || b.length != blockLength) {
        return false;
      }
      System.arraycopy(b, from, dst, off, n);
      return true;
    }

    @Override
    public boolean put(byte[] name, byte[] src, int off, int length) {
      puts.incrementAndGet();
      byName.put(HexFormat.of().formatHex(name), Arrays.copyOfRange(src, off, off + length));
      return true;
    }

    @Override
    public void close() {}
  }

  /** Read-write, or shadow comparing every block. */
  private SharedTier tier(ObjectHandle h, boolean shadow) {
    return new SharedTier(blocks, shadow ? null : writes, shadow ? comparisons : null, names, h, BLOCK, rig.pool,
        () -> rig.fetcher.accessGate(h));
  }

  private static Piece block(long index) {
    return Piece.block(index, index * BLOCK, BLOCK);
  }

  /** Another host of the cluster wrote block {@code index} of the version. */
  private void shared(ObjectHandle h, long index) {
    blocks.put(tier(h, false).name(block(index)), rig.data(index * BLOCK, (index + 1) * BLOCK), 0, BLOCK);
    blocks.puts.set(0);
  }

  @Test
  void aSharedBlockIsServedWithNoRequestOnceS3AnsweredAndNotWrittenBack() throws IOException {
    ObjectHandle h = rig.answered();
    shared(h, 1);
    SharedTier tier = tier(h, false);
    Block b = rig.filledBlock(1);

    assertThat(tier.readBlock(block(1), b.buffer())).isTrue();
    tier.keep(block(1), b);
    b.releaseOwner();
    writes.close();

    assertThat(rig.store.ranges()).isEmpty();
    assertThat(h.stats().get(Counter.SHARED_HITS)).isEqualTo(1);
    assertThat(h.stats().get(Counter.SHARED_BYTES_READ)).isEqualTo(BLOCK);
    assertThat(blocks.puts).hasValue(0); // it came from the tier
    assertThat(tier.origin()).isEqualTo(Piece.Origin.SHARED);
  }

  @Test
  void aHitBeforeS3AnsweredWaitsForOneConditionalOneByteGet() throws IOException {
    ObjectHandle h = rig.open();
    shared(h, 2);
    byte[] dst = new byte[100];

    assertThat(tier(h, false).read(block(2), 1000, dst, 0, 100)).isTrue();

    assertThat(dst).isEqualTo(rig.data(2 * BLOCK + 1000, 2 * BLOCK + 1100));
    assertThat(rig.store.ranges()).containsExactly("0-1");
  }

  @Test
  void s3sRefusalOfTheOpenFailsTheReadAndLeavesNoByteOfTheTierBehind() {
    rig.store.then(ScriptedStore.fail(new AccessDeniedException("s3://b/k")));
    ObjectHandle h = rig.open();
    shared(h, 2);
    byte[] dst = new byte[100];
    byte[] buffer = new byte[BLOCK];

    assertThatThrownBy(() -> tier(h, false).read(block(2), 0, dst, 0, 100))
        .isInstanceOf(AccessDeniedException.class);
    assertThatThrownBy(() -> tier(h, false).readBlock(block(2), buffer))
        .isInstanceOf(AccessDeniedException.class);

    assertThat(dst).containsOnly(0);
    assertThat(buffer).containsOnly(0);
    assertThat(rig.store.ranges()).containsExactly("0-1"); // a refusal is final for the open
  }

  @Test
  void aMissOrABrokenStoreIsAMissThatAsksNothingOfS3() throws IOException {
    ObjectHandle h = rig.open();
    assertThat(tier(h, false).readBlock(block(0), new byte[BLOCK])).isFalse();
    blocks.broken = true;
    assertThat(tier(h, false).readBlock(block(0), new byte[BLOCK])).isFalse();

    assertThat(rig.store.ranges()).isEmpty();
    assertThat(h.stats().get(Counter.SHARED_MISSES)).isEqualTo(2);
    assertThat(h.stats().get(Counter.SHARED_ERRORS)).isEqualTo(1);
  }

  @Test
  void aBlockFromS3IsWrittenInTheBackgroundAndFoundByTheNextOpen() throws IOException {
    ObjectHandle h = rig.answered();
    Block b = rig.filledBlock(3);
    tier(h, false).keep(block(3), b);
    b.releaseOwner();
    writes.close(); // waits for the writes pending

    assertThat(blocks.puts).hasValue(1);
    assertThat(h.stats().get(Counter.SHARED_SETS)).isEqualTo(1);
    byte[] buffer = new byte[BLOCK];
    assertThat(tier(rig.answered(), false).readBlock(block(3), buffer)).isTrue();
    assertThat(buffer).isEqualTo(rig.data(3 * BLOCK, 4 * BLOCK));
    assertThat(rig.store.ranges()).isEmpty();
  }

  @Test
  void aColumnarRangeIsWrittenAndFoundAgainByAReadOfExactlyThatRange() throws IOException {
    SharedTier tier = tier(rig.answered(), false);
    Piece range = Piece.range(1000, 2 * BLOCK);
    assertThat(tier.keeps(range)).isTrue();
    assertThat(tier.keeps(block(0))).isTrue();
    assertThat(tier.keepsEveryBlock()).isTrue();
    var span = rig.filledSpan(1000, 2 * BLOCK);

    tier.keep(range, span);
    span.releaseOwner();
    writes.close();
    assertThat(blocks.puts).hasValue(1);

    SharedTier other = tier(rig.answered(), false); // another host's open of the same version
    byte[] dst = new byte[2 * BLOCK];
    assertThat(other.read(range, 0, dst, 0, dst.length)).isTrue();
    assertThat(dst).isEqualTo(rig.data(1000, 1000 + 2 * BLOCK));
    assertThat(other.read(Piece.range(1000, 2 * BLOCK - 1), 0, new byte[10], 0, 10)).as("another range").isFalse();
    assertThat(other.read(Piece.range(1001, 2 * BLOCK), 0, new byte[10], 0, 10)).as("another range").isFalse();
    assertThat(other.read(block(0), 1000, new byte[10], 0, 10)).as("a block is no range").isFalse();
    assertThat(rig.store.ranges()).isEmpty();
  }

  @Test
  void aRangeShorterThanTheMinimumStaysLocal() throws IOException {
    SharedTier tier = tier(rig.answered(), false);
    Piece small = Piece.range(0, Piece.MIN_RANGE - 1);
    assertThat(tier.keeps(small)).isFalse();
    var span = rig.filledSpan(0, Piece.MIN_RANGE - 1);

    tier.keep(small, span);
    span.releaseOwner();
    writes.close();

    assertThat(tier.read(small, 0, new byte[10], 0, 10)).isFalse();
    assertThat(blocks.puts).hasValue(0);
    assertThat(blocks.gets).hasValue(0);
  }

  @Test
  void aRangeReadFromTheTierIsNotWrittenBack() throws IOException {
    ObjectHandle h = rig.answered();
    Piece range = Piece.range(BLOCK, BLOCK + 100);
    byte[] bytes = rig.data(BLOCK, 2 * BLOCK + 100);
    blocks.put(tier(h, false).name(range), bytes, 0, bytes.length);
    blocks.puts.set(0);
    SharedTier tier = tier(h, false);

    assertThat(tier.read(range, 0, new byte[bytes.length], 0, bytes.length)).isTrue();
    var span = rig.filledSpan(BLOCK, BLOCK + 100);
    tier.keep(range, span);
    span.releaseOwner();
    writes.close();

    assertThat(blocks.puts).hasValue(0);
  }

  @Test
  void inShadowModeItServesNothingAndComparesWhatS3GaveInTheBackground() throws IOException {
    ObjectHandle h = rig.answered();
    shared(h, 0);
    SharedTier tier = tier(h, true);

    assertThat(tier.readBlock(block(0), new byte[BLOCK])).isFalse();
    assertThat(blocks.gets).hasValue(0); // not even looked up on the read path
    Block b0 = rig.filledBlock(0);
    Block b1 = rig.filledBlock(1);
    tier.keep(block(0), b0);
    tier.keep(block(1), b1);
    b0.releaseOwner();
    b1.releaseOwner();
    comparisons.close(); // waits for the comparisons pending

    assertThat(h.stats().get(Counter.SHARED_SHADOW_HITS)).isEqualTo(1);
    assertThat(h.stats().get(Counter.SHARED_SHADOW_MISSES)).isEqualTo(1);
    assertThat(blocks.puts).hasValue(1); // the one missing, as read-write would have
    assertThat(rig.store.ranges()).isEmpty();
  }

  /**
   * Memory within the budget only (issue 42, item 9): a read for a caller's array goes through a buffer of
   * the pool even when none is free: on the caller's thread it takes one as a reader's own block does (an
   * idle block is evicted); on a fetch thread, which never waits for memory, it is a miss.
   */
  @Test
  void aReadThroughAPoolWithNoMemoryFreeTakesItFromThePoolNeverBesideIt() throws Exception {
    ObjectHandle h = rig.answered();
    shared(h, 1);
    int unit = dev.slipstream.internal.block.BufferPool.SIZE_UNIT;
    dev.slipstream.internal.block.BufferPool pool = new dev.slipstream.internal.block.BufferPool(2L * unit);
    byte[] inUse = pool.tryAcquire(unit); // a stream's, being read
    dev.slipstream.internal.block.Span idle = new dev.slipstream.internal.block.Span(0, pool.tryAcquire(unit), unit,
        pool, rig.stats);
    idle.filled();
    idle.unpin(); // fetched, only its owner holds it: the pool's to take back
    SharedTier tier = new SharedTier(blocks, writes, null, names, h, BLOCK, pool, () -> rig.fetcher.accessGate(h));
    byte[] dst = new byte[100];

    assertThat(tier.read(block(1), 10, dst, 0, 100)).isTrue();
    assertThat(dst).isEqualTo(rig.data(BLOCK + 10, BLOCK + 110));
    assertThat(pool.evictions()).as("the idle block made room for the read's buffer").isOne();

    byte[] taken = pool.tryAcquire(unit); // now every byte of the pool is in use, none idle
    java.util.concurrent.atomic.AtomicBoolean hit = new java.util.concurrent.atomic.AtomicBoolean(true);
    rig.fetcher.submitRead(true, FetchRig.token(dev.slipstream.internal.fetch.Purpose.RANGE),
        () -> hit.set(tier.read(block(1), 10, new byte[100], 0, 100)), () -> { }).get(10, java.util.concurrent.TimeUnit.SECONDS);
    assertThat(hit.get()).as("on a fetch thread, no memory free: a miss").isFalse();
    assertThat(pool.allocatedBytes()).isLessThanOrEqualTo(pool.budget());
    pool.release(inUse);
    pool.release(taken);
  }
}
