/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.fetch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.slipstream.Counter;
import dev.slipstream.ReadStatistics;
import dev.slipstream.RetryCause;
import dev.slipstream.SlipstreamConfig;
import dev.slipstream.internal.store.ScriptedStore;
import dev.slipstream.internal.store.ScriptedStore.Answer;
import dev.slipstream.internal.store.ScriptedStore.Get;
import dev.slipstream.internal.store.ScriptedStore.Response;
import dev.slipstream.internal.store.TransientStoreException;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.Arrays;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Hedged GETs, through the range reader, against a scripted store: a GET whose response head does not
 * come is answered by a second one, whose bytes are read, and the first is aborted when it comes. No
 * assertion on time: a GET that must be late waits on a latch the test opens; each test has an endpoint
 * of its own, so the first-byte latencies it learns are its own.
 */
class HedgingTest {
  private static final byte[] DATA = ScriptedStore.bytes(1000);
  /** Long enough never to matter, for a response the test has released: only a hang would reach it. */
  private static final long PATIENCE_SECONDS = 30;

  private final ScriptedStore store = new ScriptedStore(DATA, "v1");
  private final RangeReaderRig rig = new RangeReaderRig(store, hedging("50%"));
  private final ReadStatistics stats = rig.stats;

  @AfterEach
  void closeReader() {
    rig.close();
  }

  /** Hedging that waits at least nothing (twice the p95 learnt decides), on an endpoint of this test's own. */
  private static UnaryOperator<SlipstreamConfig.Builder> hedging(String budget) {
    return c -> c.set("endpoint", "http://hedging-" + UUID.randomUUID() + ".test:9000")
        .set("hedge.delay.min", "0ms").set("hedge.budget", budget);
  }

  /** Waits for {@code latch} inside a scripted answer, as a server that has not answered yet. */
  private static void await(CountDownLatch latch) {
    try {
      if (!latch.await(PATIENCE_SECONDS, TimeUnit.SECONDS)) {
        throw new IllegalStateException("the test never released this answer");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /** Checks that {@code r}, once released, is ended by an abort, not a byte of it read: dropped, never drained. */
  private static void assertAbortedUnread(Response r) throws InterruptedException {
    assertThat(r.awaitEnd(PATIENCE_SECONDS, TimeUnit.SECONDS)).as("the response is ended").isTrue();
    assertThat(r.aborted()).as("aborted, never drained").isTrue();
    assertThat(r.bytesRead()).isZero();
  }

  /**
   * GETs that answer at once, enough of them for the endpoint's delay to be learnt ({@link
   * Hedging#MIN_SAMPLES}): from then on a GET with no response head is hedged after twice their p95,
   * not after the initial second. Their requests are then forgotten.
   */
  private void learnFirstBytes() throws IOException {
    ObjectHandle warm = new ObjectHandle(RangeReaderRig.WHERE, DATA.length, false, "\"v1\"",
        ReadStatistics.global().child());
    for (int i = 0; i < Hedging.MIN_SAMPLES; i++) {
      store.then(store.whole());
      rig.reader.read(warm, 0, 10, new byte[10], 0, new CancelToken(() -> new IOException("closed")));
    }
    store.forget();
  }

  @Test
  void aGetWithNoResponseGetsASecondOneWhoseBytesAreUsedAndTheFirstIsAbortedWhenItComes() throws Exception {
    learnFirstBytes();
    CountDownLatch release = new CountDownLatch(1);
    Response late = store.response(100, 600, new byte[500]); // not the object's bytes: they must never be read
    store.then((start, end) -> {
      await(release);
      return late;
    }).then(store.whole());

    byte[] got = rig.read(100, 600);

    assertThat(got).isEqualTo(Arrays.copyOfRange(DATA, 100, 600));
    assertThat(store.ranges()).containsExactly("100-600", "100-600");
    assertThat(stats.get(Counter.GET_REQUESTS)).isEqualTo(2);
    assertThat(stats.get(Counter.HEDGED_REQUESTS)).isEqualTo(1);
    assertThat(stats.get(Counter.HEDGE_WINS)).isEqualTo(1);
    assertThat(store.responses()).singleElement().satisfies(hedge -> assertThat(hedge.closed()).isTrue());

    release.countDown();
    assertAbortedUnread(late);
    assertThat(late.closed()).isFalse();
  }

  @Test
  void theFirstResponseIsReadWhenItComesBeforeTheHedgesAndTheHedgeIsAborted() throws Exception {
    learnFirstBytes();
    CountDownLatch hedgeSent = new CountDownLatch(1);
    CountDownLatch releaseHedge = new CountDownLatch(1);
    Response hedge = store.response(100, 600, new byte[500]);
    store.then((start, end) -> {
      await(hedgeSent); // the first answers only once the hedge is on its way
      return store.whole().to(start, end);
    }).then((start, end) -> {
      hedgeSent.countDown();
      await(releaseHedge);
      return hedge;
    });

    byte[] got = rig.read(100, 600);

    assertThat(got).isEqualTo(Arrays.copyOfRange(DATA, 100, 600));
    assertThat(store.ranges()).containsExactly("100-600", "100-600");
    assertThat(stats.get(Counter.HEDGED_REQUESTS)).isEqualTo(1);
    assertThat(stats.get(Counter.HEDGE_WINS)).isZero();

    releaseHedge.countDown();
    assertAbortedUnread(hedge);
  }

  @Test
  void aHedgeThatFailsLeavesTheGetToTheFirstResponseWithNoRetry() throws Exception {
    learnFirstBytes();
    CountDownLatch hedgeFailed = new CountDownLatch(1);
    store.then((start, end) -> {
      await(hedgeFailed);
      return store.whole().to(start, end);
    }).then((start, end) -> {
      hedgeFailed.countDown();
      throw new TransientStoreException(RetryCause.SERVER_ERROR, "503 from the hedge", null);
    });

    byte[] got = rig.read(100, 600);

    assertThat(got).isEqualTo(Arrays.copyOfRange(DATA, 100, 600));
    assertThat(store.ranges()).containsExactly("100-600", "100-600");
    assertThat(stats.get(Counter.RETRIES)).isZero();
    assertThat(stats.get(Counter.HEDGE_WINS)).isZero();
  }

  /**
   * Scripts the next two GETs of bytes 0-10 (the second, should a hedge be sent) to count {@code asked} down
   * and answer only once {@code release} opens; returns the response they answer with.
   */
  private Response heldAnswers(CountDownLatch asked, CountDownLatch release) {
    Response late = store.response(0, 10, store.data(0, 10));
    Answer held = (start, end) -> {
      asked.countDown();
      await(release);
      return late;
    };
    store.then(held).then(held);
    return late;
  }

  @Test
  void aCancelledWaitEndsWithTheTokensErrorAndTheResponseIsAbortedWhenItComes() throws Exception {
    CountDownLatch asked = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    Response late = heldAnswers(asked, release);
    Thread closer = new Thread(() -> {
      await(asked);
      rig.token.cancel();
    });
    closer.start();

    assertThatThrownBy(() -> rig.read(0, 10)).isExactlyInstanceOf(IOException.class).hasMessage("closed: s3://b/k");
    assertThat(store.ranges()).first().isEqualTo("0-10");

    release.countDown();
    assertAbortedUnread(late);
    closer.join();
  }

  @Test
  void anInterruptedWaitEndsWithInterruptedIoExceptionAndTheResponseIsAbortedWhenItComes() throws Exception {
    CountDownLatch asked = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    Response late = heldAnswers(asked, release);
    AtomicReference<Throwable> thrown = new AtomicReference<>();
    AtomicBoolean stillInterrupted = new AtomicBoolean();
    Thread reader = new Thread(() -> {
      try {
        rig.read(0, 10);
      } catch (Throwable t) {
        thrown.set(t);
        stillInterrupted.set(Thread.currentThread().isInterrupted());
      }
    });
    reader.start();
    await(asked);
    reader.interrupt();
    reader.join(TimeUnit.SECONDS.toMillis(PATIENCE_SECONDS));

    assertThat(reader.isAlive()).as("the wait ended").isFalse();
    assertThat(thrown.get()).isInstanceOf(InterruptedIOException.class);
    assertThat(stillInterrupted).as("the interrupt status is kept").isTrue();

    release.countDown();
    assertAbortedUnread(late);
  }

  @Test
  void withNoBudgetTheGetIsMadeOnTheCallingThreadAndNeverHedged() throws IOException {
    try (RangeReaderRig plain = new RangeReaderRig(store, hedging("0"))) {
      store.then(store.whole());

      byte[] got = plain.read(100, 600);

      assertThat(got).isEqualTo(Arrays.copyOfRange(DATA, 100, 600));
      assertThat(store.ranges()).containsExactly("100-600");
      assertThat(store.gets()).extracting(Get::thread).containsExactly(Thread.currentThread());
      assertThat(plain.stats.get(Counter.HEDGED_REQUESTS)).isZero();
    }
  }
}
