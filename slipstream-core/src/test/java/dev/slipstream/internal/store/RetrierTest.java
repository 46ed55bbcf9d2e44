/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.slipstream.Counter;
import dev.slipstream.ReadStatistics;
import dev.slipstream.RetryCause;
import dev.slipstream.internal.fetch.CancelToken;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The retry loop against scripted attempts: no store, no server; waits are recorded, not slept. */
class RetrierTest {
  private final ReadStatistics stats = ReadStatistics.global().child();

  /** Attempts that fail or succeed in the order given. */
  private static final class Script implements Retrier.Attempt<String> {
    private final Deque<Object> outcomes = new ArrayDeque<>();
    int attempts;

    Script then(Object outcome) {
      outcomes.add(outcome);
      return this;
    }

    @Override
    public String run() throws IOException {
      attempts++;
      Object next = outcomes.remove();
      if (next instanceof IOException e) {
        throw e;
      }
      return (String) next;
    }
  }

  /** A stop that never stops and records each wait instead of sleeping. */
  private static class RecordingStop implements Retrier.Stop {
    final List<Long> waits = new ArrayList<>();

    @Override
    public void sleep(long millis, TransientStoreException retrying) {
      waits.add(millis);
    }
  }

  private static TransientStoreException transientFailure(RetryCause cause, String message) {
    return new TransientStoreException(cause, message, null);
  }

  @Test
  void transientFailuresThenSuccessReturnTheResultAfterBackoffWaits() throws IOException {
    Backoff backoff = new Backoff(3, 10, 15);
    Script script = new Script().then(transientFailure(RetryCause.CONNECTION_RESET, "reset"))
        .then(transientFailure(RetryCause.SERVER_ERROR, "500")).then("ok");
    RecordingStop stop = new RecordingStop();

    String result = new Retrier(backoff).run(() -> "on s3://b/k", stats, stop, script);

    assertThat(result).isEqualTo("ok");
    assertThat(script.attempts).isEqualTo(3);
    assertThat(stop.waits).hasSize(2);
    assertThat(stop.waits.get(0)).isBetween(0L, 10L); // retry 1: up to base
    assertThat(stop.waits.get(1)).isBetween(0L, 15L); // retry 2: up to 2 * base, capped
  }

  @Test
  void transientFailuresBeyondRetryMaxGiveUpNamingOperationLocationAndAttempts() {
    TransientStoreException last = transientFailure(RetryCause.THROTTLED, "503 SlowDown (third)");
    Script script = new Script().then(transientFailure(RetryCause.THROTTLED, "503 SlowDown (first)"))
        .then(transientFailure(RetryCause.THROTTLED, "503 SlowDown (second)")).then(last).then("never reached");
    RecordingStop stop = new RecordingStop();

    assertThatThrownBy(() -> new Retrier(new Backoff(2, 1, 1)).run(() -> "on HEAD s3://b/k", stats, stop, script))
        .isExactlyInstanceOf(IOException.class)
        .hasMessage("giving up on HEAD s3://b/k after 3 attempts: 503 SlowDown (third)")
        .hasCause(last);
    assertThat(script.attempts).isEqualTo(3);
    assertThat(stop.waits).hasSize(2);
  }

  @Test
  void retryMaxZeroMeansOneAttempt() {
    Script script = new Script().then(transientFailure(RetryCause.TIMEOUT, "timed out")).then("never reached");

    assertThatThrownBy(() -> new Retrier(new Backoff(0, 1, 1)).run(() -> "listing s3://b/p", stats,
        new RecordingStop(), script)).hasMessage("giving up listing s3://b/p after 1 attempts: timed out");
    assertThat(script.attempts).isEqualTo(1);
    assertThat(stats.get(Counter.RETRIES)).isZero();
  }

  @Test
  void permanentFailureSurfacesAtOnceUnchanged() {
    FileNotFoundException notFound = new FileNotFoundException("s3://b/k: no such key");
    Script script = new Script().then(notFound).then("never reached");
    RecordingStop stop = new RecordingStop();

    assertThatThrownBy(() -> new Retrier(new Backoff(5, 1, 1)).run(() -> "on s3://b/k", stats, stop, script))
        .isSameAs(notFound);
    assertThat(script.attempts).isEqualTo(1);
    assertThat(stop.waits).isEmpty();
    assertThat(stats.get(Counter.RETRIES)).isZero();
  }

  @Test
  void retriesAreCountedByCause() throws IOException {
    Script script = new Script().then(transientFailure(RetryCause.CONNECTION_RESET, "reset"))
        .then(transientFailure(RetryCause.THROTTLED, "503")).then(transientFailure(RetryCause.THROTTLED, "503"))
        .then("ok");

    new Retrier(new Backoff(7, 1, 1)).run(() -> "on s3://b/k", stats, new RecordingStop(), script);

    assertThat(stats.get(Counter.RETRIES)).isEqualTo(3);
    assertThat(stats.retries(RetryCause.CONNECTION_RESET)).isEqualTo(1);
    assertThat(stats.retries(RetryCause.THROTTLED)).isEqualTo(2);
    assertThat(stats.retriesByCause().values().stream().mapToLong(Long::longValue).sum()).isEqualTo(3);
  }

  @Test
  void failureOfAStoppedOperationEndsItWithTheStopsError() {
    IOException closed = new IOException("the Slipstream client is closed");
    Script script = new Script().then(transientFailure(RetryCause.CONNECTION_RESET, "reset")).then("never reached");
    RecordingStop stop = new RecordingStop() {
      @Override
      public IOException stopped(IOException failure) {
        return closed;
      }
    };

    assertThatThrownBy(() -> new Retrier(new Backoff(5, 1, 1)).run(() -> "on s3://b/k", stats, stop, script))
        .isSameAs(closed);
    assertThat(script.attempts).isEqualTo(1);
    assertThat(stop.waits).isEmpty();
    assertThat(stats.get(Counter.RETRIES)).isZero();
  }

  @Test
  @Timeout(60) // a deadline that turns a missed cancel (a ten-minute wait) into a failure, not a speed check
  void cancelDuringBackoffEndsTheWaitPromptlyWithTheTokensError() throws Exception {
    CancelToken token = new CancelToken(() -> new IOException("stream closed: s3://b/k"));
    CountDownLatch failed = new CountDownLatch(1);
    Retrier.Attempt<String> attempt = () -> {
      failed.countDown();
      throw transientFailure(RetryCause.SERVER_ERROR, "500");
    };
    Thread canceller = new Thread(() -> {
      try {
        if (failed.await(10, TimeUnit.SECONDS)) {
          Thread.sleep(50); // into the wait
          token.cancel();
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    });
    canceller.start();

    // Waits of up to ten minutes each: only the cancel ends the call before the test's deadline.
    assertThatThrownBy(() -> new Retrier(new Backoff(3, 600_000, 600_000)).run(() -> "on s3://b/k", stats, token,
        attempt)).isExactlyInstanceOf(IOException.class).hasMessage("stream closed: s3://b/k");
    canceller.join();
  }
}
