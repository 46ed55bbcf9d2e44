/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.read;

import static org.assertj.core.api.Assertions.assertThat;

import dev.slipstream.internal.ahead.AheadFetch;
import dev.slipstream.internal.block.Span;
import dev.slipstream.internal.fetch.FetchRig;
import dev.slipstream.internal.fetch.Purpose;
import dev.slipstream.internal.source.RangeThrough;
import dev.slipstream.internal.store.ScriptedStore;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * What a stream fetches ahead of its reads (predicted Parquet columns, ORC stripe footers, the next ORC
 * stripes' streams) is a guess: it queues behind every read a caller of any stream waits for, until a read
 * of its own stream claims it; then it goes ahead of every prefetch. Two streams of one object share one
 * fetch layer, whose executor's one thread is held while the work is queued: the order in which the GETs
 * then reach the store says which went first, not timing.
 */
@Timeout(30)
class AheadFetchPromotionTest {
  private static final int MIB = 1 << 20;
  /** A wave of four parts of {@link RangeThrough#PART}, as a stripe's streams fetched ahead come. */
  private static final int WAVE = 4 * RangeThrough.PART;

  private final FetchRig fetch = new FetchRig(new ScriptedStore(ScriptedStore.bytes(12 * MIB), FetchRig.ETAG), MIB,
      1, 64L * MIB);
  private final StreamRig ahead = new StreamRig(fetch, 4);
  private final StreamRig other = new StreamRig(fetch, 4);
  private final CountDownLatch release = new CountDownLatch(1);
  private CompletableFuture<Void> busy;

  @AfterEach
  void close() {
    release.countDown();
    ahead.closeStream();
    other.closeStream();
    fetch.close();
  }

  /** Holds the executor's one thread until {@link #release}: everything submitted meanwhile waits in its queue. */
  private void holdTheFetchThread() throws InterruptedException {
    CountDownLatch running = new CountDownLatch(1);
    busy = fetch.fetcher.submitRead(true, FetchRig.token(Purpose.RANGE), () -> {
      running.countDown();
      try {
        release.await(10, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }, () -> { });
    assertThat(running.await(10, TimeUnit.SECONDS)).isTrue();
  }

  /** Starts {@code stream}'s fetch ahead of {@code [start, start + WAVE)} for {@code why}, in pieces of a MiB. */
  private List<Span> wave(StreamRig stream, Purpose why, long start) {
    AheadFetch fetchAhead = AheadFetch.of(stream.ranges, why, stream.spans, fetch.pool, stream.requests,
        stream.h.stats());
    List<byte[]> buffers = new ArrayList<>();
    for (int i = 0; i < WAVE / MIB; i++) {
      buffers.add(fetchAhead.buffer(MIB));
    }
    return fetchAhead.start(start, buffers, WAVE, MIB, b -> { }, s -> copied -> { }, false);
  }

  /** The GETs of {@code [start, start + len)} in parts of {@link RangeThrough#PART}, as the store names them. */
  private static List<String> parts(long start, int len) {
    List<String> parts = new ArrayList<>();
    for (long p = start; p < start + len; p += RangeThrough.PART) {
      parts.add(StreamRig.get(p, Math.min(start + len, p + RangeThrough.PART)));
    }
    return parts;
  }

  /** The GETs in the order they reached the store, once everything queued has run. */
  private List<String> sent(List<CompletableFuture<Void>> all) throws Exception {
    release.countDown();
    busy.get(10, TimeUnit.SECONDS);
    CompletableFuture.allOf(all.toArray(CompletableFuture[]::new)).get(10, TimeUnit.SECONDS);
    return fetch.store.ranges();
  }

  /**
   * The GETs in the order they reached the store, once {@code count} have: waiting for a wave through its
   * spans would claim it, and so promote it.
   */
  private List<String> sent(int count) throws Exception {
    release.countDown();
    busy.get(10, TimeUnit.SECONDS);
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (fetch.store.ranges().size() < count && System.nanoTime() < deadline) {
      Thread.sleep(5);
    }
    return fetch.store.ranges();
  }

  private static void sentBefore(List<String> order, List<String> first, List<String> then) {
    assertThat(order).containsAll(first).containsAll(then);
    int lastOfFirst = first.stream().mapToInt(order::indexOf).max().orElseThrow();
    int firstOfThen = then.stream().mapToInt(order::indexOf).min().orElseThrow();
    assertThat(lastOfFirst).as("GETs in the order sent: %s", order).isLessThan(firstOfThen);
  }

  @ParameterizedTest
  @EnumSource(value = Purpose.class, names = {"PREDICTED_COLUMN", "STRIPE_FOOTER", "STRIPE_AHEAD"})
  void aWaveFetchedAheadQueuesBehindAnotherStreamsReadACallerWaitsFor(Purpose why) throws Exception {
    holdTheFetchThread();
    List<Span> wave = wave(ahead, why, 0);
    assertThat(wave).hasSize(WAVE / MIB);
    // Then a read of the other stream that its caller waits for: a vectored range of bytes it does not hold.
    long at = 8L * MIB;
    byte[] dst = new byte[64 * 1024];
    CompletableFuture<Void> read = other.vectored.read(at, dst, 0, dst.length);

    List<String> order = sent(List.of(read, ahead.spans.pending(0, WAVE)));
    sentBefore(order, List.of(StreamRig.get(at, at + dst.length)), parts(0, WAVE));
    assertThat(dst).isEqualTo(fetch.data(at, at + dst.length));
  }

  /**
   * A guess is split when it starts, as the threads allow: while another fetch waits for a thread (here the
   * one thread is its own), one GET; the last, with nothing queued behind it, in parts of {@link
   * RangeThrough#PART} for the threads that come free. Each byte once, and each where it belongs.
   */
  @Test
  void aWaveStartedWhileFetchesQueueIsOneGetAndTheLastInParts() throws Exception {
    holdTheFetchThread();
    wave(ahead, Purpose.PREDICTED_COLUMN, 0);
    wave(other, Purpose.PREDICTED_COLUMN, 6L * MIB); // another stream's: each stream's budget holds one wave

    List<String> order = sent(1 + WAVE / RangeThrough.PART);
    List<String> expected = new ArrayList<>(List.of(StreamRig.get(0, WAVE)));
    expected.addAll(parts(6L * MIB, WAVE));
    assertThat(order).isEqualTo(expected);
    for (StreamRig stream : List.of(ahead, other)) {
      long at = stream == ahead ? 0 : 6L * MIB;
      byte[] dst = new byte[WAVE];
      stream.vectored.read(at, dst, 0, dst.length).get(10, TimeUnit.SECONDS);
      assertThat(dst).isEqualTo(fetch.data(at, at + WAVE));
    }
    assertThat(fetch.store.ranges()).as("the reads copied the waves, fetching nothing").isEqualTo(expected);
  }

  @Test
  void aWaveAReadClaimsGoesAheadOfEveryPrefetch() throws Exception {
    holdTheFetchThread();
    wave(other, Purpose.STRIPE_AHEAD, 0); // another stream's guess, queued first
    wave(ahead, Purpose.STRIPE_AHEAD, 6L * MIB);
    // A read of the second wave's bytes: it waits for the wave, which is no guess any more.
    byte[] dst = new byte[2 * MIB];
    long at = 6L * MIB + MIB / 2;
    CompletableFuture<Void> read = ahead.vectored.read(at, dst, 0, dst.length);

    List<String> order = sent(2 * WAVE / RangeThrough.PART); // the other wave not claimed: behind, as it was
    read.get(10, TimeUnit.SECONDS);
    sentBefore(order, parts(6L * MIB, WAVE), parts(0, WAVE));
    assertThat(dst).isEqualTo(fetch.data(at, at + dst.length));
    assertThat(fetch.store.ranges()).as("the read copied the wave, fetching nothing itself").hasSize(2 * WAVE / RangeThrough.PART);
  }
}
