/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.source;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.slipstream.Counter;
import dev.slipstream.SlipstreamConfig;
import dev.slipstream.internal.block.Block;
import dev.slipstream.internal.cache.DiskCache;
import dev.slipstream.internal.fetch.FetchRig;
import dev.slipstream.internal.fetch.ObjectHandle;
import dev.slipstream.internal.store.ScriptedStore;
import dev.slipstream.internal.util.ETag;
import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The disk cache as a tier, over a scripted store: what it serves, under which names, and the one
 * request it makes, the access check of an open S3 has not answered yet.
 */
class DiskTierTest {
  private static final int BLOCK = 8 * 1024;

  private final FetchRig rig = new FetchRig(4 * BLOCK, BLOCK, 2);
  @TempDir
  Path dir;
  private DiskCache cache;

  @BeforeEach
  void openCache() {
    cache = DiskCache.open(SlipstreamConfig.builder().set("cache.disk.dir", dir.toString())
        .set("cache.disk.min.free", "0").build());
  }

  @AfterEach
  void close() {
    cache.awaitIdle(5000);
    rig.close();
  }

  /** The tier as {@code cache.disk.mode=seek} makes it. */
  private DiskTier tier(ObjectHandle h) {
    return new DiskTier(cache, h, BLOCK, rig.pool, () -> rig.fetcher.accessGate(h), false);
  }

  /** The tier as {@code cache.disk.mode=all} makes it: every range written at its first fetch. */
  private DiskTier everyRange(ObjectHandle h) {
    return new DiskTier(cache, h, BLOCK, rig.pool, () -> rig.fetcher.accessGate(h), true);
  }

  /** Offers {@code tier} the range {@code [start, start + len)}, fetched, and waits for the writes. */
  private void keep(DiskTier tier, long start, int len) {
    var span = rig.filledSpan(start, len);
    tier.keep(Piece.range(start, len), span);
    span.releaseOwner();
    assertThat(cache.awaitIdle(5000)).isTrue();
  }

  /** Offers {@code tier} block {@code index}, filled, and waits for the writes. */
  private void keepBlock(DiskTier tier, long index) {
    Block b = rig.filledBlock(index);
    tier.keep(block(index), b);
    b.releaseOwner();
    assertThat(cache.awaitIdle(5000)).isTrue();
  }

  /** Whether a new open of the same version finds the range on disk. */
  private boolean onDisk(long start, int len) throws IOException {
    return tier(rig.answered()).read(Piece.range(start, len), 0, new byte[len], 0, len);
  }

  /** Writes block {@code index} of {@code h}'s version to the cache, as an earlier stream would have. */
  private void cached(ObjectHandle h, long index) {
    Piece p = block(index);
    assertThat(cache.write(DiskTier.name(h, BLOCK, p), rig.data(p.start(), p.start() + p.length()), p.length(),
        h.stats())).isTrue();
  }

  private static Piece block(long index) {
    return Piece.block(index, index * BLOCK, BLOCK);
  }

  @Test
  void aCachedBlockIsServedWithNoRequestOnceS3AnsweredTheOpen() throws IOException {
    ObjectHandle h = rig.answered();
    cached(h, 2);
    byte[] buffer = new byte[BLOCK];

    assertThat(tier(h).readBlock(block(2), buffer)).isTrue();

    assertThat(buffer).isEqualTo(rig.data(2 * BLOCK, 3 * BLOCK));
    assertThat(rig.store.ranges()).isEmpty();
    assertThat(h.stats().get(Counter.DISK_CACHE_HITS)).isEqualTo(1);
    assertThat(tier(h).origin()).isEqualTo(Piece.Origin.DISK);
  }

  @Test
  void aHitBeforeS3AnsweredWaitsForOneConditionalOneByteGet() throws IOException {
    ObjectHandle h = rig.open();
    cached(h, 1);
    byte[] dst = new byte[100];

    assertThat(tier(h).read(block(1), 50, dst, 0, 100)).isTrue();
    assertThat(tier(h).read(block(1), 150, new byte[10], 0, 10)).isTrue();

    assertThat(dst).isEqualTo(rig.data(BLOCK + 50, BLOCK + 150));
    assertThat(rig.store.ranges()).containsExactly("0-1"); // one access check for the open, not one per hit
    assertThat(rig.store.gets().get(0).ifMatch()).isEqualTo(ETag.parse("v1"));
  }

  @Test
  void s3sRefusalOfTheOpenFailsTheReadAndLeavesTheCallersArrayAsItWas() {
    rig.store.then(ScriptedStore.fail(new AccessDeniedException("s3://b/k")));
    ObjectHandle h = rig.open();
    cached(h, 1);
    byte[] dst = new byte[100];

    assertThatThrownBy(() -> tier(h).read(block(1), 0, dst, 0, 100)).isInstanceOf(AccessDeniedException.class);

    assertThat(dst).containsOnly(0);
    assertThat(rig.store.ranges()).containsExactly("0-1");
  }

  @Test
  void aMissIsFalseAndAsksNothingOfS3() throws IOException {
    ObjectHandle h = rig.open();

    assertThat(tier(h).read(block(3), 0, new byte[10], 0, 10)).isFalse();
    assertThat(tier(h).readBlock(block(3), new byte[BLOCK])).isFalse();

    assertThat(rig.store.ranges()).isEmpty();
    assertThat(h.stats().get(Counter.DISK_CACHE_MISSES)).isEqualTo(2);
  }

  @Test
  void aBlockKeptIsFoundByTheNextOpenOfTheSameVersionOnly() throws IOException {
    ObjectHandle first = rig.answered();
    keepBlock(tier(first), 1);

    ObjectHandle again = rig.answered();
    byte[] buffer = new byte[BLOCK];
    assertThat(tier(again).readBlock(block(1), buffer)).isTrue();
    assertThat(buffer).isEqualTo(rig.data(BLOCK, 2 * BLOCK));

    ObjectHandle otherVersion = new ObjectHandle(FetchRig.WHERE, 4 * BLOCK, true, "\"v2\"", rig.stats.child());
    otherVersion.answered(0);
    assertThat(tier(otherVersion).readBlock(block(1), new byte[BLOCK])).isFalse();
    assertThat(rig.store.ranges()).isEmpty();
  }

  @Test
  void rangesOfAtLeastMinRangeBytesAreKeptAndNothingOfAVersionNotKnown() throws IOException {
    ObjectHandle h = rig.answered();
    DiskTier tier = everyRange(h);
    assertThat(tier.keeps(Piece.range(100, DiskTier.MIN_RANGE - 1))).isFalse();
    assertThat(tier.keeps(Piece.range(100, DiskTier.MIN_RANGE))).isTrue();
    assertThat(tier.keeps(block(0))).isTrue();
    ObjectHandle unknown = new ObjectHandle(FetchRig.WHERE, 4 * BLOCK, true, (String) null, rig.stats.child());
    assertThat(tier(unknown).keeps(block(0))).isFalse();

    var span = rig.filledSpan(100, DiskTier.MIN_RANGE);
    tier.keep(Piece.range(100, DiskTier.MIN_RANGE), span);
    span.releaseOwner();
    assertThat(cache.awaitIdle(5000)).isTrue();
    byte[] dst = new byte[DiskTier.MIN_RANGE];
    assertThat(tier(rig.answered()).read(Piece.range(100, DiskTier.MIN_RANGE), 0, dst, 0, dst.length)).isTrue();
    assertThat(dst).isEqualTo(rig.data(100, 100 + DiskTier.MIN_RANGE));
    assertThat(tier.read(Piece.range(100, DiskTier.MIN_RANGE - 1), 0, dst, 0, 10)).isFalse(); // only that range
    assertThat(rig.store.ranges()).isEmpty();
  }

  @Test
  void inSeekModeAColumnarRangeIsWrittenAtItsSecondFetchAndAFootersTailAtItsFirst() throws IOException {
    ObjectHandle h = rig.answered();
    int len = DiskTier.MIN_RANGE;
    long tail = 4 * BLOCK - len;

    keep(tier(h), 100, len);
    keep(tier(h), tail, len);

    assertThat(onDisk(100, len)).as("a column chunk read once").isFalse();
    assertThat(onDisk(tail, len)).as("the footer's tail").isTrue();
    assertThat(h.stats().get(Counter.DISK_CACHE_RANGES_DEFERRED)).isEqualTo(1);

    ObjectHandle later = rig.answered();
    keep(tier(later), 100, len); // fetched again by a later stream: the memory cache gave it up

    assertThat(onDisk(100, len)).as("a column chunk fetched twice").isTrue();
    assertThat(later.stats().get(Counter.DISK_CACHE_RANGES_DEFERRED)).isZero();
    assertThat(rig.store.ranges()).isEmpty();
  }

  @Test
  void inSeekModeABlockIsWrittenAtItsFirstOffer() throws IOException {
    ObjectHandle h = rig.answered();
    keepBlock(tier(h), 2);

    assertThat(tier(rig.answered()).readBlock(block(2), new byte[BLOCK])).isTrue();
    assertThat(h.stats().get(Counter.DISK_CACHE_RANGES_DEFERRED)).isZero();
  }

  @Test
  void inAllModeEveryRangeIsWrittenAtItsFirstFetch() throws IOException {
    ObjectHandle h = rig.answered();

    keep(everyRange(h), 100, DiskTier.MIN_RANGE);

    assertThat(onDisk(100, DiskTier.MIN_RANGE)).isTrue();
    assertThat(h.stats().get(Counter.DISK_CACHE_RANGES_DEFERRED)).isZero();
  }
}
