/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.source;

import static org.assertj.core.api.Assertions.assertThat;

import dev.slipstream.Counter;
import dev.slipstream.internal.block.Block;
import dev.slipstream.internal.fetch.FetchRig;
import dev.slipstream.internal.fetch.ObjectHandle;
import dev.slipstream.internal.source.SharedTierTest.Blocks;
import dev.slipstream.internal.store.ScriptedStore;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * shared.mode=shadow with {@code shared.shadow.fraction}: which blocks are compared (by name, the same for
 * every client), what is asked of the tier and of S3, and the comparisons' own queue beside the writes'.
 * Over a store of blocks in memory and a scripted S3.
 */
class SharedTierShadowTest {
  private static final int BLOCK = 8 * 1024;
  private static final int BLOCKS = 16;
  /**
   * Blocks offered at once that the comparisons always take, however slow their thread: one handed to the
   * thread, the rest waiting in the queue. Beyond that, a burst is dropped in part (as the last test shows).
   */
  private static final int BURST = SharedComparisons.MAX_PENDING + 1;

  private final FetchRig rig = new FetchRig(BLOCKS * BLOCK, BLOCK, 2);
  private final Blocks blocks = new Blocks();
  private final SharedNames names = new SharedNames("test", "secret");

  @AfterEach
  void close() {
    rig.close();
  }

  private static Piece block(long index) {
    return Piece.block(index, index * BLOCK, BLOCK);
  }

  private SharedTier shadow(FetchRig rig, ObjectHandle h, SharedNames names, SharedComparisons comparisons) {
    return new SharedTier(blocks, null, comparisons, names, h, BLOCK, rig.pool, () -> rig.fetcher.accessGate(h));
  }

  /** Offers blocks {@code [from, to)} from S3 to {@code tier}, as the chain does after a fetch. */
  private static void fetched(FetchRig rig, SharedTier tier, int from, int to) {
    for (int i = from; i < to; i++) {
      Block b = rig.filledBlock(i);
      tier.keep(block(i), b);
      b.releaseOwner();
    }
  }

  /** The names, in hex, of blocks {@code [0, BURST)} whose first byte is below {@code limit}. */
  private Set<String> namesWithFirstByteBelow(int limit) {
    ObjectHandle h = rig.answered();
    Set<String> out = new HashSet<>();
    for (int i = 0; i < BURST; i++) {
      byte[] name = shadow(rig, h, names, null).name(block(i));
      if ((name[0] & 0xff) < limit) {
        out.add(HexFormat.of().formatHex(name));
      }
    }
    return out;
  }

  private static long count(ObjectHandle h, Counter c) {
    return h.stats().get(c);
  }

  @Test
  void fractionZeroComparesNothingAndAsksNothingOfTheTierOrS3() {
    ObjectHandle h = rig.answered();
    SharedComparisons none = new SharedComparisons(blocks, ShadowSample.of(0));
    fetched(rig, shadow(rig, h, names, none), 0, BLOCKS); // more than a burst: none is even queued
    none.close();

    assertThat(blocks.gets).hasValue(0);
    assertThat(blocks.puts).hasValue(0);
    assertThat(rig.store.ranges()).isEmpty();
    for (Counter c : List.of(Counter.SHARED_SHADOW_HITS, Counter.SHARED_SHADOW_MISSES,
        Counter.SHARED_SHADOW_MISMATCHES, Counter.SHARED_SHADOW_DROPPED, Counter.SHARED_SETS,
        Counter.SHARED_SETS_DROPPED, Counter.SHARED_ERRORS)) {
      assertThat(count(h, c)).as(c.metricName()).isZero();
    }
  }

  @Test
  void fractionOneComparesEveryBlock() {
    ObjectHandle h = rig.answered();
    Set<String> all = namesWithFirstByteBelow(256);
    int shared = 0;
    for (int i = 0; i < BURST; i += 2) { // another host wrote the even blocks
      blocks.put(shadow(rig, h, names, null).name(block(i)), rig.data(i * BLOCK, (i + 1) * BLOCK), 0, BLOCK);
      shared++;
    }
    blocks.puts.set(0);
    SharedComparisons every = new SharedComparisons(blocks, ShadowSample.of(1));
    fetched(rig, shadow(rig, h, names, every), 0, BURST);
    every.close();

    assertThat(blocks.asked).isEqualTo(all).hasSize(BURST);
    assertThat(blocks.gets).hasValue(BURST);
    assertThat(count(h, Counter.SHARED_SHADOW_HITS)).isEqualTo(shared);
    assertThat(count(h, Counter.SHARED_SHADOW_MISSES)).isEqualTo(BURST - shared);
    assertThat(count(h, Counter.SHARED_SETS)).as("each block missing written").isEqualTo(BURST - shared);
    assertThat(blocks.puts).hasValue(BURST - shared);
    assertThat(count(h, Counter.SHARED_SHADOW_DROPPED)).isZero();
    assertThat(rig.store.ranges()).isEmpty();
  }

  @Test
  void halfComparesExactlyTheNamesBelowTheMiddleAndTwoClientsSampleTheSameBlocks() {
    // 0.5 of 2^64 is 2^63: a name is in the sample iff its first bit is 0, its first byte below 0x80.
    Set<String> sampled = namesWithFirstByteBelow(0x80);
    assertThat(sampled).as("the blocks' names fall on both sides").isNotEmpty().hasSizeLessThan(BURST);

    // Host A: the tier is empty; it looks up and writes the sampled blocks, and only those.
    ObjectHandle a = rig.answered();
    SharedComparisons hostA = new SharedComparisons(blocks, ShadowSample.of(0.5));
    fetched(rig, shadow(rig, a, names, hostA), 0, BURST);
    hostA.close();
    assertThat(blocks.asked).isEqualTo(sampled);
    assertThat(blocks.byName.keySet()).isEqualTo(sampled);
    assertThat(count(a, Counter.SHARED_SHADOW_MISSES)).isEqualTo(sampled.size());
    assertThat(count(a, Counter.SHARED_SETS)).isEqualTo(sampled.size());

    // Host B, its own names and comparisons with the same secret and fraction, reads the object again.
    blocks.asked.clear();
    ObjectHandle b = rig.answered();
    SharedComparisons hostB = new SharedComparisons(blocks, ShadowSample.of(0.5));
    fetched(rig, shadow(rig, b, new SharedNames("test", "secret"), hostB), 0, BURST);
    hostB.close();
    assertThat(blocks.asked).as("the same blocks sampled").isEqualTo(sampled);
    assertThat(count(b, Counter.SHARED_SHADOW_HITS)).as("every one found as A wrote it").isEqualTo(sampled.size());
    assertThat(count(b, Counter.SHARED_SHADOW_MISSES)).isZero();
    assertThat(count(b, Counter.SHARED_SHADOW_MISMATCHES)).isZero();
    assertThat(blocks.puts).hasValue(sampled.size());
    assertThat(rig.store.ranges()).isEmpty();
  }

  @Test
  void theRangesTheTierKeepsAreSampledByTheirOwnNames() {
    ObjectHandle h = rig.answered();
    SharedTier naming = shadow(rig, h, names, null);
    Set<String> sampled = new HashSet<>();
    for (int i = 0; i < BURST; i++) {
      byte[] name = naming.name(Piece.range(i * BLOCK + 100, Piece.MIN_RANGE));
      if ((name[0] & 0x80) == 0) {
        sampled.add(HexFormat.of().formatHex(name));
      }
    }
    assertThat(sampled).as("the ranges' names fall on both sides").isNotEmpty().hasSizeLessThan(BURST);

    SharedComparisons half = new SharedComparisons(blocks, ShadowSample.of(0.5));
    SharedTier tier = shadow(rig, h, names, half);
    for (int i = 0; i < BURST; i++) {
      var span = rig.filledSpan(i * BLOCK + 100, Piece.MIN_RANGE);
      tier.keep(Piece.range(i * BLOCK + 100, Piece.MIN_RANGE), span);
      span.releaseOwner();
    }
    half.close();

    assertThat(blocks.asked).isEqualTo(sampled);
    assertThat(count(h, Counter.SHARED_SHADOW_MISSES)).isEqualTo(sampled.size());
    assertThat(blocks.byName.keySet()).isEqualTo(sampled);
  }

  @Test
  void aFullComparisonQueueCountsShadowDroppedAndLeavesTheWritesAlone() throws InterruptedException {
    CountDownLatch hold = new CountDownLatch(1);
    blocks.hold = hold;
    ObjectHandle s = rig.answered();
    ObjectHandle w = rig.answered();
    SharedComparisons comparisons = new SharedComparisons(blocks, ShadowSample.of(1));
    SharedWrites writes = new SharedWrites(blocks);
    try {
      // One comparison held in the tier's get, MAX_PENDING waiting behind it, and one more.
      int offered = SharedComparisons.MAX_PENDING + 2;
      fetched(rig, shadow(rig, s, names, comparisons), 0, offered);
      assertThat(blocks.entered.await(10, TimeUnit.SECONDS)).isTrue();
      assertThat(count(s, Counter.SHARED_SHADOW_DROPPED)).isEqualTo(1);

      // Meanwhile a read-write client writes every block it fetched: its queue is its own.
      SharedTier readWrite = new SharedTier(blocks, writes, null, names, w, BLOCK, rig.pool,
          () -> rig.fetcher.accessGate(w));
      fetched(rig, readWrite, offered, BLOCKS);
      writes.close();
      assertThat(count(w, Counter.SHARED_SETS)).isEqualTo(BLOCKS - offered);
      assertThat(count(w, Counter.SHARED_SETS_DROPPED)).isZero();
      assertThat(count(w, Counter.SHARED_SHADOW_DROPPED)).isZero();
      assertThat(blocks.puts).as("only the writes so far").hasValue(BLOCKS - offered);
    } finally {
      hold.countDown();
      writes.close();
      comparisons.close();
    }
    // The comparisons that waited were made; the one dropped was neither looked up nor written.
    assertThat(count(s, Counter.SHARED_SHADOW_MISSES)).isEqualTo(SharedComparisons.MAX_PENDING + 1);
    assertThat(count(s, Counter.SHARED_SETS)).isEqualTo(SharedComparisons.MAX_PENDING + 1);
    assertThat(count(s, Counter.SHARED_SHADOW_DROPPED)).isEqualTo(1);
    assertThat(count(s, Counter.SHARED_SETS_DROPPED)).isZero();
    assertThat(blocks.gets).hasValue(SharedComparisons.MAX_PENDING + 1);
  }

  @Test
  void aComparisonThatFindsNoMemoryIsDroppedAndCounted() {
    // A pool of one block: the block from S3 takes it, and the tier's bytes find no room beside it.
    try (FetchRig small = new FetchRig(new ScriptedStore(ScriptedStore.bytes(BLOCKS * BLOCK), FetchRig.ETAG), BLOCK,
        2, BLOCK)) {
      ObjectHandle h = small.answered();
      SharedComparisons every = new SharedComparisons(blocks, ShadowSample.of(1));
      fetched(small, shadow(small, h, names, every), 0, 1);
      every.close();

      assertThat(count(h, Counter.SHARED_SHADOW_DROPPED)).isEqualTo(1);
      assertThat(blocks.gets).hasValue(0);
      assertThat(blocks.puts).hasValue(0);
      assertThat(count(h, Counter.SHARED_SETS_DROPPED)).isZero();
    }
  }

  @Test
  void theSampleIsTheFirstFractionOfTheNameSpace() {
    byte[] low = new byte[32];
    byte[] high = new byte[32];
    java.util.Arrays.fill(high, (byte) 0xff);
    byte[] justBelowHalf = name(0x7fffffffffffffffL);
    byte[] half = name(0x8000000000000000L);
    byte[] quarter = name(0x4000000000000000L);

    assertThat(ShadowSample.of(0).includes(low)).as("0 takes no name, not even the first").isFalse();
    assertThat(ShadowSample.of(1).includes(high)).as("1 takes every name, the last too").isTrue();
    assertThat(ShadowSample.of(0.5).includes(justBelowHalf)).isTrue();
    assertThat(ShadowSample.of(0.5).includes(half)).isFalse();
    assertThat(ShadowSample.of(0.25).includes(name(0x3fffffffffffffffL))).isTrue();
    assertThat(ShadowSample.of(0.25).includes(quarter)).isFalse();
    assertThat(ShadowSample.of(Math.nextDown(1.0)).includes(high)).as("below 1, the last name is out").isFalse();
    assertThat(ShadowSample.of(Math.nextDown(1.0)).includes(name(0xfffff00000000000L))).isTrue();
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> ShadowSample.of(1.5))
        .isInstanceOf(IllegalArgumentException.class);
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> ShadowSample.of(Double.NaN))
        .isInstanceOf(IllegalArgumentException.class);
  }

  /**
   * Over many real names: the sample at 0.5 is exactly the names whose first bit is 0, about half of them
   * (names are HMACs, evenly spread), and two clients with the same secret compute the same names.
   */
  @Test
  void overManyNamesTheSampleIsTheThresholdsShareAndTheSameForEveryClient() {
    SharedNames other = new SharedNames("test", "secret");
    ShadowSample half = ShadowSample.of(0.5);
    int n = 10_000;
    int in = 0;
    for (int i = 0; i < n; i++) {
      byte[] name = names.block("b", "k", "\"v1\"", BLOCK, i);
      assertThat(other.block("b", "k", "\"v1\"", BLOCK, i)).isEqualTo(name);
      boolean sampled = half.includes(name);
      assertThat(sampled).isEqualTo((name[0] & 0x80) == 0);
      in += sampled ? 1 : 0;
    }
    // A binomial(10,000, 0.5) count lies within 4,700-5,300 but for odds of about 2 in a billion.
    assertThat(in).isBetween(4_700, 5_300);
  }

  /** A 32-byte name whose first 8 bytes are {@code first}, the rest 0xff. */
  private static byte[] name(long first) {
    byte[] n = new byte[32];
    java.util.Arrays.fill(n, (byte) 0xff);
    java.nio.ByteBuffer.wrap(n).putLong(first);
    return n;
  }
}
