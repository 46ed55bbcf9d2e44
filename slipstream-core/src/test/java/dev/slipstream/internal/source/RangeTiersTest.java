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
import dev.slipstream.internal.fetch.ObjectHandle;
import dev.slipstream.internal.fetch.Purpose;
import dev.slipstream.internal.fetch.StreamRequests;
import dev.slipstream.internal.store.ScriptedStore;
import java.nio.file.AccessDeniedException;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A range's pass through the tiers, over a scripted store and a scripted tier: {@link RangeTiers} is asked
 * first, then what it returns missing is fetched by {@link RangeThrough} (as requests of the stream), then
 * what S3 gave is offered to the tiers; nothing below calls back up between those steps. The parts of a
 * range run in parallel on the fetch threads: their GETs are counted, in any order.
 */
class RangeTiersTest {
  private static final int KIB = 1024;
  private static final int MIB = 1024 * KIB;

  private FetchRig rig;
  private StreamRequests requests;

  @AfterEach
  void close() {
    if (rig != null) {
      assertThat(requests.inFlight()).isZero(); // every request the pass made has ended
      rig.close();
    }
  }

  private RangeThrough tiers(byte[] data, int blockSize, int keptPiece, ScriptedTier tier) {
    rig = new FetchRig(new ScriptedStore(data, FetchRig.ETAG), blockSize, 2, 64L * MIB);
    ObjectHandle h = rig.answered();
    requests = new StreamRequests(h, 5_000);
    return new SourceChain(h, OwnBlocks.NONE, List.of(tier), new S3Source(rig.ranges, rig.parts), rig.pool,
        blockSize, false, null).ranges(rig.fetcher, requests, keptPiece);
  }

  @Test
  void aRangeInPartsAsksForItsPiecesOnceThenFetchesEachRunMissingThenOffersThosePieces() throws Exception {
    byte[] data = ScriptedStore.bytes(4 * MIB);
    ScriptedTier disk = new ScriptedTier("disk", data, Piece.Origin.DISK).holding(Piece.range(1000 + MIB, MIB));
    RangeThrough tiers = tiers(data, MIB, MIB, disk);
    byte[] dst = new byte[3 * MIB];

    tiers.range(1000, Destination.of(dst, 0), 3 * MIB, Purpose.RANGE).done().get();

    assertThat(dst).isEqualTo(rig.data(1000, 1000 + 3 * MIB));
    assertThat(disk.asked().subList(0, 3)).containsExactly("disk read range 1000+" + MIB + " [0, " + MIB + ")",
        "disk read range " + (1000 + MIB) + "+" + MIB + " [0, " + MIB + ")",
        "disk read range " + (1000 + 2 * MIB) + "+" + MIB + " [0, " + MIB + ")");
    assertThat(disk.asked().subList(3, disk.asked().size())).allMatch(a -> a.startsWith("disk read block"));
    assertThat(rig.store.ranges()).containsExactlyInAnyOrder("1000-" + (1000 + MIB), (1000 + 2 * MIB) + "-" + (1000 + 3 * MIB));
    assertThat(disk.kept()).containsExactlyInAnyOrder(Piece.range(1000, MIB), Piece.range(1000 + 2 * MIB, MIB));
  }

  @Test
  void aRangeNoTierKeepsIsReadInPartsAtOnceWithNothingLookedUpOrOffered() throws Exception {
    byte[] data = ScriptedStore.bytes(2 * MIB);
    ScriptedTier memory = new ScriptedTier("memory", data, Piece.Origin.MEMORY).keepingNoRange();
    RangeThrough tiers = tiers(data, MIB, MIB, memory);
    int len = 3 * MIB / 2;
    byte[] dst = new byte[len];

    tiers.range(100, Destination.of(dst, 0), len, Purpose.RANGE).done().get();

    assertThat(dst).isEqualTo(rig.data(100, 100 + len));
    assertThat(memory.asked()).noneMatch(a -> a.contains("range"));
    assertThat(rig.store.ranges()).containsExactlyInAnyOrder("100-" + (100 + len / 2), (100 + len / 2) + "-" + (100 + len));
    assertThat(memory.kept()).isEmpty();
  }

  @Test
  void aRangeWhosePartFailsFailsAndOffersNothing() {
    byte[] data = ScriptedStore.bytes(2 * MIB);
    ScriptedTier disk = new ScriptedTier("disk", data, Piece.Origin.DISK);
    RangeThrough tiers = tiers(data, MIB, MIB, disk);
    rig.store.then(ScriptedStore.fail(new AccessDeniedException("s3://b/k")));
    byte[] dst = new byte[1000];

    CompletableFuture<Void> done = tiers.range(100, Destination.of(dst, 0), 1000, Purpose.RANGE).done();

    assertThatThrownBy(done::get).isInstanceOf(ExecutionException.class)
        .hasCauseInstanceOf(AccessDeniedException.class);
    assertThat(disk.kept()).isEmpty();
  }

  @Test
  void aSmallReadLooksItUpFetchesWhatIsMissingOnceAndOffersIt() throws Exception {
    byte[] data = ScriptedStore.bytes(MIB);
    ScriptedTier disk = new ScriptedTier("disk", data, Piece.Origin.DISK);
    RangeThrough tiers = tiers(data, 256 * KIB, 256 * KIB, disk);
    byte[] dst = new byte[1000];

    tiers.readAlone(500_000, dst, 0, 1000, true, Purpose.RANGE);

    assertThat(dst).isEqualTo(rig.data(500_000, 501_000));
    assertThat(disk.asked()).containsExactly("disk read range 500000+1000 [0, 1000)",
        "disk read block 1 [" + (500_000 - 256 * KIB) + ", " + (501_000 - 256 * KIB) + ")");
    assertThat(rig.store.ranges()).containsExactlyInAnyOrder("500000-501000");
    assertThat(disk.kept()).containsExactlyInAnyOrder(Piece.range(500_000, 1000));
  }

  @Test
  void aSmallReadATierKeptSendsNothing() throws Exception {
    byte[] data = ScriptedStore.bytes(MIB);
    ScriptedTier disk = new ScriptedTier("disk", data, Piece.Origin.DISK).holding(Piece.range(500_000, 1000));
    RangeThrough tiers = tiers(data, 256 * KIB, 256 * KIB, disk);
    byte[] dst = new byte[1000];

    tiers.readAlone(500_000, dst, 0, 1000, true, Purpose.RANGE);

    assertThat(dst).isEqualTo(rig.data(500_000, 501_000));
    assertThat(rig.store.ranges()).isEmpty();
    assertThat(disk.kept()).isEmpty();
  }

  @Test
  void aSmallReadWithoutKeepingComesFromS3AloneAndAsksNoTier() throws Exception {
    byte[] data = ScriptedStore.bytes(MIB);
    ScriptedTier disk = new ScriptedTier("disk", data, Piece.Origin.DISK).holding(Piece.range(500_000, 1000));
    RangeThrough tiers = tiers(data, 256 * KIB, 256 * KIB, disk);
    byte[] dst = new byte[1000];

    tiers.readAlone(500_000, dst, 0, 1000, false, Purpose.READAHEAD);

    assertThat(dst).isEqualTo(rig.data(500_000, 501_000));
    assertThat(disk.asked()).isEmpty();
    assertThat(disk.kept()).isEmpty();
  }

  @Test
  void aSpanFilledInOneRequestIsFetchedIntoItsBufferMarkedFilledAndOfferedItself() throws Exception {
    byte[] data = ScriptedStore.bytes(MIB);
    ScriptedTier disk = new ScriptedTier("disk", data, Piece.Origin.DISK);
    RangeThrough tiers = tiers(data, 256 * KIB, 256 * KIB, disk);
    Span span = new Span(900_000, rig.pool.tryAcquire(BufferPool.sizeFor(100_000)), 100_000, rig.pool,
        rig.stats);

    tiers.fillExtent(span, true, Purpose.FOOTER);

    assertThat(span.isReady()).isTrue();
    assertThat(java.util.Arrays.copyOf(span.buffer(), 100_000)).isEqualTo(rig.data(900_000, 1_000_000));
    assertThat(disk.asked()).containsExactly("disk fill range 900000+100000"); // the range as kept, no block asked
    assertThat(disk.kept()).containsExactlyInAnyOrder(Piece.range(900_000, 100_000));
    span.unpin();
    span.releaseOwner();
  }

  @Test
  void aReadWaitedForAsksTheBlocksThenFillsItsExtentInOneRequestThenOffersItInOneCall() throws Exception {
    byte[] data = ScriptedStore.bytes(MIB);
    ScriptedTier disk = new ScriptedTier("disk", data, Piece.Origin.DISK);
    RangeThrough tiers = tiers(data, 256 * KIB, 256 * KIB, disk);
    byte[] dst = new byte[1000];
    Through how = new Through(500_000, 1000, true, true, Purpose.RANGE,
        new Through.Extent(400_000, 200_000, true, Purpose.CHUNK));

    Span span = tiers.readThrough(how, dst, 0);

    assertThat(dst).isEqualTo(rig.data(500_000, 501_000));
    assertThat(java.util.Arrays.copyOf(span.buffer(), 200_000)).isEqualTo(rig.data(400_000, 600_000));
    assertThat(disk.asked()).containsExactly( // the blocks first, then the extent as a tier kept it
        "disk read block 1 [" + (500_000 - 256 * KIB) + ", " + (501_000 - 256 * KIB) + ")",
        "disk fill range 400000+200000");
    assertThat(rig.store.ranges()).containsExactlyInAnyOrder("400000-600000");
    assertThat(disk.kept()).containsExactlyInAnyOrder(Piece.range(400_000, 200_000));
    span.unpin();
    span.releaseOwner();
  }

  @Test
  void aLargeReadWaitedForIsOneRequestInPartsKeptPieceByPiece() throws Exception {
    byte[] data = ScriptedStore.bytes(4 * MIB);
    ScriptedTier disk = new ScriptedTier("disk", data, Piece.Origin.DISK);
    RangeThrough tiers = tiers(data, MIB, MIB, disk);
    int len = 2 * MIB;
    byte[] dst = new byte[len];

    Span span = tiers.readThrough(new Through(1000, len, false, true, Purpose.RANGE, null), dst, 0);

    assertThat(span).isNull();
    assertThat(dst).isEqualTo(rig.data(1000, 1000 + len));
    assertThat(rig.store.ranges()).containsExactlyInAnyOrder("1000-" + (1000 + MIB), (1000 + MIB) + "-" + (1000 + len));
    assertThat(disk.kept()).containsExactlyInAnyOrder(Piece.range(1000, MIB), Piece.range(1000 + MIB, MIB));
  }
}
