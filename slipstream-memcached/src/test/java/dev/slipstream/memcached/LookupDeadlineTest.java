/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.memcached;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The wait a lookup is given: fitted to the pool's recent answers, its timeouts among them. */
class LookupDeadlineTest {
  private static final long MAX = TimeUnit.MILLISECONDS.toNanos(200);
  private static final long MS = TimeUnit.MILLISECONDS.toNanos(1);

  @Test
  void theWholeTimeoutUntilEnoughLookupsAnsweredThenThreeTimesTheirP99AtLeastTheFloor() {
    LookupDeadline d = new LookupDeadline(MAX, true);
    for (int i = 0; i < LookupDeadline.MIN_SAMPLES - 1; i++) {
      d.answered(MS);
      assertThat(d.nanos()).isEqualTo(MAX);
    }
    d.answered(MS);
    assertThat(d.nanos()).isEqualTo(LookupDeadline.FLOOR_MILLIS * MS);
    for (int i = 0; i < LookupDeadline.WINDOW; i++) {
      d.answered(10 * MS);
    }
    assertThat(d.nanos()).isEqualTo(30 * MS);
  }

  /** A host got busy: lookups that took longer than the deadline fitted to its quiet moments. */
  @Test
  void lookupsThatTimedOutRaiseTheDeadlineUntilItCoversThemAgain() {
    LookupDeadline d = new LookupDeadline(MAX, true);
    for (int i = 0; i < LookupDeadline.MIN_SAMPLES; i++) {
      d.answered(MS);
    }
    long quiet = d.nanos();
    assertThat(quiet).isEqualTo(LookupDeadline.FLOOR_MILLIS * MS);
    for (int i = 0; i < 16; i++) {
      d.timedOut(d.nanos());
    }
    assertThat(d.nanos()).as("three times the wait the timed-out lookups had").isEqualTo(3 * quiet);
    for (int i = 0; i < 64; i++) {
      d.timedOut(d.nanos());
    }
    assertThat(d.nanos()).as("never above shared.timeout").isEqualTo(MAX);
  }

  @Test
  void notAdaptiveEveryLookupWaitsTheWholeTimeout() {
    LookupDeadline d = new LookupDeadline(MAX, false);
    for (int i = 0; i < 2 * LookupDeadline.WINDOW; i++) {
      d.answered(MS);
    }
    assertThat(d.nanos()).isEqualTo(MAX);
  }
}
