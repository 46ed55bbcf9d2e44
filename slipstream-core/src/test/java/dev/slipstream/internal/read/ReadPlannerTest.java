/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.read;

import static org.assertj.core.api.Assertions.assertThat;

import dev.slipstream.ReadPolicy;
import dev.slipstream.internal.learn.LearnedDepth;
import dev.slipstream.internal.read.ReadPlanner.Decision;
import dev.slipstream.internal.read.ReadPlanner.Kind;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The planner's decisions, read by read, as its class comment promises them; no S3, no blocks. */
@Timeout(30)
class ReadPlannerTest {
  private static final int KIB = 1024;
  private static final int MIB = 1024 * KIB;
  private static final int BLOCK = MIB;
  private static final int MAX_DEPTH = 16;
  private static final long LENGTH = 64L * MIB;
  /** What a ranges-mode run must cover before it prefetches: an eighth of a block, at least 64 KiB. */
  private static final long PROOF = Math.max(ReadPlanner.SKIP_TOLERANCE, BLOCK / 8);

  private static ReadPlanner planner(ReadPolicy policy) {
    return new ReadPlanner(BLOCK, MAX_DEPTH, policy, LENGTH, new LearnedDepth());
  }

  // ---- prefetching mode: which reads are in order --------------------------------------------

  @Test
  void theFirstReadAtTheStartIsInOrder() {
    ReadPlanner p = planner(ReadPolicy.ADAPTIVE);
    assertThat(p.onRead(0, 4 * KIB, false, false).kind()).isEqualTo(Kind.IN_ORDER);
    assertThat(p.readsRanges()).isFalse();
  }

  @Test
  void aFirstReadJustAfterTheStartCountsAsContinuingFromZero() {
    ReadPlanner p = planner(ReadPolicy.ADAPTIVE);
    assertThat(p.onRead(100, 4 * KIB, false, false).kind()).isEqualTo(Kind.IN_ORDER);
  }

  @Test
  void readsThatStartWhereThePreviousEndedAreInOrder() {
    ReadPlanner p = planner(ReadPolicy.ADAPTIVE);
    long pos = 0;
    for (int i = 0; i < 100; i++) {
      int len = 1000 + i * 37;
      Decision d = p.onRead(pos, len, false, false);
      assertThat(d.kind()).as("read %d at %d", i, pos).isEqualTo(Kind.IN_ORDER);
      assertThat(d.inOrder()).isTrue();
      assertThat(d.switched()).isFalse();
      pos += len;
    }
  }

  @Test
  void aForwardGapOfAtMostTheSkipToleranceStillCountsAsInOrder() {
    ReadPlanner p = planner(ReadPolicy.ADAPTIVE);
    p.onRead(0, 4 * KIB, false, false);
    // a reader skipping a record header: a small gap, then the largest gap that is still tolerated
    assertThat(p.onRead(4 * KIB + 10, 4 * KIB, false, false).kind()).isEqualTo(Kind.IN_ORDER);
    long end = 8 * KIB + 10;
    assertThat(p.onRead(end + ReadPlanner.SKIP_TOLERANCE, 4 * KIB, false, false).kind()).isEqualTo(Kind.IN_ORDER);
  }

  @Test
  void aForwardGapBeyondTheSkipToleranceIsAJump() {
    ReadPlanner p = planner(ReadPolicy.ADAPTIVE);
    p.onRead(0, 4 * KIB, false, false);
    assertThat(p.onRead(4 * KIB + ReadPlanner.SKIP_TOLERANCE + 1, 4 * KIB, false, false).kind())
        .isEqualTo(Kind.SMALL_JUMP);
  }

  @Test
  void theGapToleratedIsNeverMoreThanTheSkipToleranceWhateverTheBlockSize() {
    for (int blockSize : new int[] {64 * KIB, 256 * KIB, MIB, 8 * MIB, 64 * MIB}) {
      ReadPlanner p = new ReadPlanner(blockSize, MAX_DEPTH, ReadPolicy.ADAPTIVE, 1024L * MIB,
          new LearnedDepth());
      p.onRead(0, 1000, false, false);
      assertThat(p.onRead(1000 + ReadPlanner.SKIP_TOLERANCE + 1, 1000, false, false).inOrder())
          .as("block size %d", blockSize).isFalse();
    }
  }

  @Test
  void aBackwardReadIsAJumpUnlessItsBlockIsInMemory() {
    ReadPlanner p = planner(ReadPolicy.ADAPTIVE);
    p.onRead(0, 512 * KIB, false, false);
    p.onRead(512 * KIB, 512 * KIB, false, false);
    assertThat(p.onRead(100 * KIB, 4 * KIB, true, false).kind()).isEqualTo(Kind.IN_ORDER);
    assertThat(p.onRead(50 * KIB, 4 * KIB, false, false).kind()).isEqualTo(Kind.SMALL_JUMP);
  }

  @Test
  void aFarForwardReadWhoseBlockIsInMemoryIsInOrder() {
    ReadPlanner p = planner(ReadPolicy.ADAPTIVE);
    p.onRead(0, 4 * KIB, false, false);
    assertThat(p.onRead(3L * BLOCK + 5, 4 * KIB, true, false).kind()).isEqualTo(Kind.IN_ORDER);
  }

  @Test
  void aSmallReadAfterAJumpFetchesItsOwnBytes() {
    ReadPlanner p = planner(ReadPolicy.ADAPTIVE);
    p.onRead(0, 4 * KIB, false, false);
    Decision d = p.onRead(10L * BLOCK, 4 * KIB, false, false);
    assertThat(d.kind()).isEqualTo(Kind.SMALL_JUMP);
    assertThat(d.inOrder()).isFalse();
    assertThat(d.switched()).isFalse();
  }

  @Test
  void aSmallReadAfterAJumpInAnObjectOfOneBlockFetchesTheBlockWholeOnce() {
    ReadPlanner p = new ReadPlanner(BLOCK, MAX_DEPTH, ReadPolicy.ADAPTIVE, BLOCK, new LearnedDepth());
    p.onRead(0, 4 * KIB, false, false);
    assertThat(p.onRead(BLOCK / 2, 4 * KIB, false, false).kind()).isEqualTo(Kind.BLOCKS_AFTER_JUMP);
  }

  @Test
  void aLargeReadAfterAJumpFetchesTheBlocksItSpans() {
    ReadPlanner p = planner(ReadPolicy.ADAPTIVE);
    p.onRead(0, 4 * KIB, false, false);
    assertThat(p.onRead(10L * BLOCK, BLOCK, false, false).kind()).isEqualTo(Kind.BLOCKS_AFTER_JUMP);
    assertThat(p.onRead(30L * BLOCK + 7, 3 * BLOCK, false, false).kind()).isEqualTo(Kind.BLOCKS_AFTER_JUMP);
  }

  @Test
  void aFirstReadInTheMiddleIsAJump() {
    ReadPlanner p = planner(ReadPolicy.ADAPTIVE);
    assertThat(p.onRead(LENGTH / 2, 4 * KIB, false, false).kind()).isEqualTo(Kind.SMALL_JUMP);
    assertThat(p.readsRanges()).isFalse();
  }

  @Test
  void readsThatContinueAJumpAreInOrderAgain() {
    ReadPlanner p = planner(ReadPolicy.ADAPTIVE);
    p.onRead(0, 4 * KIB, false, false);
    long pos = 20L * BLOCK;
    p.onRead(pos, 4 * KIB, false, false);
    assertThat(p.onRead(pos + 4 * KIB, 4 * KIB, false, false).kind()).isEqualTo(Kind.IN_ORDER);
  }

  // ---- prefetching mode: the depth --------------------------------------------------------------

  @Test
  void theDepthStartsAtTwoAndDoublesForEachNewBlockUpToTheMaximum() {
    ReadPlanner p = planner(ReadPolicy.ADAPTIVE);
    p.onRead(0, 4 * KIB, false, false);
    List<Integer> depths = new ArrayList<>();
    for (long block = 0; block < 8; block++) {
      depths.add(p.enterBlock(block));
    }
    assertThat(depths.get(0)).isEqualTo(2);
    for (int i = 1; i < depths.size(); i++) {
      assertThat(depths.get(i)).as("block %d", i).isEqualTo(Math.min(MAX_DEPTH, 2 * depths.get(i - 1)));
    }
    assertThat(depths).endsWith(MAX_DEPTH, MAX_DEPTH);
  }

  @Test
  void enteringTheSameOrAnEarlierBlockAgainDoesNotDeepen() {
    ReadPlanner p = planner(ReadPolicy.ADAPTIVE);
    p.onRead(0, 4 * KIB, false, false);
    int d0 = p.enterBlock(0);
    int d1 = p.enterBlock(1);
    assertThat(p.enterBlock(1)).isEqualTo(d1);
    assertThat(p.enterBlock(0)).isEqualTo(d1);
    assertThat(d1).isGreaterThan(d0);
  }

  @Test
  void oneLargeReadSpanningBlocksDeepensPerBlock() {
    ReadPlanner p = planner(ReadPolicy.ADAPTIVE);
    assertThat(p.onRead(0, 3 * BLOCK, false, false).kind()).isEqualTo(Kind.IN_ORDER);
    // the caller enters every block the read spans: blocks 0, 1, 2
    int d = 0;
    for (long block = 0; block < 3; block++) {
      d = p.enterBlock(block);
    }
    assertThat(d).isEqualTo(8);
  }

  @Test
  void aJumpResetsTheDepth() {
    ReadPlanner p = planner(ReadPolicy.ADAPTIVE);
    p.onRead(0, 4 * KIB, false, false);
    for (long block = 0; block < 6; block++) {
      p.enterBlock(block);
    }
    assertThat(p.enterBlock(6)).isEqualTo(MAX_DEPTH);

    long pos = 40L * BLOCK;
    p.onRead(pos, 4 * KIB, false, false); // a jump
    p.onRead(pos + 4 * KIB, 4 * KIB, false, false); // in order again
    assertThat(p.enterBlock(40)).isEqualTo(2);
    assertThat(p.enterBlock(41)).isEqualTo(4);
  }

  @Test
  void sequentialStartsDeepAndAJumpResetsItToDeep() {
    ReadPlanner p = planner(ReadPolicy.SEQUENTIAL);
    assertThat(p.onRead(0, 4 * KIB, false, false).kind()).isEqualTo(Kind.IN_ORDER);
    assertThat(p.enterBlock(0)).isEqualTo(MAX_DEPTH);
    assertThat(p.onRead(40L * BLOCK, 4 * KIB, false, false).kind()).isEqualTo(Kind.SMALL_JUMP);
    assertThat(p.enterBlock(40)).isEqualTo(MAX_DEPTH);
  }

  @Test
  void aMaximumDepthBelowTwoCapsTheStartingDepth() {
    ReadPlanner p = new ReadPlanner(BLOCK, 1, ReadPolicy.ADAPTIVE, LENGTH, new LearnedDepth());
    p.onRead(0, 4 * KIB, false, false);
    assertThat(p.enterBlock(0)).isEqualTo(1);
    assertThat(p.enterBlock(1)).isEqualTo(1);
  }

  // ---- ranges mode: who reads ranges -----------------------------------------------------------

  @Test
  void randomReadsRangesFromTheFirstRead() {
    ReadPlanner p = planner(ReadPolicy.RANDOM);
    assertThat(p.readsRanges()).isTrue();
    Decision d = p.onRead(0, 4 * KIB, false, false);
    assertThat(d.kind()).isEqualTo(Kind.EXACT);
    assertThat(d.ahead()).isZero();
    assertThat(d.switched()).isFalse();
  }

  @Test
  void rangesModeFetchesExactlyTheBytesOfAJumpEvenIfItsBlockIsInMemory() {
    ReadPlanner p = planner(ReadPolicy.RANDOM);
    p.onRead(LENGTH - 8, 8, false, false);
    for (long pos : new long[] {5L * BLOCK, 100, 30L * BLOCK + 3, 2L * BLOCK}) {
      Decision d = p.onRead(pos, 64 * KIB, true, false);
      assertThat(d.kind()).as("read at %d", pos).isEqualTo(Kind.EXACT);
      assertThat(d.ahead()).as("read at %d", pos).isZero();
    }
  }

  @Test
  void anAdaptiveStreamWhoseFirstReadIsInTheLastMibReadsRanges() {
    for (long pos : new long[] {LENGTH - 8, LENGTH - 64 * KIB, LENGTH - ReadPlanner.TAIL_ZONE}) {
      ReadPlanner p = planner(ReadPolicy.ADAPTIVE);
      Decision d = p.onRead(pos, 8, false, false);
      assertThat(p.readsRanges()).as("first read at %d", pos).isTrue();
      assertThat(d.kind()).isEqualTo(Kind.EXACT);
      // and the column chunks after it are ranges too
      assertThat(p.onRead(3L * BLOCK, 200 * KIB, false, false).kind()).isEqualTo(Kind.EXACT);
    }
  }

  @Test
  void anAdaptiveStreamWhoseFirstReadIsBeforeTheLastMibDoesNotReadRanges() {
    ReadPlanner p = planner(ReadPolicy.ADAPTIVE);
    p.onRead(LENGTH - ReadPlanner.TAIL_ZONE - 1, 8, false, false);
    assertThat(p.readsRanges()).isFalse();
  }

  @Test
  void onlyTheFirstReadDecidesTheMode() {
    ReadPlanner p = planner(ReadPolicy.ADAPTIVE);
    p.onRead(0, 4 * KIB, false, false);
    assertThat(p.onRead(LENGTH - 8, 8, false, false).kind()).isNotEqualTo(Kind.EXACT);
    assertThat(p.readsRanges()).isFalse();
  }

  @Test
  void aFirstReadAtTheStartOfASmallObjectIsNotAFooter() {
    ReadPlanner p = new ReadPlanner(BLOCK, MAX_DEPTH, ReadPolicy.ADAPTIVE, 100 * KIB, new LearnedDepth());
    assertThat(p.onRead(0, 4 * KIB, false, false).kind()).isEqualTo(Kind.IN_ORDER);
    assertThat(p.readsRanges()).isFalse();
  }

  @Test
  void aFirstReadPastTheStartOfASmallObjectIsInItsTailAndReadsRanges() {
    ReadPlanner p = new ReadPlanner(BLOCK, MAX_DEPTH, ReadPolicy.ADAPTIVE, 100 * KIB, new LearnedDepth());
    assertThat(p.onRead(100 * KIB - 8, 8, false, false).kind()).isEqualTo(Kind.EXACT);
    assertThat(p.readsRanges()).isTrue();
  }

  @Test
  void aSequentialStreamWhoseFirstReadIsInTheTailDoesNotReadRanges() {
    ReadPlanner p = planner(ReadPolicy.SEQUENTIAL);
    assertThat(p.onRead(LENGTH - 8, 8, false, false).kind()).isNotEqualTo(Kind.EXACT);
    assertThat(p.readsRanges()).isFalse();
  }

  // ---- ranges mode: prefetch must be earned ----------------------------------------------------

  @Test
  void aRunSwitchesToInOrderOnTheReadAfterItCoveredAnEighthOfABlock() {
    ReadPlanner p = planner(ReadPolicy.RANDOM);
    p.onRead(LENGTH - 8, 8, false, false); // the footer
    long start = 7L * BLOCK;
    int len = 16 * KIB;
    long covered = 0;
    int reads = 0;
    int switches = 0;
    for (int i = 0; i < 20; i++) {
      Decision d = p.onRead(start + covered, len, false, false);
      boolean earned = reads >= ReadPlanner.PROOF_READS && covered >= PROOF;
      if (earned) {
        assertThat(d.kind()).as("read %d, after %d bytes", i, covered).isEqualTo(Kind.IN_ORDER);
        assertThat(d.ahead()).isZero();
      } else {
        assertThat(d.kind()).as("read %d, after %d bytes", i, covered).isEqualTo(Kind.EXACT);
      }
      if (d.switched()) {
        switches++;
        assertThat(covered).as("the switch comes with the first read after the proof").isEqualTo(PROOF);
      }
      covered += len;
      reads++;
    }
    assertThat(switches).isEqualTo(1);
  }

  @Test
  void oneLargeReadIsNotProofEnough() {
    ReadPlanner p = planner(ReadPolicy.RANDOM);
    long start = 7L * BLOCK;
    int big = (int) (2 * PROOF);
    assertThat(p.onRead(start, big, false, false).kind()).isEqualTo(Kind.EXACT);
    // a second read continuing it: one read before it, fewer than PROOF_READS
    Decision second = p.onRead(start + big, 4 * KIB, false, false);
    assertThat(second.kind()).isEqualTo(Kind.EXACT);
    assertThat(second.switched()).isFalse();
    // the third: two reads in a row behind it, covering more than the proof
    Decision third = p.onRead(start + big + 4 * KIB, 4 * KIB, false, false);
    assertThat(third.kind()).isEqualTo(Kind.IN_ORDER);
    assertThat(third.switched()).isTrue();
  }

  @Test
  void aSwitchedStreamDeepensAsInPrefetchingMode() {
    ReadPlanner p = planner(ReadPolicy.RANDOM);
    long pos = 2L * BLOCK;
    Decision d;
    do {
      d = p.onRead(pos, 64 * KIB, false, false);
      pos += 64 * KIB;
    } while (!d.switched());
    assertThat(p.enterBlock(2)).isEqualTo(2);
    assertThat(p.enterBlock(3)).isEqualTo(4);
    assertThat(p.enterBlock(4)).isEqualTo(8);
  }

  @Test
  void aJumpEndsTheRunAndThePrefetchMustBeEarnedAgain() {
    ReadPlanner p = planner(ReadPolicy.RANDOM);
    long pos = 2L * BLOCK;
    int switches = 0;
    Decision d;
    do {
      d = p.onRead(pos, 64 * KIB, false, false);
      pos += 64 * KIB;
    } while (!d.switched());
    switches++;
    assertThat(p.onRead(pos, 64 * KIB, false, false).kind()).isEqualTo(Kind.IN_ORDER);
    for (long block = 2; block < 6; block++) {
      p.enterBlock(block);
    }
    assertThat(p.enterBlock(6)).isGreaterThan(2);

    // a jump: exactly its bytes again, the depth back at its start, and a new run must prove itself
    pos = 20L * BLOCK;
    d = p.onRead(pos, 64 * KIB, false, false);
    assertThat(d.kind()).isEqualTo(Kind.EXACT);
    assertThat(d.ahead()).isZero();
    assertThat(p.readsRanges()).isTrue();
    pos += 64 * KIB;
    d = p.onRead(pos, 64 * KIB, false, false);
    assertThat(d.kind()).isEqualTo(Kind.EXACT);
    do {
      pos += 64 * KIB;
      d = p.onRead(pos, 64 * KIB, false, false);
      if (d.switched()) {
        switches++;
      }
    } while (!d.inOrder());
    assertThat(switches).as("each run that proves itself switches once, and is counted").isEqualTo(2);
    assertThat(p.enterBlock(pos / BLOCK)).isEqualTo(2);
  }

  @Test
  void readsThatContinueARangeFetchDoublingSpansUntilTheSwitch() {
    ReadPlanner p = planner(ReadPolicy.RANDOM);
    p.onRead(LENGTH - 8, 8, false, false);
    // What the stream does: a read inside a span fetched ahead is served from it (and still told to the
    // planner); any other read fetches its bytes plus the planner's 'ahead'.
    long start = 9L * BLOCK;
    int len = 4 * KIB;
    long fetchedEnd = start;
    List<Long> spans = new ArrayList<>();
    List<Long> readBefore = new ArrayList<>();
    long pos = start;
    boolean switched = false;
    while (!switched) {
      Decision d = p.onRead(pos, len, pos + len <= fetchedEnd, false);
      if (d.switched()) {
        switched = true;
        assertThat(pos - start).as("bytes read by the run when it switched").isEqualTo(PROOF);
      } else if (pos + len > fetchedEnd) {
        assertThat(d.kind()).isEqualTo(Kind.EXACT);
        spans.add((long) len + d.ahead());
        readBefore.add(pos - start);
        fetchedEnd = pos + len + d.ahead();
      }
      // never more than twice the bytes read
      assertThat(fetchedEnd - start).isLessThanOrEqualTo(2 * (pos + len - start));
      pos += len;
    }
    assertThat(spans.get(0)).as("the first read of a run fetches exactly its bytes").isEqualTo(len);
    for (int i = 1; i < spans.size(); i++) {
      assertThat(spans.get(i)).as("span %d: as many bytes as the run has read", i).isEqualTo(readBefore.get(i));
    }
    for (int i = 2; i < spans.size(); i++) {
      assertThat(spans.get(i)).as("span %d doubles", i).isEqualTo(2 * spans.get(i - 1));
    }
    // a few requests, not one per read: log2(PROOF / len) + 2
    int reads = (int) (PROOF / len);
    assertThat(spans.size()).isLessThan(reads).isLessThanOrEqualTo(Long.numberOfTrailingZeros(reads) + 2);
  }

  @Test
  void aheadNeverExceedsTheProofNorGoesNegative() {
    ReadPlanner p = new ReadPlanner(64 * MIB, MAX_DEPTH, ReadPolicy.RANDOM, 1024L * MIB, new LearnedDepth());
    long proof = Math.max(ReadPlanner.SKIP_TOLERANCE, 64 * MIB / 8);
    long pos = 0;
    int[] lens = {1, 100, 4 * KIB, 3 * MIB, 10, 7 * MIB, 1 * KIB, 64 * KIB};
    for (int i = 0; i < 40; i++) {
      int len = lens[i % lens.length];
      Decision d = p.onRead(pos, len, false, false);
      assertThat(d.ahead()).isBetween(0, (int) proof);
      pos += len;
    }
  }

  @Test
  void aSmallGapKeepsARangesRunGoing() {
    ReadPlanner p = planner(ReadPolicy.RANDOM);
    long pos = 3L * BLOCK;
    p.onRead(pos, 32 * KIB, false, false);
    pos += 32 * KIB + 100; // a little ahead: still the same run
    Decision d = p.onRead(pos, 8 * KIB, false, false);
    assertThat(d.kind()).isEqualTo(Kind.EXACT);
    assertThat(d.ahead()).as("a continuing read fetches ahead").isPositive();
  }
}
