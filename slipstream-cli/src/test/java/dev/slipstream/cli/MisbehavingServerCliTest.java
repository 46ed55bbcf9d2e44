/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.slipstream.testkit.Misbehaviour;
import dev.slipstream.testkit.ScriptedS3Server;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code slipstream cat} against servers that misbehave on purpose (issue 21, points 1-5): exit 0 only
 * with the object's exact bytes; otherwise exit 1, one error line naming the object and what was wrong,
 * and nothing on stdout but a prefix of the object's bytes.
 */
@Timeout(120)
class MisbehavingServerCliTest {
  private static final String BUCKET = "odd";
  private static final int BLOCK = 256 * 1024;
  private static final int SIZE = 4 * BLOCK + 12_345;

  private static ScriptedS3Server server;
  private static byte[] data;
  private static byte[] data2;

  @BeforeAll
  static void start() {
    server = ScriptedS3Server.start();
    data = new byte[SIZE];
    new Random(5).nextBytes(data);
    data2 = new byte[SIZE];
    new Random(6).nextBytes(data2);
  }

  @AfterAll
  static void stop() {
    server.close();
  }

  @AfterEach
  void reset() {
    server.reset();
  }

  record Run(int exitCode, byte[] stdout, String stderr) {}

  private static Run cat(String key, String... extra) {
    server.put(BUCKET, key, data);
    String[] args = {"cat", "--endpoint", server.endpoint().toString(), "--region", "us-east-1", "--path-style",
        "-D", "access.key=test", "-D", "secret.key=test-secret", "-D", "block.size=256K",
        "-D", "retry.interval=10ms", "-D", "cache.disk.mode=off"};
    String[] all = Arrays.copyOf(args, args.length + extra.length + 1);
    System.arraycopy(extra, 0, all, args.length, extra.length);
    all[all.length - 1] = "s3://" + BUCKET + "/" + key;
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code;
    try (PrintStream errStream = new PrintStream(err, true, StandardCharsets.UTF_8)) {
      code = new SlipstreamCli(out, errStream, false).execute(all);
    }
    return new Run(code, out.toByteArray(), err.toString(StandardCharsets.UTF_8));
  }

  private static void assertExact(Run r) {
    assertThat(r.exitCode()).as(r.stderr()).isZero();
    assertThat(r.stdout()).isEqualTo(data);
  }

  private static void assertFailsNaming(Run r, String key, String what) {
    assertThat(r.exitCode()).as(r.stderr()).isEqualTo(1);
    assertThat(r.stderr()).startsWith("slipstream: ").contains("s3://" + BUCKET + "/" + key).contains(what)
        .doesNotContain("NullPointerException").doesNotContain("test-secret");
    assertThat(r.stdout().length).isLessThan(SIZE);
    assertThat(Arrays.equals(r.stdout(), 0, r.stdout().length, data, 0, r.stdout().length))
        .as("what reached stdout is the object's first bytes").isTrue();
  }

  @Test
  void aServerThatIgnoresRangeExitsOneWithPartOfTheRightBytes() {
    server.when(r -> r.isGet() && r.range() != null && !r.range().startsWith("bytes=0-"), Misbehaviour.IGNORE_RANGE);
    assertFailsNaming(cat("ignores-range"), "ignores-range", "ignores Range");
  }

  @Test
  void aResponseForAnotherRangeExitsOne() {
    server.when(r -> r.isGet() && r.range() != null && !r.range().startsWith("bytes=0-"), Misbehaviour.SHIFT_RANGE);
    assertFailsNaming(cat("shifted"), "shifted", "another range");
  }

  @Test
  void anObjectReplacedMidReadOnAServerWithoutETagsExitsOne() {
    server.always(Misbehaviour.NO_ETAG);
    server.always(Misbehaviour.IGNORE_CONDITIONS);
    server.replaceAfterGets(BUCKET, "replaced", 1, data2);
    assertFailsNaming(cat("replaced", "-D", "prefetch.blocks=1"), "replaced", "changed");
  }

  @Test
  void aBareETagOnGetIsNoChange() {
    server.always(Misbehaviour.BARE_ETAG);
    assertExact(cat("bare-etag"));
  }

  @Test
  void aHeadWithoutContentLengthStillReadsRight() {
    server.always(Misbehaviour.NO_CONTENT_LENGTH);
    assertExact(cat("head-no-length"));
  }

  @Test
  void aHeadWithoutContentLengthAndNoRangesExitsOneNamingTheHeader() {
    server.always(Misbehaviour.NO_CONTENT_LENGTH);
    server.always(Misbehaviour.IGNORE_RANGE);
    Run r = cat("no-length-no-range");
    assertThat(r.exitCode()).as(r.stderr()).isEqualTo(1);
    assertThat(r.stderr()).contains("s3://" + BUCKET + "/no-length-no-range").contains("no Content-Length")
        .doesNotContain("NullPointerException");
    assertThat(r.stdout()).isEmpty();
  }
}
