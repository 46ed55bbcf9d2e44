/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.source;

import static org.assertj.core.api.Assertions.assertThat;

import dev.slipstream.Counter;
import dev.slipstream.internal.block.Destination;
import dev.slipstream.internal.block.Block;
import dev.slipstream.internal.block.BufferPool;
import dev.slipstream.internal.cache.ShadowCaches;
import dev.slipstream.internal.fetch.FetchRig;
import dev.slipstream.internal.fetch.ObjectHandle;
import dev.slipstream.internal.fetch.Purpose;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The chain of one open object, over scripted tiers and a scripted S3: which source each read asks, in
 * which order, the GETs it sends for what no tier holds, and what it offers the tiers.
 */
class SourceChainTest {
  private static final int BLOCK = 1024;
  private static final int LENGTH = 8 * BLOCK;

  private final FetchRig rig = new FetchRig(LENGTH, BLOCK, 2);
  private final byte[] data = rig.store.data();
  private final ObjectHandle h = rig.answered();
  private final S3Source s3 = new S3Source(rig.ranges, rig.parts);
  private final ScriptedTier memory = new ScriptedTier("memory", data, Piece.Origin.MEMORY);
  private final ScriptedTier disk = new ScriptedTier("disk", data, Piece.Origin.DISK);
  /** The stream's own blocks, and what the chain asked of them. */
  private final Set<Long> ownHeld = Collections.synchronizedSet(new java.util.HashSet<>());
  private final List<String> ownAsked = Collections.synchronizedList(new ArrayList<>());
  private final OwnBlocks own = (piece, from, dst, off, n) -> {
    ownAsked.add("own read " + ScriptedTier.describe(piece));
    if (!ownHeld.contains(piece.index())) {
      return false;
    }
    System.arraycopy(data, (int) piece.start() + from, dst, off, n);
    return true;
  };

  @AfterEach
  void close() {
    rig.close();
  }

  private SourceChain chain(boolean keepEveryBlock, ScriptedTier... tiers) {
    return new SourceChain(h, own, List.of(tiers), s3, rig.pool, BLOCK, keepEveryBlock, null);
  }

  /**
   * The chain's read-through of ranges, for its steps that ask the stream's blocks, the tiers and S3 (no
   * request of a stream, no span: those are {@link RangeThroughTest}'s).
   */
  private RangeThrough ranges(ScriptedTier... tiers) {
    return chain(false, tiers).ranges(rig.fetcher, null, BLOCK);
  }

  private static Piece block(long index) {
    return Piece.block(index, index * BLOCK, BLOCK);
  }

  private Block emptyBlock(long index) {
    return new Block(index, index * BLOCK, new byte[BLOCK], BLOCK, false, rig.pool, rig.stats, 1);
  }

  private byte[] data(long start, long end) {
    return rig.data(start, end);
  }

  // ---- blocks --------------------------------------------------------------------------------

  @Test
  void aBlockComesFromTheFirstTierThatHoldsItAndTheLaterOnesAreNotAsked() throws IOException {
    memory.holding(block(2));
    disk.holding(block(2));
    Block b = emptyBlock(2);

    Piece.Origin from = chain(false, memory, disk).readBlock(b, FetchRig.token(Purpose.BLOCK), false);

    assertThat(from).isEqualTo(Piece.Origin.MEMORY);
    assertThat(b.buffer()).isEqualTo(data(2 * BLOCK, 3 * BLOCK));
    assertThat(memory.asked()).containsExactly("memory fill block 2");
    assertThat(disk.asked()).isEmpty();
    assertThat(rig.store.ranges()).isEmpty();
    assertThat(b.claimDiskWrite()).isTrue(); // not from the disk: may be written there
  }

  @Test
  void aBlockTheDiskServedIsMarkedSoThatItIsNeverWrittenThereAgain() throws IOException {
    disk.holding(block(3));
    Block b = emptyBlock(3);

    Piece.Origin from = chain(false, memory, disk).readBlock(b, FetchRig.token(Purpose.BLOCK), false);

    assertThat(from).isEqualTo(Piece.Origin.DISK);
    assertThat(memory.asked()).containsExactly("memory fill block 3");
    assertThat(disk.asked()).containsExactly("disk fill block 3");
    assertThat(b.claimDiskWrite()).isFalse();
    assertThat(rig.store.ranges()).isEmpty();
  }

  @Test
  void aBlockNoTierHoldsIsOneGetOfItsRangeAndTheStreamsOwnBlocksAreNeverAsked() throws IOException {
    ownHeld.add(4L); // as if the stream held it: a block the chain fills is never one the stream holds
    Block b = emptyBlock(4);

    Piece.Origin from = chain(false, memory, disk).readBlock(b, FetchRig.token(Purpose.BLOCK), false);

    assertThat(from).isEqualTo(Piece.Origin.S3);
    assertThat(b.buffer()).isEqualTo(data(4 * BLOCK, 5 * BLOCK));
    assertThat(rig.store.ranges()).containsExactly((4 * BLOCK) + "-" + (5 * BLOCK));
    assertThat(memory.asked()).containsExactly("memory fill block 4");
    assertThat(disk.asked()).containsExactly("disk fill block 4");
    assertThat(ownAsked).isEmpty();
  }

  @Test
  void aLentBlockOnlyWaitsForItsLenderAndAsksNothingElse() throws IOException {
    memory.lending(block(1));
    SourceChain chain = chain(false, memory, disk);

    SourceChain.Lent lent = chain.lend(1, BLOCK, BLOCK);
    Block b = new Block(1, BLOCK, lent.buffer(), BLOCK, false, rig.pool, rig.stats, 1);
    b.lentBy(lent.by());
    Piece.Origin from = chain.readBlock(b, FetchRig.token(Purpose.BLOCK), false);

    assertThat(lent.by()).isSameAs(memory);
    assertThat(from).isEqualTo(Piece.Origin.MEMORY);
    assertThat(b.buffer()).isEqualTo(data(BLOCK, 2 * BLOCK));
    assertThat(memory.asked()).containsExactly("memory lend block 1", "memory served block 1");
    assertThat(disk.asked()).isEmpty();
    assertThat(chain.lend(2, BLOCK, BLOCK)).isNull();
    assertThat(rig.store.ranges()).isEmpty();
  }

  @Test
  void theSimulatedCachesAreToldOfEveryBlockFilled() throws IOException {
    ShadowCaches shadows = new ShadowCaches(List.of(16L * BLOCK));
    SourceChain chain = new SourceChain(h, own, List.of(), s3, rig.pool, BLOCK, false, shadows);

    chain.readBlock(emptyBlock(0), FetchRig.token(Purpose.BLOCK), false);
    chain.readBlock(emptyBlock(0), FetchRig.token(Purpose.BLOCK), false);

    assertThat(shadows.results()).hasSize(1);
    assertThat(shadows.results().get(0).hits()).isEqualTo(1);
    assertThat(rig.store.ranges()).containsExactly("0-1024", "0-1024");
  }

  // ---- ranges --------------------------------------------------------------------------------

  @Test
  void aRangeTakesEachBlocksShareFromTheStreamOrATierAndEachRunOfMissingSharesInOneGet() throws IOException {
    ownHeld.add(0L);
    disk.holding(block(3));
    byte[] dst = new byte[5 * BLOCK];

    // [512, 5632): block 0 from the stream, 1 and 2 missing, 3 from the disk, 4 and 5 missing
    ranges(memory, disk).tiers.readAnywhere(512, Destination.of(dst, 0), 5 * BLOCK, FetchRig.token(Purpose.RANGE));

    assertThat(dst).isEqualTo(data(512, 512 + 5 * BLOCK));
    assertThat(rig.store.ranges()).containsExactly("1024-3072", "4096-5632");
    assertThat(ownAsked).containsExactly("own read block 0", "own read block 1", "own read block 2",
        "own read block 3", "own read block 4", "own read block 5");
    assertThat(memory.asked()).containsExactly("memory read block 1 [0, 1024)", "memory read block 2 [0, 1024)",
        "memory read block 3 [0, 1024)", "memory read block 4 [0, 1024)", "memory read block 5 [0, 512)");
    assertThat(h.stats().get(Counter.DIRECT_READS)).isEqualTo(2);
  }

  @Test
  void readingFromTheTiersAloneSendsNoRequestAndSaysWhetherAllWasThere() throws IOException {
    ownHeld.add(1L);
    memory.holding(block(2));
    RangeThrough chain = ranges(memory, disk);
    byte[] dst = new byte[2 * BLOCK];

    assertThat(chain.tiers.readFromTiers(BLOCK + 100, dst, 0, 2 * BLOCK)).isFalse(); // block 3 is nowhere
    assertThat(chain.tiers.readFromTiers(BLOCK + 100, dst, 0, BLOCK)).isTrue();

    assertThat(dst).startsWith(data(BLOCK + 100, 2 * BLOCK + 100));
    assertThat(rig.store.ranges()).isEmpty();
  }

  @Test
  void aKeptRangeIsFoundOnlyByTheSameRangeAndAFetchedOneIsOfferedToTheTiersThatKeepRanges() throws IOException {
    disk.holding(Piece.range(100, 2000));
    memory.keepingNoRange();
    RangeThrough chain = ranges(memory, disk);
    byte[] dst = new byte[2000];

    assertThat(chain.tiers.readKeptRange(100, dst, 0, 2000)).isTrue();
    assertThat(dst).isEqualTo(data(100, 2100));
    assertThat(chain.tiers.readKeptRange(100, dst, 0, 1999)).isFalse();
    assertThat(chain.tiers.keepsRange(3000, 500)).isTrue();

    chain.tiers.keepRange(3000, data, 3000, 500);

    assertThat(disk.kept()).containsExactly(Piece.range(3000, 500));
    assertThat(memory.kept()).containsExactly(Piece.range(3000, 500)); // offered; the tier says what it keeps
    assertThat(ranges(memory).tiers.keepsRange(3000, 500)).isFalse();
    assertThat(rig.store.ranges()).isEmpty();
  }

  @Test
  void aRangeCopyIsSkippedAndCountedWhenMemoryIsShort() {
    FetchRig small = new FetchRig(new dev.slipstream.internal.store.ScriptedStore(data, FetchRig.ETAG), BLOCK, 1,
        BufferPool.SIZE_UNIT);
    try {
      ObjectHandle h = small.answered();
      byte[] hog = small.pool.tryAcquire(BufferPool.SIZE_UNIT);
      RangeThrough chain = new SourceChain(h, own, List.of(disk), new S3Source(small.ranges, small.parts),
          small.pool, BLOCK, false, null).ranges(small.fetcher, null, BLOCK);

      chain.tiers.keepRange(0, data, 0, 500);

      assertThat(disk.kept()).isEmpty();
      assertThat(h.stats().get(Counter.DISK_CACHE_WRITES_SKIPPED)).isEqualTo(1);
      small.pool.release(hog);
    } finally {
      small.close();
    }
  }

  // ---- write-behind --------------------------------------------------------------------------

  @Test
  void aBlockLeftUnreadIsOfferedToEveryTierAndOneReadToItsEndOnlyToThoseThatWantEveryBlock() {
    memory.keepingEveryBlock();
    SourceChain chain = chain(false, memory, disk);
    Block unread = rig.filledBlock(1);
    Block read = rig.filledBlock(2);
    read.noteRead(BLOCK);
    Block notFilled = emptyBlock(3);

    chain.blockLeft(unread, false);
    chain.blockLeft(read, false);
    chain.blockLeft(notFilled, false);

    assertThat(memory.kept()).containsExactly(block(1), block(2));
    assertThat(disk.kept()).containsExactly(block(1));
    assertThat(rig.store.ranges()).isEmpty();
  }

  @Test
  void withKeepEveryBlockEveryBlockReadIsOfferedToEveryTier() {
    Block read = rig.filledBlock(2);
    read.noteRead(BLOCK);

    chain(true, memory, disk).blockLeft(read, false);

    assertThat(memory.kept()).containsExactly(block(2));
    assertThat(disk.kept()).containsExactly(block(2));
  }
}
