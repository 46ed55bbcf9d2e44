/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.source;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.slipstream.internal.block.BufferPool;
import dev.slipstream.internal.block.Destination;
import dev.slipstream.internal.block.Span;
import dev.slipstream.internal.fetch.FetchRig;
import dev.slipstream.internal.fetch.Purpose;
import dev.slipstream.internal.store.ScriptedStore;
import java.nio.file.AccessDeniedException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A range's pass through the tiers, in one call, over a scripted store and a scripted tier: the tiers are
 * asked first, then what they miss is fetched (the reads running as the caller hands them: here at once,
 * on the test's thread, each one recorded), then what S3 gave is offered to the tiers; the pass asks
 * nothing back of its caller between those steps.
 */
class RangeTiersTest {
  private static final int KIB = 1024;
  private static final int MIB = 1024 * KIB;

  private FetchRig rig;
  /** What the pass did, in order: each read it handed over to run, and what the tier was asked and offered. */
  private final List<String> steps = Collections.synchronizedList(new ArrayList<>());

  @AfterEach
  void close() {
    if (rig != null) {
      rig.close();
    }
  }

  private RangeTiers tiers(byte[] data, int blockSize, int keptPiece, ScriptedTier tier) {
    rig = new FetchRig(new ScriptedStore(data, FetchRig.ETAG), blockSize, 2, 64L * MIB);
    return new RangeTiers(rig.answered(), OwnBlocks.NONE, List.of(tier), new S3Source(rig.ranges, rig.parts),
        rig.pool, blockSize, keptPiece);
  }

  /** Runs each read at once, on this thread, as a fetch thread would, recording it. */
  private RangeTiers.Submit submitted() {
    return work -> {
      steps.add("submit");
      try {
        work.run(FetchRig.token(Purpose.RANGE));
        return CompletableFuture.completedFuture(null);
      } catch (Exception e) {
        return CompletableFuture.failedFuture(e);
      }
    };
  }

  /** Runs a caller's read at once, on this thread, recording it. */
  private RangeTiers.Waits waited() {
    return new RangeTiers.Waits((position, len, why, work, into) -> {
      steps.add("wait " + position + "+" + len + " " + why.name());
      work.run(FetchRig.token(why));
    }, (why, parts, into) -> {
      steps.add("wait in parts " + why.name());
      try {
        parts.apply(submitted()).get();
      } catch (InterruptedException | ExecutionException e) {
        throw new java.io.IOException(e);
      }
    });
  }

  @Test
  void aRangeInPartsAsksForItsPiecesOnceThenFetchesEachRunMissingThenOffersThosePieces() throws Exception {
    byte[] data = ScriptedStore.bytes(4 * MIB);
    ScriptedTier disk = new ScriptedTier("disk", data, Piece.Origin.DISK).holding(Piece.range(1000 + MIB, MIB));
    RangeTiers tiers = tiers(data, MIB, MIB, disk);
    byte[] dst = new byte[3 * MIB];

    tiers.readInParts(1000, Destination.of(dst, 0), 3 * MIB, submitted()).get();

    assertThat(dst).isEqualTo(rig.data(1000, 1000 + 3 * MIB));
    // one read looks the three pieces up; then one part for each run of missing pieces
    assertThat(steps).containsExactly("submit", "submit", "submit");
    assertThat(disk.asked().subList(0, 3)).containsExactly("disk read range 1000+" + MIB + " [0, " + MIB + ")",
        "disk read range " + (1000 + MIB) + "+" + MIB + " [0, " + MIB + ")",
        "disk read range " + (1000 + 2 * MIB) + "+" + MIB + " [0, " + MIB + ")");
    assertThat(disk.asked().subList(3, disk.asked().size())).allMatch(a -> a.startsWith("disk read block"));
    assertThat(rig.store.ranges()).containsExactly("1000-" + (1000 + MIB), (1000 + 2 * MIB) + "-" + (1000 + 3 * MIB));
    assertThat(disk.kept()).containsExactly(Piece.range(1000, MIB), Piece.range(1000 + 2 * MIB, MIB));
  }

  @Test
  void aRangeNoTierKeepsIsReadInPartsAtOnceWithNothingLookedUpOrOffered() throws Exception {
    byte[] data = ScriptedStore.bytes(2 * MIB);
    ScriptedTier memory = new ScriptedTier("memory", data, Piece.Origin.MEMORY).keepingNoRange();
    RangeTiers tiers = tiers(data, MIB, MIB, memory);
    int len = 3 * MIB / 2;
    byte[] dst = new byte[len];

    tiers.readInParts(100, Destination.of(dst, 0), len, submitted()).get();

    assertThat(dst).isEqualTo(rig.data(100, 100 + len));
    assertThat(steps).containsExactly("submit", "submit"); // two parts of at most a part, no lookup
    assertThat(memory.asked()).noneMatch(a -> a.contains("range"));
    assertThat(rig.store.ranges()).containsExactly("100-" + (100 + len / 2), (100 + len / 2) + "-" + (100 + len));
    assertThat(memory.kept()).isEmpty();
  }

  @Test
  void aRangeWhosePartFailsFailsAndOffersNothing() {
    byte[] data = ScriptedStore.bytes(2 * MIB);
    ScriptedTier disk = new ScriptedTier("disk", data, Piece.Origin.DISK);
    RangeTiers tiers = tiers(data, MIB, MIB, disk);
    rig.store.then(ScriptedStore.fail(new AccessDeniedException("s3://b/k")));
    byte[] dst = new byte[1000];

    CompletableFuture<Void> done = tiers.readInParts(100, Destination.of(dst, 0), 1000, submitted());

    assertThatThrownBy(done::get).isInstanceOf(ExecutionException.class)
        .hasCauseInstanceOf(AccessDeniedException.class);
    assertThat(disk.kept()).isEmpty();
  }

  @Test
  void aSmallReadLooksItUpFetchesWhatIsMissingOnceAndOffersIt() throws Exception {
    byte[] data = ScriptedStore.bytes(MIB);
    ScriptedTier disk = new ScriptedTier("disk", data, Piece.Origin.DISK);
    RangeTiers tiers = tiers(data, 256 * KIB, 256 * KIB, disk);
    byte[] dst = new byte[1000];

    tiers.readAlone(500_000, dst, 0, 1000, true, Purpose.RANGE, waited());

    assertThat(dst).isEqualTo(rig.data(500_000, 501_000));
    assertThat(steps).containsExactly("wait 500000+1000 RANGE");
    assertThat(disk.asked()).containsExactly("disk read range 500000+1000 [0, 1000)",
        "disk read block 1 [" + (500_000 - 256 * KIB) + ", " + (501_000 - 256 * KIB) + ")");
    assertThat(rig.store.ranges()).containsExactly("500000-501000");
    assertThat(disk.kept()).containsExactly(Piece.range(500_000, 1000));
  }

  @Test
  void aSmallReadATierKeptSendsNothing() throws Exception {
    byte[] data = ScriptedStore.bytes(MIB);
    ScriptedTier disk = new ScriptedTier("disk", data, Piece.Origin.DISK).holding(Piece.range(500_000, 1000));
    RangeTiers tiers = tiers(data, 256 * KIB, 256 * KIB, disk);
    byte[] dst = new byte[1000];

    tiers.readAlone(500_000, dst, 0, 1000, true, Purpose.RANGE, waited());

    assertThat(dst).isEqualTo(rig.data(500_000, 501_000));
    assertThat(steps).isEmpty();
    assertThat(rig.store.ranges()).isEmpty();
    assertThat(disk.kept()).isEmpty();
  }

  @Test
  void aSmallReadWithoutKeepingComesFromS3AloneAndAsksNoTier() throws Exception {
    byte[] data = ScriptedStore.bytes(MIB);
    ScriptedTier disk = new ScriptedTier("disk", data, Piece.Origin.DISK).holding(Piece.range(500_000, 1000));
    RangeTiers tiers = tiers(data, 256 * KIB, 256 * KIB, disk);
    byte[] dst = new byte[1000];

    tiers.readAlone(500_000, dst, 0, 1000, false, Purpose.READAHEAD, waited());

    assertThat(dst).isEqualTo(rig.data(500_000, 501_000));
    assertThat(steps).containsExactly("wait 500000+1000 READAHEAD");
    assertThat(disk.asked()).isEmpty();
    assertThat(disk.kept()).isEmpty();
  }

  @Test
  void aSpanFilledInOneRequestIsFetchedIntoItsBufferMarkedFilledAndOfferedItself() throws Exception {
    byte[] data = ScriptedStore.bytes(MIB);
    ScriptedTier disk = new ScriptedTier("disk", data, Piece.Origin.DISK);
    RangeTiers tiers = tiers(data, 256 * KIB, 256 * KIB, disk);
    Span span = new Span(900_000, rig.pool.tryAcquire(BufferPool.sizeFor(100_000)), 100_000, rig.pool,
        rig.stats);

    tiers.fillExtent(span, true, Purpose.FOOTER, waited());

    assertThat(span.isReady()).isTrue();
    assertThat(java.util.Arrays.copyOf(span.buffer(), 100_000)).isEqualTo(rig.data(900_000, 1_000_000));
    assertThat(steps).containsExactly("wait 900000+100000 FOOTER");
    assertThat(disk.asked()).containsExactly("disk fill range 900000+100000"); // the range as kept, no block asked
    assertThat(disk.kept()).containsExactly(Piece.range(900_000, 100_000));
    span.unpin();
    span.releaseOwner();
  }

  @Test
  void aReadWaitedForAsksTheBlocksThenFillsItsExtentInOneRequestThenOffersItInOneCall() throws Exception {
    byte[] data = ScriptedStore.bytes(MIB);
    ScriptedTier disk = new ScriptedTier("disk", data, Piece.Origin.DISK);
    RangeTiers tiers = tiers(data, 256 * KIB, 256 * KIB, disk);
    byte[] dst = new byte[1000];
    Through how = new Through(500_000, 1000, true, true, Purpose.RANGE,
        new Through.Extent(400_000, 200_000, true, Purpose.CHUNK));

    Span span = tiers.readWaiting(how, dst, 0, waited());

    assertThat(dst).isEqualTo(rig.data(500_000, 501_000));
    assertThat(java.util.Arrays.copyOf(span.buffer(), 200_000)).isEqualTo(rig.data(400_000, 600_000));
    assertThat(steps).containsExactly("wait 400000+200000 CHUNK"); // one request, handed over by the caller
    assertThat(disk.asked()).containsExactly( // the blocks first, then the extent as a tier kept it
        "disk read block 1 [" + (500_000 - 256 * KIB) + ", " + (501_000 - 256 * KIB) + ")",
        "disk fill range 400000+200000");
    assertThat(rig.store.ranges()).containsExactly("400000-600000");
    assertThat(disk.kept()).containsExactly(Piece.range(400_000, 200_000));
    span.unpin();
    span.releaseOwner();
  }

  @Test
  void aLargeReadWaitedForIsOneRequestInPartsKeptPieceByPiece() throws Exception {
    byte[] data = ScriptedStore.bytes(4 * MIB);
    ScriptedTier disk = new ScriptedTier("disk", data, Piece.Origin.DISK);
    RangeTiers tiers = tiers(data, MIB, MIB, disk);
    int len = 2 * MIB;
    byte[] dst = new byte[len];

    Span span = tiers.readWaiting(new Through(1000, len, false, true, Purpose.RANGE, null), dst, 0, waited());

    assertThat(span).isNull();
    assertThat(dst).isEqualTo(rig.data(1000, 1000 + len));
    // one request of the caller, whose parts are the lookup of the two pieces and one part each missing
    assertThat(steps).containsExactly("wait in parts RANGE", "submit", "submit", "submit");
    assertThat(rig.store.ranges()).containsExactly("1000-" + (1000 + MIB), (1000 + MIB) + "-" + (1000 + len));
    assertThat(disk.kept()).containsExactly(Piece.range(1000, MIB), Piece.range(1000 + MIB, MIB));
  }
}
