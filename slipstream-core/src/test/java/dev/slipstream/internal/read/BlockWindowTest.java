/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.read;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.slipstream.Counter;
import dev.slipstream.ReadPolicy;
import dev.slipstream.internal.block.Block;
import dev.slipstream.internal.fetch.FetchRig;
import dev.slipstream.internal.fetch.Purpose;
import dev.slipstream.internal.learn.LearnedDepth;
import dev.slipstream.internal.source.Piece;
import dev.slipstream.internal.source.RangeThrough;
import dev.slipstream.internal.source.ScriptedTier;
import dev.slipstream.internal.source.Through;
import dev.slipstream.internal.store.ScriptedStore;
import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A stream's blocks over a scripted store: the GETs each read starts (the blocks it spans, the prefetch
 * depth, nothing twice), the bytes it returns, and what leaves the window for the tiers.
 */
class BlockWindowTest {
  private static final int BLOCK = 4096;
  private static final int LENGTH = 16 * BLOCK;
  private static final int MAX_DEPTH = 4;

  private final ScriptedTier disk = new ScriptedTier("disk", ScriptedStore.bytes(LENGTH), Piece.Origin.DISK);
  private StreamRig rig = new StreamRig(new FetchRig(LENGTH, BLOCK, 4), MAX_DEPTH, disk);

  @AfterEach
  void close() {
    rig.close();
  }

  private ReadPlanner planner() {
    return new ReadPlanner(BLOCK, MAX_DEPTH, ReadPolicy.ADAPTIVE, LENGTH, new LearnedDepth());
  }

  private byte[] jump(long position, int len) throws IOException {
    byte[] dst = new byte[len];
    rig.window.copy(position, dst, 0, len, planner(), false, false);
    return dst;
  }

  @Test
  void aReadAfterAJumpFetchesTheBlocksItSpansAndNothingBeyond() throws Exception {
    byte[] got = jump(2 * BLOCK + 100, 2 * BLOCK);
    rig.awaitBlocks();

    assertThat(got).isEqualTo(rig.data(2 * BLOCK + 100, 4 * BLOCK + 100));
    assertThat(rig.fetch.store.ranges()).containsExactlyInAnyOrder(rig.block(2), rig.block(3), rig.block(4));
    // each block asks the tiers for a buffer holding it already, then to fill it, before S3
    assertThat(disk.asked()).containsExactlyInAnyOrder("disk lend block 2", "disk fill block 2",
        "disk lend block 3", "disk fill block 3", "disk lend block 4", "disk fill block 4");
  }

  @Test
  void aReadInOrderPrefetchesAtThePlannersDepth() throws Exception {
    ReadPlanner planner = planner();
    ReadPlanner twin = planner();
    planner.onRead(0, 100, false, false);
    twin.onRead(0, 100, false, false);
    int depth = twin.enterBlock(0);
    byte[] dst = new byte[100];

    rig.window.copy(0, dst, 0, 100, planner, true, false);
    rig.awaitBlocks();

    assertThat(depth).isEqualTo(AheadDepth.START);
    assertThat(dst).isEqualTo(rig.data(0, 100));
    String[] expected = new String[depth + 1];
    for (int i = 0; i <= depth; i++) {
      expected[i] = rig.block(i);
    }
    assertThat(rig.fetch.store.ranges()).containsExactlyInAnyOrder(expected);
  }

  @Test
  void prefetchTakesFreeMemoryOnly() throws Exception {
    rig.close();
    rig = new StreamRig(new FetchRig(new ScriptedStore(ScriptedStore.bytes(LENGTH), FetchRig.ETAG), BLOCK, 4,
        BLOCK), MAX_DEPTH);
    ReadPlanner planner = planner();
    planner.onRead(0, 100, false, false);

    rig.window.copy(0, new byte[100], 0, 100, planner, true, false);
    rig.awaitBlocks();

    assertThat(rig.fetch.store.ranges()).containsExactly(rig.block(0)); // the one buffer is the reader's
  }

  @Test
  void aBlockHeldServesTheNextReadsWithNoRequest() throws Exception {
    jump(5 * BLOCK, 10);
    rig.fetch.store.forget();
    long fromMemory = rig.h.stats().get(Counter.BYTES_FROM_MEMORY);

    byte[] again = jump(5 * BLOCK + 1000, 500);

    assertThat(again).isEqualTo(rig.data(5 * BLOCK + 1000, 5 * BLOCK + 1500));
    assertThat(rig.fetch.store.ranges()).isEmpty();
    assertThat(rig.window.holds(5)).isTrue();
    assertThat(rig.h.stats().get(Counter.BYTES_FROM_MEMORY) - fromMemory).isEqualTo(500);
  }

  @Test
  void theChainTakesTheShareOfARangeFromTheWindowsBlocksAndFetchesOnlyTheRest() throws Exception {
    jump(2 * BLOCK, 10);
    rig.fetch.store.forget();
    byte[] dst = new byte[BLOCK];

    // the blocks first: all held, nothing sent
    assertThat(rig.ranges.readThrough(
        new Through(2 * BLOCK + 50, 100, true, false, Purpose.READAHEAD, null), dst, 0)).isNull();
    assertThat(rig.fetch.store.ranges()).isEmpty();
    // the read alone: its share of block 2 from the window, the rest from S3
    rig.ranges.readThrough(new Through(3 * BLOCK - 10, 30, false, true, Purpose.RANGE, null), dst, 0);

    assertThat(dst).startsWith(rig.data(3 * BLOCK - 10, 3 * BLOCK + 20));
    assertThat(rig.fetch.store.ranges()).containsExactly(StreamRig.get(3 * BLOCK, 3 * BLOCK + 20));
  }

  @Test
  void aBlockLeftBeforeItsEndIsOfferedToTheTiersAndOneReadToItsEndIsNot() throws Exception {
    jump(2 * BLOCK, 100); // block 2: its first 100 bytes
    jump(6 * BLOCK, BLOCK); // block 6: all of it

    rig.window.dropOutside(10, 12);

    assertThat(rig.window.holds(2)).isFalse();
    assertThat(rig.window.holds(6)).isFalse();
    assertThat(disk.kept()).containsExactly(Piece.block(2, 2 * BLOCK, BLOCK));
  }

  @Test
  void aJumpOfTheStreamDropsTheOldPositionsBlocksBeforeItsReadAndThoseBehindItAfter() throws Exception {
    jump(0, 10); // the old position
    jump(9 * BLOCK, 10); // a block the jump's read spans
    jump(10 * BLOCK, 10); // and the one it ends in
    rig.awaitBlocks();
    List<Long> heldDuringTheRead = new ArrayList<>();

    rig.window.jumpTo(9 * BLOCK + 100, BLOCK);
    for (long i = 0; i < LENGTH / BLOCK; i++) {
      if (rig.window.holds(i)) {
        heldDuringTheRead.add(i);
      }
    }
    rig.window.jumpRead(9 * BLOCK + 100, BLOCK);

    assertThat(heldDuringTheRead).containsExactly(9L, 10L); // the old position's block gone before the read
    assertThat(rig.window.holds(9)).isFalse(); // behind the read once it is done
    assertThat(rig.window.holds(10)).isTrue();
  }

  @Test
  void aFailedFetchIsDroppedAndTheNextReadFetchesTheBlockAfresh() throws Exception {
    rig.fetch.store.then(ScriptedStore.fail(new AccessDeniedException("s3://b/k")));

    assertThatThrownBy(() -> jump(0, 10)).isInstanceOf(AccessDeniedException.class);
    assertThat(rig.window.holds(0)).isFalse();
    byte[] got = jump(0, 10);

    assertThat(got).isEqualTo(rig.data(0, 10));
    assertThat(rig.fetch.store.ranges()).containsExactly(rig.block(0), rig.block(0));
  }

  @Test
  void anAdoptedBlockServesWithNoRequest() throws Exception {
    Block ahead = rig.fetch.filledBlock(0);
    rig.window.adopt(ahead);

    byte[] got = jump(100, 200);

    assertThat(got).isEqualTo(rig.data(100, 300));
    assertThat(rig.fetch.store.ranges()).isEmpty();
  }

  @Test
  void afterCloseAReadFailsAndSendsNothing() {
    rig.requests.close();

    assertThatThrownBy(() -> jump(0, 10)).isInstanceOf(IOException.class).hasMessage("stream closed: s3://b/k");
    assertThat(rig.fetch.store.ranges()).isEmpty();
  }
}
