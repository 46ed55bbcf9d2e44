/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.read;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.slipstream.Counter;
import dev.slipstream.internal.block.Span;
import dev.slipstream.internal.fetch.FetchRig;
import dev.slipstream.internal.parquet.ParquetTestFiles;
import dev.slipstream.internal.source.Piece;
import dev.slipstream.internal.source.ScriptedTier;
import dev.slipstream.internal.store.ScriptedStore;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Reads about what is asked for, over a scripted store: the one GET each read sends (the tail, a
 * readahead, a column chunk, the read's extent, or exactly the read, in parts when large), the bytes it
 * returns, and what it holds for the reads that follow.
 */
class JumpReadsTest {
  private static final int KIB = 1024;
  private static final int MIB = 1024 * KIB;
  private static final int BLOCK = 256 * KIB;

  private StreamRig rig;

  @AfterEach
  void close() {
    if (rig != null) {
      rig.close();
    }
  }

  /** A stream of {@code length} bytes in blocks of {@code blockSize}, with {@code tiers} before S3. */
  private StreamRig stream(byte[] data, int blockSize, ScriptedTier... tiers) {
    rig = new StreamRig(new FetchRig(new ScriptedStore(data, FetchRig.ETAG), blockSize, 4, 64L * MIB), 4, tiers);
    return rig;
  }

  private byte[] small(long position, int len, boolean streamPath) throws IOException {
    byte[] dst = new byte[len];
    rig.jumps.readRange(position, dst, 0, len, new ReadPlanner.Decision(ReadPlanner.Kind.SMALL_JUMP, 0, false), streamPath);
    return dst;
  }

  /** A columnar range, the tail it fetched (if any) offered to the footer and let go, as {@link ObjectReader} does. */
  private byte[] range(long position, int len, boolean streamPath) throws IOException {
    byte[] dst = new byte[len];
    Span tail = rig.jumps.readRange(position, dst, 0, len, new ReadPlanner.Decision(ReadPlanner.Kind.EXACT, 0, false),
        streamPath);
    if (tail != null) {
      rig.parquet.offerRead(position, dst, 0, len, streamPath, tail);
      tail.unpin();
    }
    return dst;
  }

  @Test
  void aSmallStreamReadAfterAJumpFetchesAReadaheadHeldForTheReadsThatFollow() throws IOException {
    stream(ScriptedStore.bytes(MIB), BLOCK);
    int readahead = Math.min(JumpReads.READAHEAD, BLOCK / 8);

    byte[] got = small(300_000, 100, true);

    assertThat(got).isEqualTo(rig.data(300_000, 300_100));
    assertThat(rig.fetch.store.ranges()).containsExactly(StreamRig.get(300_000, 300_100 + readahead));
    byte[] next = new byte[1000];
    assertThat(rig.spans.copyAll(300_100, next, 0, 1000)).isTrue();
    assertThat(next).isEqualTo(rig.data(300_100, 301_100));
  }

  @Test
  void aSmallPositionalReadFetchesExactlyItsBytesAndHoldsNothing() throws IOException {
    stream(ScriptedStore.bytes(MIB), BLOCK);

    byte[] got = small(300_000, 100, false);

    assertThat(got).isEqualTo(rig.data(300_000, 300_100));
    assertThat(rig.fetch.store.ranges()).containsExactly(StreamRig.get(300_000, 300_100));
    assertThat(rig.spans.copyAll(300_100, new byte[1], 0, 1)).isFalse();
    assertThat(rig.h.stats().get(Counter.DIRECT_READS)).isEqualTo(1);
  }

  @Test
  void aSmallReadTheTiersHoldSendsNothing() throws IOException {
    byte[] data = ScriptedStore.bytes(MIB);
    ScriptedTier disk = new ScriptedTier("disk", data, Piece.Origin.DISK).holding(Piece.block(1, BLOCK, BLOCK));
    stream(data, BLOCK, disk);

    byte[] got = small(BLOCK + 10, 100, true);

    assertThat(got).isEqualTo(rig.data(BLOCK + 10, BLOCK + 110));
    assertThat(rig.fetch.store.ranges()).isEmpty();
  }

  @Test
  void theFirstStreamReadIntoTheTailFetchesTheTailOnceAndHandsItUpForTheFooter() throws IOException {
    byte[] file = ParquetTestFiles.file(2, 4, 100_000, 1000, 0, 7);
    stream(file, BLOCK);
    long length = file.length;
    int tail = JumpReads.tailSize(length, BLOCK);
    byte[] lengthAndMagic = new byte[8];

    Span fetched = rig.jumps.readRange(length - 8, lengthAndMagic, 0, 8,
        new ReadPlanner.Decision(ReadPlanner.Kind.EXACT, 0, false), true);
    byte[] footer = range(length - 100, 50, true);

    assertThat(lengthAndMagic).isEqualTo(rig.data(length - 8, length));
    assertThat(footer).isEqualTo(rig.data(length - 100, length - 50));
    assertThat(rig.fetch.store.ranges()).containsExactly(StreamRig.get(length - tail, length));
    assertThat(fetched.start()).isEqualTo(length - tail);
    assertThat(fetched.isReady()).isTrue();
    assertThat(rig.spans.tail()).isSameAs(fetched);
    assertThat(rig.parquet.footer()).isNull(); // the caller offers the tail, once the read is done
    rig.parquet.offerRead(length - 8, lengthAndMagic, 0, 8, true, fetched);
    fetched.unpin();
    assertThat(rig.parquet.footer()).isNotNull();
  }

  @Test
  void aReadOfADictionaryPageHeaderFetchesItsWholeColumnChunkByThePlan() throws IOException {
    byte[] file = ParquetTestFiles.file(2, 4, 100_000, 1000, 0, 7);
    stream(file, BLOCK);
    long length = file.length;
    range(length - 8, 8, true); // the tail: the footer
    rig.fetch.store.forget();

    byte[] header = range(4, 16, true); // chunk 0 of row group 0 starts at 4, with its dictionary page

    assertThat(header).isEqualTo(rig.data(4, 20));
    assertThat(rig.fetch.store.ranges()).containsExactly(StreamRig.get(4, 100_004));
    assertThat(rig.h.stats().get(Counter.EXTENDED_READS)).isEqualTo(1);
    byte[] pages = range(50_000, 1000, true);
    assertThat(pages).isEqualTo(rig.data(50_000, 51_000));
    assertThat(rig.fetch.store.ranges()).hasSize(1); // the chunk held serves the page reads
  }

  @Test
  void aSmallColumnarRangeWithNoPlanFetchesAtLeastMinGetAndOffersItToTheTiers() throws IOException {
    byte[] data = ScriptedStore.bytes(MIB);
    ScriptedTier disk = new ScriptedTier("disk", data, Piece.Origin.DISK);
    stream(data, BLOCK, disk);

    byte[] got = range(500_000, 1000, false);

    assertThat(got).isEqualTo(rig.data(500_000, 501_000));
    assertThat(rig.fetch.store.ranges()).containsExactly(StreamRig.get(500_000, 500_000 + JumpReads.MIN_GET));
    assertThat(disk.kept()).containsExactly(Piece.range(500_000, JumpReads.MIN_GET));
  }

  @Test
  void anExactRangeATierKeptComesFromItWithNoRequest() throws IOException {
    byte[] data = ScriptedStore.bytes(MIB);
    ScriptedTier disk = new ScriptedTier("disk", data, Piece.Origin.DISK)
        .holding(Piece.range(500_000, 70_000));
    stream(data, BLOCK, disk);

    byte[] got = range(500_000, 70_000, false);

    assertThat(got).isEqualTo(rig.data(500_000, 570_000));
    assertThat(rig.fetch.store.ranges()).isEmpty();
  }

  @Test
  void aRangeLargerThanAPartIsFetchedInEqualParts() throws IOException {
    stream(ScriptedStore.bytes(3 * MIB), MIB);
    int len = 3 * MIB / 2;

    byte[] got = range(1000, len, false);

    assertThat(got).isEqualTo(rig.data(1000, 1000 + len));
    assertThat(rig.fetch.store.ranges()).containsExactlyInAnyOrder(StreamRig.get(1000, 1000 + len / 2),
        StreamRig.get(1000 + len / 2, 1000 + len));
  }

  @Test
  void anInterruptedCallerGetsAnInterruptedIoExceptionAndItsRequestIsCancelled() throws Exception {
    stream(ScriptedStore.bytes(MIB), BLOCK);
    CountDownLatch answer = new CountDownLatch(1);
    rig.fetch.store.then((start, end) -> {
      try {
        answer.await(5, TimeUnit.SECONDS); // a response slow to come
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      return rig.fetch.store.whole().to(start, end);
    });
    try {
      Thread.currentThread().interrupt();

      assertThatThrownBy(() -> small(300_000, 100, false)).isInstanceOf(InterruptedIOException.class)
          .hasMessage("interrupted while reading s3://b/k bytes 300000-300099: the request was cancelled");
      assertThat(Thread.interrupted()).isTrue(); // the interrupt status is kept
    } finally {
      answer.countDown();
    }
    rig.requests.awaitEnd();
    // cancelled before it started, or its response dropped unread: at most the one GET, never a retry
    assertThat(rig.fetch.store.ranges()).isSubsetOf(StreamRig.get(300_000, 300_100)).hasSizeLessThan(2);
  }
}
