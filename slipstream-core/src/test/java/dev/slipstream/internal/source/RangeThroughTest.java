/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.source;

import static org.assertj.core.api.Assertions.assertThat;

import dev.slipstream.internal.block.BufferPool;
import dev.slipstream.internal.block.Destination;
import dev.slipstream.internal.block.PooledBytes;
import dev.slipstream.internal.block.Span;
import dev.slipstream.internal.fetch.BlockFetcher;
import dev.slipstream.internal.fetch.CancelToken;
import dev.slipstream.internal.fetch.FetchRig;
import dev.slipstream.internal.fetch.Failures;
import dev.slipstream.internal.fetch.ObjectHandle;
import dev.slipstream.internal.fetch.Purpose;
import dev.slipstream.internal.fetch.StreamRequests;
import dev.slipstream.internal.store.ScriptedStore;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The read-through of a range, over a scripted store and a scripted tier: a range a tier kept comes from
 * it with no request; any other is fetched (in parts when larger than a part) and then offered to the
 * tiers; a span filled without keeping comes from S3 alone and asks no tier. A read a caller waits for
 * goes through in one call ({@link RangeThrough#readThrough}): the blocks held, then the extent around it
 * (kept, else fetched and offered), else, with memory short, the read alone.
 */
class RangeThroughTest {
  private static final int KIB = 1024;
  private static final int MIB = 1024 * KIB;
  private static final int BLOCK = 256 * KIB;

  private Rig rig;

  @AfterEach
  void close() {
    if (rig != null) {
      assertThat(rig.requests.inFlight()).isZero(); // every request made has ended
      rig.fetch.close();
    }
  }

  private Rig stream(byte[] data, int blockSize, ScriptedTier... tiers) {
    rig = new Rig(new FetchRig(new ScriptedStore(data, FetchRig.ETAG), blockSize, 4, 64L * MIB), tiers);
    return rig;
  }

  /** One stream's read-through of ranges over a scripted store, holding no blocks and no spans. */
  static final class Rig {
    final FetchRig fetch;
    final ObjectHandle h;
    final StreamRequests requests;
    final RangeThrough ranges;

    Rig(FetchRig fetch, ScriptedTier... tiers) {
      this.fetch = fetch;
      this.h = fetch.answered();
      this.requests = new StreamRequests(h, 5_000);
      int blockSize = fetch.config.blockSize();
      SourceChain chain = new SourceChain(h, OwnBlocks.NONE, List.of(tiers), new S3Source(fetch.ranges, fetch.parts),
          fetch.pool, blockSize, false, null);
      this.ranges = chain.ranges(fetch.fetcher, requests, blockSize);
    }

    byte[] data(long start, long end) {
      return fetch.data(start, end);
    }

    /** The GET of bytes {@code [start, end)}, as {@code ScriptedStore} names it. */
    static String get(long start, long end) {
      return start + "-" + end;
    }
  }

  private byte[] read(long position, int len) throws IOException {
    byte[] dst = new byte[len];
    rig.ranges.readAlone(position, dst, 0, len, true, Purpose.RANGE);
    return dst;
  }

  /** A span of {@code [start, start + len)} not yet filled, its filler's pin held by the test. */
  private Span emptySpan(long start, int len) {
    byte[] buffer = rig.fetch.pool.tryAcquire(BufferPool.sizeFor(len));
    return new Span(start, buffer, len, rig.fetch.pool, rig.h.stats());
  }

  private static byte[] bytesOf(Span span) {
    return java.util.Arrays.copyOf(span.buffer(), span.length());
  }

  @Test
  void aRangeNoTierKeptIsFetchedOnceAndThenOfferedToTheTiers() throws IOException {
    byte[] data = ScriptedStore.bytes(MIB);
    ScriptedTier disk = new ScriptedTier("disk", data, Piece.Origin.DISK);
    stream(data, BLOCK, disk);

    byte[] got = read(500_000, 1000);

    assertThat(got).isEqualTo(rig.data(500_000, 501_000));
    assertThat(rig.fetch.store.ranges()).containsExactly(Rig.get(500_000, 501_000));
    assertThat(disk.asked().get(0)).isEqualTo("disk read range 500000+1000 [0, 1000)"); // the kept range first
    assertThat(disk.kept()).containsExactly(Piece.range(500_000, 1000));
  }

  @Test
  void aRangeATierKeptComesFromItWithNoRequestAndIsNotOfferedAgain() throws IOException {
    byte[] data = ScriptedStore.bytes(MIB);
    ScriptedTier disk = new ScriptedTier("disk", data, Piece.Origin.DISK).holding(Piece.range(500_000, 1000));
    stream(data, BLOCK, disk);

    byte[] got = read(500_000, 1000);

    assertThat(got).isEqualTo(rig.data(500_000, 501_000));
    assertThat(rig.fetch.store.ranges()).isEmpty();
    assertThat(disk.kept()).isEmpty();
  }

  @Test
  void aRangeLargerThanAPartIsFetchedInPartsAndKeptInPiecesCutFromItsStart() throws IOException {
    byte[] data = ScriptedStore.bytes(3 * MIB);
    ScriptedTier disk = new ScriptedTier("disk", data, Piece.Origin.DISK);
    stream(data, MIB, disk); // the rig's kept piece is its block: 1 MiB
    int len = 3 * MIB / 2;

    byte[] got = read(1000, len);

    assertThat(got).isEqualTo(rig.data(1000, 1000 + len));
    // the requests do not follow the pieces: as many parts as the whole range needs
    assertThat(rig.fetch.store.ranges()).containsExactlyInAnyOrder(Rig.get(1000, 1000 + len / 2),
        Rig.get(1000 + len / 2, 1000 + len));
    assertThat(disk.kept()).containsExactlyInAnyOrder(Piece.range(1000, MIB), Piece.range(1000 + MIB, len - MIB));
  }

  /**
   * What the shared tier lost on a loaded Spark cluster: a row group one executor had fetched in pieces (its
   * columns predicted) was looked up whole by the executor that read the file next time, and missed.
   */
  @Test
  void aRangeFetchedInPiecesBeforeIsFoundWholeWithNoRequest() throws IOException {
    byte[] data = ScriptedStore.bytes(3 * MIB);
    ScriptedTier shared = new ScriptedTier("shared", data, Piece.Origin.SHARED)
        .holding(Piece.range(1000, MIB), Piece.range(1000 + MIB, MIB / 2));
    stream(data, MIB, shared);

    byte[] got = read(1000, 3 * MIB / 2);

    assertThat(got).isEqualTo(rig.data(1000, 1000 + 3 * MIB / 2));
    assertThat(rig.fetch.store.ranges()).isEmpty();
    assertThat(shared.kept()).isEmpty();
  }

  @Test
  void onlyThePiecesNoTierKeptAreFetchedAndKept() throws IOException {
    byte[] data = ScriptedStore.bytes(4 * MIB);
    ScriptedTier shared = new ScriptedTier("shared", data, Piece.Origin.SHARED)
        .holding(Piece.range(1000 + MIB, MIB));
    stream(data, MIB, shared);

    byte[] got = read(1000, 3 * MIB);

    assertThat(got).isEqualTo(rig.data(1000, 1000 + 3 * MIB));
    assertThat(rig.fetch.store.ranges()).containsExactlyInAnyOrder(Rig.get(1000, 1000 + MIB),
        Rig.get(1000 + 2 * MIB, 1000 + 3 * MIB));
    assertThat(shared.kept()).containsExactlyInAnyOrder(Piece.range(1000, MIB), Piece.range(1000 + 2 * MIB, MIB));
  }

  /**
   * A run of small pieces held ahead (below half a G1 region each) costs the GETs of one range of their
   * length, not one GET a piece; each piece is kept, and found again, under its own name.
   */
  @Test
  void aRunOfPiecesIsFetchedInThePartsOfOneRangeAndKeptPieceByPiece() throws Exception {
    byte[] data = ScriptedStore.bytes(3 * MIB);
    ScriptedTier disk = new ScriptedTier("disk", data, Piece.Origin.DISK)
        .holding(Piece.range(1000 + 2 * BLOCK, BLOCK));
    stream(data, BLOCK, disk); // the rig's kept piece is its block: 256 KiB
    List<byte[]> pieces = List.of(new byte[BLOCK], new byte[BLOCK], new byte[BLOCK], new byte[BLOCK],
        new byte[BLOCK], new byte[BLOCK / 2]);
    int len = 5 * BLOCK + BLOCK / 2;

    rig.ranges.range(1000, Destination.pieces(pieces, BLOCK), len, Purpose.ROW_GROUP_AHEAD).done().get();

    for (int i = 0; i < pieces.size(); i++) {
      long from = 1000 + (long) i * BLOCK;
      assertThat(pieces.get(i)).as("piece " + i).isEqualTo(rig.data(from, Math.min(1000 + len, from + BLOCK)));
    }
    // pieces 0-1 in one GET; piece 2 from the disk; pieces 3-5 (640 KiB) in one GET: not a GET a piece
    assertThat(rig.fetch.store.ranges()).containsExactlyInAnyOrder(Rig.get(1000, 1000 + 2 * BLOCK),
        Rig.get(1000 + 3 * BLOCK, 1000 + len));
    assertThat(disk.kept()).containsExactlyInAnyOrder(Piece.range(1000, BLOCK), Piece.range(1000 + BLOCK, BLOCK),
        Piece.range(1000 + 3 * BLOCK, BLOCK), Piece.range(1000 + 4 * BLOCK, BLOCK),
        Piece.range(1000 + 5 * BLOCK, BLOCK / 2));
  }

  @Test
  void aSpanFilledWithKeepingComesFromTheTierThatKeptItWithNoRequest() throws IOException {
    byte[] data = ScriptedStore.bytes(MIB);
    ScriptedTier disk = new ScriptedTier("disk", data, Piece.Origin.DISK).holding(Piece.range(900_000, 100_000));
    stream(data, BLOCK, disk);
    Span span = emptySpan(900_000, 100_000);

    rig.ranges.fillExtent(span, true, Purpose.FOOTER);

    assertThat(span.isReady()).isTrue();
    assertThat(bytesOf(span)).isEqualTo(rig.data(900_000, 1_000_000));
    assertThat(rig.fetch.store.ranges()).isEmpty();
    assertThat(disk.asked()).containsExactly("disk fill range 900000+100000");
    assertThat(disk.kept()).isEmpty();
    span.unpin();
    span.releaseOwner();
  }

  @Test
  void aSpanFilledWithKeepingThatNoTierKeptIsFetchedOnceAndOffered() throws IOException {
    byte[] data = ScriptedStore.bytes(MIB);
    ScriptedTier disk = new ScriptedTier("disk", data, Piece.Origin.DISK);
    stream(data, BLOCK, disk);
    Span span = emptySpan(900_000, 100_000);

    rig.ranges.fillExtent(span, true, Purpose.FOOTER);

    assertThat(bytesOf(span)).isEqualTo(rig.data(900_000, 1_000_000));
    assertThat(rig.fetch.store.ranges()).containsExactly(Rig.get(900_000, 1_000_000));
    assertThat(disk.kept()).containsExactly(Piece.range(900_000, 100_000));
    span.unpin();
    span.releaseOwner();
  }

  @Test
  void aSpanFilledWithoutKeepingComesFromS3AloneAndAsksNoTier() throws IOException {
    byte[] data = ScriptedStore.bytes(MIB);
    ScriptedTier disk = new ScriptedTier("disk", data, Piece.Origin.DISK).holding(Piece.range(300_000, 70_000));
    stream(data, BLOCK, disk);
    Span span = emptySpan(300_000, 70_000);

    rig.ranges.fillExtent(span, false, Purpose.READAHEAD);

    assertThat(bytesOf(span)).isEqualTo(rig.data(300_000, 370_000));
    assertThat(rig.fetch.store.ranges()).containsExactly(Rig.get(300_000, 370_000));
    assertThat(disk.asked()).isEmpty();
    assertThat(disk.kept()).isEmpty();
    span.unpin();
    span.releaseOwner();
  }

  private static final Through EXTENDED_BLOCKS_FIRST = new Through(500_000, 1000, true, true,
      Purpose.RANGE, new Through.Extent(400_000, 200_000, true, Purpose.CHUNK));

  @Test
  void aReadThroughWhoseBlocksATierHoldsSendsNothingAndFetchesNoExtent() throws IOException {
    byte[] data = ScriptedStore.bytes(MIB);
    ScriptedTier disk = new ScriptedTier("disk", data, Piece.Origin.DISK).holding(Piece.block(1, BLOCK, BLOCK));
    stream(data, BLOCK, disk);
    byte[] dst = new byte[1000];

    Span span = rig.ranges.readThrough(EXTENDED_BLOCKS_FIRST, dst, 0);

    assertThat(span).isNull();
    assertThat(dst).isEqualTo(rig.data(500_000, 501_000));
    assertThat(rig.fetch.store.ranges()).isEmpty();
    assertThat(disk.kept()).isEmpty();
  }

  @Test
  void aReadThroughThatMissesFetchesItsExtentOnceOffersItAndReturnsItPinned() throws IOException {
    byte[] data = ScriptedStore.bytes(MIB);
    ScriptedTier disk = new ScriptedTier("disk", data, Piece.Origin.DISK);
    stream(data, BLOCK, disk);
    byte[] dst = new byte[1000];

    Span span = rig.ranges.readThrough(EXTENDED_BLOCKS_FIRST, dst, 0);

    assertThat(dst).isEqualTo(rig.data(500_000, 501_000));
    assertThat(span.start()).isEqualTo(400_000);
    assertThat(bytesOf(span)).isEqualTo(rig.data(400_000, 600_000));
    assertThat(rig.fetch.store.ranges()).containsExactly(Rig.get(400_000, 600_000));
    assertThat(disk.asked()).containsExactly(
        "disk read block 1 [" + (500_000 - BLOCK) + ", " + (501_000 - BLOCK) + ")", // the blocks first
        "disk fill range 400000+200000");
    assertThat(disk.kept()).containsExactly(Piece.range(400_000, 200_000));
    span.unpin();
    span.releaseOwner();
  }

  @Test
  void aReadThroughWithMemoryShortForItsExtentReadsItselfAloneInOneRequest() throws IOException {
    byte[] data = ScriptedStore.bytes(MIB);
    stream(data, BLOCK);
    java.util.List<byte[]> taken = new java.util.ArrayList<>();
    for (byte[] b; (b = rig.fetch.pool.tryAcquire(BufferPool.sizeFor(200_000))) != null; ) {
      taken.add(b);
    }
    byte[] dst = new byte[1000];

    Span span = rig.ranges.readThrough(EXTENDED_BLOCKS_FIRST, dst, 0);

    assertThat(span).isNull();
    assertThat(dst).isEqualTo(rig.data(500_000, 501_000));
    assertThat(rig.fetch.store.ranges()).containsExactly(Rig.get(500_000, 501_000));
    taken.forEach(rig.fetch.pool::release);
  }

  @Test
  void anExtentThatDoesNotCoverTheReadIsRefused() {
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> new Through(500, 1000, true, true,
            Purpose.RANGE, new Through.Extent(0, 1000, true, Purpose.CHUNK)))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("does not cover");
  }
}
