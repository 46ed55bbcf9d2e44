/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 1, unit = TimeUnit.MINUTES)
class ProgressTest {
  private static final long MIB = 1 << 20;

  @Test
  void aTerminalLineShowsBarPercentAmountRateAndEta() {
    AtomicLong done = new AtomicLong();
    Progress.TransferLine transfer = new Progress.TransferLine(true, "", 512 * MIB, done::get);

    String line = transfer.render(128 * MIB, System.nanoTime() + 2_000_000_000L);
    assertThat(line).startsWith("[#####...............]  25%  128.0 / 512.0 MiB  ")
        .containsPattern("[0-9.]+ MB/s  ETA \\d+:\\d\\d$");
    assertThat(line.length()).isLessThan(80);
  }

  @Test
  void aPlainLineHasNoBarAndAFinishedOneShowsTheTimeTaken() {
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    AtomicLong done = new AtomicLong();
    Progress.TransferLine transfer = new Progress.TransferLine(false, "One GET", 100 * MIB, done::get);
    Progress p = Progress.start(new PrintStream(err, true, StandardCharsets.UTF_8), false, 200, transfer);
    p.stop(true);

    assertThat(transfer.render(100 * MIB, System.nanoTime())).startsWith("One GET 100%  100.0 / 100.0 MiB  ")
        .containsPattern("MB/s  in \\d+:\\d\\d$");
    // A plain (non-terminal) display prints nothing when stopped: the summary line follows instead.
    assertThat(err.toString(StandardCharsets.UTF_8)).doesNotContain("\r");
  }
}
