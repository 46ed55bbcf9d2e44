/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.slipstream.testkit.ScriptedS3Server;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * docs/architecture.md, rule 8: secrets reach no log at any level. {@code slipstream cat} runs in a child JVM, as a
 * user runs it, with every logger at DEBUG (the AWS SDK's and Apache HttpClient's included, which print
 * request headers and the signer's canonical request) and temporary credentials; its stderr must not
 * contain the session token or the secret key. The request log is on at DEBUG too: it shows every GET, and no
 * secret either.
 */
@Timeout(120)
class CredentialLoggingTest {
  private static final String TOKEN = "SessionTokenMustNeverBeLogged0123456789";
  private static final String SECRET = "SecretKeyMustNeverBeLogged9876543210";

  @TempDir
  Path tmp;

  @Test
  void debugLoggingShowsNoSessionTokenOrSecret() throws Exception {
    byte[] data = new byte[700_000];
    new Random(9).nextBytes(data);
    try (ScriptedS3Server server = ScriptedS3Server.start()) {
      server.put("logs", "object.bin", data);
      List<String> cmd = new ArrayList<>(List.of(
          Path.of(System.getProperty("java.home"), "bin", "java").toString(),
          "-cp", System.getProperty("java.class.path"),
          "-Dorg.slf4j.simpleLogger.defaultLogLevel=debug",
          // Asked for by name, too: the CLI keeps them quiet whatever is asked.
          "-Dorg.slf4j.simpleLogger.log.org.apache.http.headers=debug",
          "-Dorg.slf4j.simpleLogger.log.org.apache.http.wire=trace",
          SlipstreamCli.class.getName(), "cat", "--debug",
          "--endpoint", server.endpoint().toString(), "--region", "us-east-1", "--path-style",
          "-D", "access.key=AKIDLOGTEST", "-D", "secret.key=" + SECRET, "-D", "session.token=" + TOKEN,
          "-D", "block.size=256K", "-D", "cache.disk.mode=off", "s3://logs/object.bin"));
      File out = tmp.resolve("stdout").toFile();
      File err = tmp.resolve("stderr").toFile();
      Process p = new ProcessBuilder(cmd).redirectOutput(out).redirectError(err).start();
      if (!p.waitFor(100, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        throw new AssertionError("slipstream cat did not end");
      }
      String stderr = Files.readString(err.toPath(), StandardCharsets.UTF_8);
      assertThat(p.exitValue()).as(stderr).isZero();
      assertThat(Files.readAllBytes(out.toPath())).isEqualTo(data);
      assertThat(stderr).as("DEBUG logging was on").contains("DEBUG");
      // The request log: one line per GET, with the object, range, bytes, times, stream and why.
      assertThat(linesWith(stderr, "GET s3://logs/object.bin bytes=0-262143 262144 B first byte "))
          .as("the request log's line for the first block").hasSize(1)
          .allSatisfy(line -> assertThat(line).contains(" total ").contains(" stream ").endsWith(" for block"));
      assertThat(linesWith(stderr, " for prefetch")).as("the request log's lines for blocks fetched ahead").isNotEmpty();
      assertThat(linesWith(stderr, TOKEN)).as("lines that show the session token").isEmpty();
      assertThat(linesWith(stderr, SECRET)).as("lines that show the secret key").isEmpty();
      assertThat(linesWith(stderr, "x-amz-security-token:")).as("lines that show the token header").isEmpty();
    }
  }

  private static List<String> linesWith(String text, String needle) throws IOException {
    List<String> hits = new ArrayList<>();
    for (String line : text.split("\n")) {
      if (line.toLowerCase(java.util.Locale.ROOT).contains(needle.toLowerCase(java.util.Locale.ROOT))) {
        hits.add(line.length() > 300 ? line.substring(0, 300) + "..." : line);
      }
    }
    return hits;
  }
}
