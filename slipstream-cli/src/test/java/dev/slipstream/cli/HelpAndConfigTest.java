/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Help that prints cleanly (issue 21 point 14) and configuration that cannot work refused at start (point 13). */
@Timeout(60)
class HelpAndConfigTest {
  record Run(int exitCode, String stdout, String stderr, String processStderr) {}

  /** Runs the CLI in-process; picocli's own warnings go to the process's System.err, so that is captured too. */
  private static Run run(String... args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    ByteArrayOutputStream processErr = new ByteArrayOutputStream();
    PrintStream oldErr = System.err;
    int code;
    try (PrintStream errStream = new PrintStream(err, true, StandardCharsets.UTF_8);
        PrintStream capture = new PrintStream(processErr, true, StandardCharsets.UTF_8)) {
      System.setErr(capture);
      code = new SlipstreamCli(out, errStream, false).execute(args);
    } finally {
      System.setErr(oldErr);
    }
    return new Run(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8),
        processErr.toString(StandardCharsets.UTF_8));
  }

  @ParameterizedTest
  @ValueSource(strings = {"cat", "cp", "ls", "du", "bench", "demo"})
  void helpPrintsTheKeysWithoutAWarning(String command) {
    Run r = run(command, "--help");
    assertThat(r.exitCode()).isZero();
    if (!command.equals("bench") && !command.equals("demo")) { // the commands that list every -D key
      assertThat(r.stdout()).contains("cache.disk.min.free  default 10%\n");
    }
    assertThat(r.stderr()).doesNotContain("WARN");
    assertThat(r.processStderr()).doesNotContain("WARN");
  }

  @Test
  void anEndpointThatIsNotHttpIsAUsageError() {
    Run r = run("cat", "--endpoint", "ftp://files.example.com", "--region", "us-east-1", "-D", "access.key=a",
        "-D", "secret.key=b", "s3://bucket/key");
    assertThat(r.exitCode()).isEqualTo(2);
    assertThat(r.stderr()).contains("endpoint").contains("ftp://files.example.com").contains("http or https");
  }

  @Test
  void aListingTtlThatOverflowsIsAUsageError() {
    Run r = run("cat", "-D", "list.reuse.ttl=99999999999h", "s3://bucket/key");
    assertThat(r.exitCode()).isEqualTo(2);
    assertThat(r.stderr()).contains("list.reuse.ttl").contains("99999999999h").doesNotContain("ArithmeticException");
  }

  @Test
  void aMemoryBudgetAboveTheHeapIsAUsageError() {
    String tooMuch = ((Runtime.getRuntime().maxMemory() >> 20) + 4096) + "M";
    Run r = run("cat", "-D", "memory.max=" + tooMuch, "s3://bucket/key");
    assertThat(r.exitCode()).isEqualTo(2);
    assertThat(r.stderr()).contains("memory.max").contains(tooMuch).contains("heap");
  }
}
