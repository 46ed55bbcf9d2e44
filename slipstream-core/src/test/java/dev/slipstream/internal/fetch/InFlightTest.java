/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.fetch;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import org.junit.jupiter.api.Test;

/** What a closing owner cancels and waits for: every request in flight, until each has ended or the wait is over. */
class InFlightTest {
  private static CancelToken token() {
    return new CancelToken(() -> new IOException("closed"));
  }

  @Test
  void everyRequestIsCancelledAndTheWaitEndsOnceTheyHaveEnded() throws Exception {
    InFlight inFlight = new InFlight();
    CancelToken a = token();
    CancelToken b = token();
    inFlight.add(a);
    inFlight.add(b);
    Thread ending = new Thread(() -> { // each request ends once it sees its cancel
      while (!a.isCancelled() || !b.isCancelled()) {
        Thread.onSpinWait();
      }
      inFlight.remove(a);
      inFlight.remove(b);
    });
    ending.start();

    assertThat(inFlight.cancelAndAwait(10_000)).isTrue();
    assertThat(inFlight.size()).isZero();
    ending.join();
  }

  @Test
  void aRequestThatDoesNotEndIsCancelledAndLeftOnceTheWaitIsOver() {
    InFlight inFlight = new InFlight();
    CancelToken stuck = token();
    inFlight.add(stuck);

    assertThat(inFlight.cancelAndAwait(20)).isFalse();
    assertThat(stuck.isCancelled()).isTrue();
    assertThat(inFlight.size()).isEqualTo(1);
  }

  @Test
  void aZeroWaitStillCancels() {
    InFlight inFlight = new InFlight();
    CancelToken t = token();
    inFlight.add(t);

    inFlight.cancelAndAwait(0);

    assertThat(t.isCancelled()).isTrue();
  }
}
