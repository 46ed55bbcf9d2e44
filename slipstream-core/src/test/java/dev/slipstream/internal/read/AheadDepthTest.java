/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.read;

import static org.assertj.core.api.Assertions.assertThat;

import dev.slipstream.internal.learn.LearnedDepth;
import org.junit.jupiter.api.Test;

/** The prefetch depth follows the reader: deeper while it waits, shallower while it is ahead. */
class AheadDepthTest {
  /** Enters blocks {@code from..to} in order, each arriving as {@code waited} says; returns the last depth. */
  private static int run(AheadDepth d, long from, long to, boolean waited) {
    int depth = 0;
    for (long i = from; i <= to; i++) {
      depth = d.enter(i);
      d.arrived(i, waited);
    }
    return depth;
  }

  @Test
  void aRunDoublesItsDepthWithEachBlockUpToTheCap() {
    AheadDepth d = new AheadDepth(16, false, new LearnedDepth());
    assertThat(d.enter(0)).isEqualTo(2);
    d.arrived(0, true);
    assertThat(d.enter(1)).isEqualTo(4);
    d.arrived(1, false);
    assertThat(d.enter(2)).isEqualTo(8);
    d.arrived(2, true);
    assertThat(d.enter(3)).isEqualTo(16);
    d.arrived(3, true);
    assertThat(d.enter(4)).isEqualTo(16);
  }

  @Test
  void aReaderAheadOfTheLinkHalvesTheDepthAndAWaitMakesItGrowAgain() {
    LearnedDepth learned = new LearnedDepth();
    AheadDepth d = new AheadDepth(16, false, learned);
    assertThat(run(d, 0, 3, true)).isEqualTo(16);
    assertThat(learned.get()).isEqualTo(16);
    // A whole window (16 blocks in a row) already there when the reader came: halve, stop growing.
    assertThat(run(d, 4, 18, false)).isEqualTo(16);
    assertThat(d.enter(19)).isEqualTo(16);
    d.arrived(19, false);
    assertThat(d.enter(20)).isEqualTo(8);
    assertThat(learned.get()).isEqualTo(8);
    assertThat(run(d, 20, 400, false)).isEqualTo(AheadDepth.START); // never below 2
    assertThat(learned.get()).isEqualTo(AheadDepth.START);
    // The reader waits again: the depth grows block by block.
    d.enter(401);
    d.arrived(401, true);
    assertThat(d.enter(402)).isEqualTo(4);
    assertThat(d.enter(403)).isEqualTo(8);
  }

  @Test
  void eachBlockCountsOnceHoweverManyReadsItTakes() {
    AheadDepth d = new AheadDepth(16, false, new LearnedDepth());
    d.enter(0);
    d.arrived(0, true);
    d.enter(0);
    d.arrived(0, true); // a second small read in the same block
    assertThat(d.enter(1)).isEqualTo(4);
  }

  @Test
  void aProvenRunStartsFromWhatTheClientLearned() {
    LearnedDepth learned = new LearnedDepth();
    run(new AheadDepth(16, false, learned), 0, 5, true);
    assertThat(learned.get()).isEqualTo(16);

    AheadDepth next = new AheadDepth(16, false, learned);
    assertThat(next.enter(0)).isEqualTo(2); // a header reader still risks only two blocks
    next.arrived(0, false);
    assertThat(next.enter(1)).isEqualTo(16); // proven sequential: the learned depth at once
  }

  @Test
  void aJumpStartsTheRunAgain() {
    AheadDepth d = new AheadDepth(16, false, new LearnedDepth());
    run(d, 0, 3, true);
    d.reset();
    assertThat(d.enter(40)).isEqualTo(2);
  }

  @Test
  void aCallerThatPromisedSequentialReadsStartsAtTheCap() {
    LearnedDepth learned = new LearnedDepth();
    AheadDepth d = new AheadDepth(6, true, learned);
    assertThat(d.enter(0)).as("nothing learned yet: the cap all the same").isEqualTo(6);
    d.arrived(0, true);
    assertThat(d.enter(1)).as("the cap holds").isEqualTo(6);
    assertThat(new AheadDepth(6, false, learned).enter(0)).as("a plain open still ramps").isEqualTo(2);
    AheadDepth none = new AheadDepth(0, false, new LearnedDepth());
    assertThat(run(none, 0, 10, true)).isZero(); // prefetch.blocks=0: no prefetch at all
  }

  @Test
  void partsOnlyWhileTheWindowIsShortOfTheCapAndTheReaderWaits() {
    AheadDepth d = new AheadDepth(16, false, new LearnedDepth());
    d.enter(0);
    assertThat(d.partsAhead(3)).as("a run ramping from two blocks").isTrue();
    assertThat(d.partsAhead(16)).as("a window of the cap fills the fetch threads").isFalse();
    assertThat(d.partsAhead(17)).isFalse();
    run(d, 0, 40, false); // a whole window there before the reader: it is ahead of the link
    assertThat(d.partsAhead(3)).as("a reader ahead of the link").isFalse();
  }

  @Test
  void theBlockTheReaderWaitsForComesInPartsOnlyWhileTheWindowIsShortOfTheCap() {
    AheadDepth d = new AheadDepth(16, true, new LearnedDepth());
    d.enter(0);
    assertThat(d.partsNow(16)).as("a declared read's first window fills the fetch threads").isFalse();
    assertThat(d.partsNow(3)).as("an object of three blocks").isTrue();
    run(d, 0, 40, false);
    assertThat(d.partsNow(3)).as("waited for, whoever was ahead before").isTrue();
  }
}
