/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.slipstream.Slipstream;
import dev.slipstream.SlipstreamConfig;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * One memory budget for the JVM, said once: every client after the first shares the first one's pool
 * and fetch threads. One that sets another {@code memory.max} or {@code fetch.threads} itself is told
 * so once per JVM, at WARN; clients with the defaults (as every session of {@code slipstream bench} is)
 * are never told. The clients live in a child JVM of their own, whose first client sizes the pool (the
 * test JVM's was sized by whichever test ran first) and whose stderr is the log, at slf4j-simple's INFO.
 */
@Timeout(120)
class OneBudgetTest {
  static final String TOLD = "this client shares the JVM's memory budget";

  @Test
  void aSecondBudgetIsReportedOnceAndDefaultsNever(@TempDir Path tmp) throws Exception {
    List<String> cmd = List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-Xmx256m", "-cp", System.getProperty("java.class.path"), Clients.class.getName());
    File err = tmp.resolve("stderr").toFile();
    Process p = new ProcessBuilder(cmd).redirectError(err).redirectOutput(tmp.resolve("stdout").toFile()).start();
    if (!p.waitFor(100, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new AssertionError("the clients' JVM did not end");
    }
    String log = Files.readString(err.toPath(), StandardCharsets.UTF_8);
    assertThat(p.exitValue()).as(log).isZero();
    List<String> told = log.lines().filter(l -> l.contains(TOLD)).toList();
    assertThat(told).as(log).hasSize(1);
    assertThat(told.get(0)).contains("WARN").contains("memory.max=" + (16L << 20))
        .contains("isolatedResources()");
    assertThat(log.indexOf(TOLD)).as("said when the client asking for 16M was built, not before")
        .isGreaterThan(log.indexOf("built the clients with defaults"));
  }

  /** Clients in one JVM: three with the defaults, then three that each ask for a budget of their own. */
  static final class Clients {
    public static void main(String[] args) throws Exception {
      for (int i = 0; i < 3; i++) {
        client().build().close();
      }
      System.err.println("built the clients with defaults");
      client().set("memory.max", "16M").build().close();
      client().set("memory.max", "24M").build().close();
      client().set("fetch.threads", "4").build().close();
      System.err.println("built the clients with budgets of their own");
    }

    private static ClientBuilder client() {
      return new ClientBuilder();
    }
  }

  /** A client of a server nobody asks anything (no request is made), and no disk cache. */
  static final class ClientBuilder {
    private final SlipstreamConfig.Builder config = SlipstreamConfig.builder()
        .set("endpoint", "http://127.0.0.1:9").set("region", "us-east-1").set("path.style.access", "true")
        .set("access.key", "AKIDONEBUDGET").set("secret.key", "one-budget-secret").set("cache.disk.mode", "off");

    ClientBuilder set(String key, String value) {
      config.set(key, value);
      return this;
    }

    Slipstream build() {
      return Slipstream.create(config.build());
    }
  }
}
