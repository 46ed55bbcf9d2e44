/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** A long run says it is still going; a short one says nothing. */
class RunTickerTest {
  @Test
  @Timeout(30)
  void aRunStillGoingPrintsALineEachIntervalWithItsBytesSoFar() throws Exception {
    ByteArrayOutputStream buf = new ByteArrayOutputStream();
    PrintStream log = new PrintStream(buf, true, StandardCharsets.UTF_8);
    AtomicLong bytes = new AtomicLong(12_345_678);
    try (RunTicker t = RunTicker.start(log, "run 1/3 s3a-classic", 20, bytes::get)) {
      while (buf.toString(StandardCharsets.UTF_8).lines().count() < 2) {
        Thread.sleep(5);
      }
    }
    String out = buf.toString(StandardCharsets.UTF_8);
    assertThat(out.lines()).allSatisfy(l -> assertThat(l)
        .matches("  run 1/3 s3a-classic: \\d+ s so far, 12\\.3 MB from the link"));
    long lines = out.lines().count();
    Thread.sleep(100);
    assertThat(buf.toString(StandardCharsets.UTF_8).lines().count()).as("nothing after close").isEqualTo(lines);
  }

  @Test
  void aRunShorterThanTheIntervalPrintsNothing() {
    ByteArrayOutputStream buf = new ByteArrayOutputStream();
    try (RunTicker t = RunTicker.start(new PrintStream(buf, true, StandardCharsets.UTF_8), "run 1/1 x", 60_000,
        () -> 0)) {
      assertThat(t).isNotNull();
    }
    assertThat(buf.size()).isZero();
  }
}
