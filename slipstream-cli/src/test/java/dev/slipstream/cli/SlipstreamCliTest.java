/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.slipstream.testkit.EmbeddedS3Server;
import dev.slipstream.testkit.FaultKind;
import dev.slipstream.testkit.LinkProfile;
import dev.slipstream.testkit.LinkShaper;
import dev.slipstream.testkit.TestData;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The CLI run in-process, as a user would run it, against an embedded S3 server. */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class SlipstreamCliTest {
  private static final String BUCKET = "cli-test";
  private static final String KEY = "data/object.bin";
  private static final long SEED = 4711;
  /** A few MiB, not a multiple of the block size used below. */
  private static final int SIZE = 5 * 1024 * 1024 + 12_345;

  private static EmbeddedS3Server server;

  @TempDir
  Path tmp;

  @BeforeAll
  static void startServer() {
    server = EmbeddedS3Server.start();
    server.createBucket(BUCKET);
    server.putGenerated(BUCKET, KEY, SEED, SIZE);
  }

  @AfterAll
  static void stopServer() {
    if (server != null) {
      server.close();
    }
  }

  /** What one run of the command printed and returned. */
  record Run(int exitCode, byte[] stdoutBytes, String stderr) {
    String stdout() {
      return new String(stdoutBytes, StandardCharsets.UTF_8);
    }
  }

  static Run run(String... args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code;
    try (PrintStream errStream = new PrintStream(err, true, StandardCharsets.UTF_8)) {
      code = new SlipstreamCli(out, errStream, false).execute(args);
    }
    return new Run(code, out.toByteArray(), err.toString(StandardCharsets.UTF_8));
  }

  /** {@code command}, then the options that point it at the embedded server, then {@code rest}. */
  private static String[] s3(String command, String... rest) {
    List<String> args = new ArrayList<>(List.of(command,
        "--endpoint", server.endpoint().toString(),
        "--region", EmbeddedS3Server.REGION,
        "--path-style",
        "-D", "access.key=" + EmbeddedS3Server.ACCESS_KEY,
        "-D", "secret.key=" + EmbeddedS3Server.SECRET_KEY));
    args.addAll(Arrays.asList(rest));
    return args.toArray(new String[0]);
  }

  private static String uri(String key) {
    return "s3://" + BUCKET + "/" + key;
  }

  private static void assertMatchesObject(byte[] actual) {
    assertThat(actual).hasSize(SIZE);
    assertThat(TestData.firstMismatch(SEED, 0, actual, 0, actual.length)).isEqualTo(-1);
  }

  private List<Path> filesIn(Path dir) throws IOException {
    try (Stream<Path> s = Files.list(dir)) {
      return s.toList();
    }
  }

  static void assertOneErrorLine(Run r) {
    assertThat(r.stderr()).startsWith("slipstream: ");
    assertThat(r.stderr().strip()).doesNotContain("\n");
    assertThat(r.stderr()).doesNotContain("\tat ").doesNotContain("Exception");
  }

  @Test
  void cpCopiesTheObjectByteForByteAndPrintsASummary() throws IOException {
    Path target = tmp.resolve("copy.bin");
    Run r = run(s3("cp", "-D", "block.size=1M", uri(KEY), target.toString()));

    assertThat(r.exitCode()).as(r.stderr()).isEqualTo(0);
    assertMatchesObject(Files.readAllBytes(target));
    assertThat(r.stderr()).contains("Copied " + uri(KEY)).contains(SIZE + " bytes")
        .containsPattern("in [0-9.]+ s = [0-9.]+ MB/s, \\d+ GETs?, 0 retries");
    assertThat(r.stdoutBytes()).isEmpty();
    assertThat(filesIn(tmp)).containsExactly(target);
  }

  @Test
  void cpIntoADirectoryNamesTheFileAfterTheKeyAndReplacesAnOldFile() throws IOException {
    Path old = tmp.resolve("object.bin");
    Files.writeString(old, "an older version");
    Run r = run(s3("cp", "--quiet", uri(KEY), tmp.toString()));

    assertThat(r.exitCode()).as(r.stderr()).isEqualTo(0);
    assertMatchesObject(Files.readAllBytes(old));
    assertThat(filesIn(tmp)).containsExactly(old);
  }

  @Test
  void aCopyThatFailsHalfWayLeavesTheTargetAsItWas() throws IOException {
    Path target = tmp.resolve("keep.bin");
    Files.writeString(target, "the previous content");
    try (LinkShaper shaper = LinkShaper.start(server.endpoint(), LinkProfile.LOOPBACK, 1)) {
      // A block after the first breaks mid-body, and retries are off: the copy fails part-way through.
      shaper.injectNext(FaultKind.RESET_MID_BODY,
          req -> req.isGet() && req.range() != null && !req.range().startsWith("bytes=0-"));
      String[] args = s3("cp", "-D", "block.size=1M", "-D", "retry.max=0", uri(KEY), target.toString());
      args[2] = shaper.endpoint().toString(); // after --endpoint
      Run r = run(args);

      assertThat(r.exitCode()).as(r.stderr()).isEqualTo(1);
      assertThat(r.stderr()).startsWith("slipstream: ").contains(uri(KEY)).doesNotContain("\tat ");
    }
    assertThat(Files.readString(target)).isEqualTo("the previous content");
    assertThat(filesIn(tmp)).containsExactly(target);
  }

  @Test
  void catWritesTheExactBytesToStdout() {
    Run r = run(s3("cat", "-D", "block.size=256K", "-D", "prefetch.blocks=4", uri(KEY)));

    assertThat(r.exitCode()).as(r.stderr()).isEqualTo(0);
    assertMatchesObject(r.stdoutBytes());
    assertThat(r.stderr()).isEmpty();
  }

  @Test
  void catOfSeveralObjectsConcatenatesThem() {
    server.putObject(BUCKET, "small/a.txt", "hello ".getBytes(StandardCharsets.UTF_8));
    server.putObject(BUCKET, "small/b.txt", "world\n".getBytes(StandardCharsets.UTF_8));
    Run r = run(s3("cat", uri("small/a.txt"), uri("small/b.txt")));

    assertThat(r.exitCode()).as(r.stderr()).isEqualTo(0);
    assertThat(r.stdout()).isEqualTo("hello world\n");
  }

  @Test
  void aMissingObjectIsAnIoErrorNamingIt() throws IOException {
    Path target = tmp.resolve("never.bin");
    Run r = run(s3("cp", uri("no/such/object.bin"), target.toString()));

    assertThat(r.exitCode()).isEqualTo(1);
    assertThat(r.stderr()).contains(uri("no/such/object.bin"));
    assertOneErrorLine(r);
    assertThat(filesIn(tmp)).isEmpty();

    Run cat = run(s3("cat", uri("no/such/object.bin")));
    assertThat(cat.exitCode()).isEqualTo(1);
    assertThat(cat.stderr()).contains(uri("no/such/object.bin"));
    assertOneErrorLine(cat);
  }

  @Test
  void debugAddsTheStackTrace() {
    Run r = run(s3("cat", "--debug", uri("no/such/object.bin")));

    assertThat(r.exitCode()).isEqualTo(1);
    assertThat(r.stderr()).startsWith("slipstream: ").contains("FileNotFoundException").contains("\tat ");
  }

  @Test
  void anInvalidConfigValueIsAUsageErrorNamingTheKey() throws IOException {
    Run r = run(s3("cp", "-D", "block.size=abc", uri(KEY), tmp.resolve("x.bin").toString()));

    assertThat(r.exitCode()).isEqualTo(2);
    assertThat(r.stderr()).contains("block.size").contains("abc");
    assertOneErrorLine(r);
    assertThat(filesIn(tmp)).isEmpty();
  }

  @Test
  void anUnknownConfigKeyOrMalformedSettingIsAUsageError() {
    Run unknown = run(s3("cat", "-D", "block.sise=8M", uri(KEY)));
    assertThat(unknown.exitCode()).isEqualTo(2);
    assertThat(unknown.stderr()).contains("block.sise");
    assertOneErrorLine(unknown);

    Run malformed = run(s3("cat", "-D", "block.size", uri(KEY)));
    assertThat(malformed.exitCode()).isEqualTo(2);
    assertThat(malformed.stderr()).contains("key=value");
  }

  @Test
  void aBadUriIsAUsageError() {
    Run r = run(s3("cat", "http://example.com/x"));
    assertThat(r.exitCode()).isEqualTo(2);
    assertThat(r.stderr()).contains("s3://bucket/key");
    assertOneErrorLine(r);

    Run upload = run(s3("cp", tmp.resolve("a").toString(), uri("k")));
    assertThat(upload.exitCode()).isEqualTo(2);
    assertOneErrorLine(upload);
  }

  @Test
  void wrongCredentialsAreAnIoErrorThatDoesNotShowTheSecret() {
    String secret = "wrong-secret-do-not-print-me";
    Run r = run("cat", "--endpoint", server.endpoint().toString(), "--region", EmbeddedS3Server.REGION,
        "--path-style", "-D", "access.key=" + EmbeddedS3Server.ACCESS_KEY, "-D", "secret.key=" + secret, uri(KEY));

    assertThat(r.exitCode()).isEqualTo(1);
    assertThat(r.stderr()).contains(uri(KEY)).contains("403").doesNotContain(secret);
    assertOneErrorLine(r);
    assertThat(r.stdoutBytes()).isEmpty();
  }

  @Test
  void helpListsTheCommandsAndVersionPrintsOne() {
    Run help = run("--help");
    assertThat(help.exitCode()).isEqualTo(0);
    assertThat(help.stdout()).contains("cp ").contains("cat ").contains("demo ").contains("bench ");

    Run cpHelp = run("cp", "--help");
    assertThat(cpHelp.exitCode()).isEqualTo(0);
    assertThat(cpHelp.stdout()).contains("--endpoint").contains("block.size");

    Run version = run("--version");
    assertThat(version.exitCode()).isEqualTo(0);
    assertThat(version.stdout()).startsWith("slipstream ");
  }

  @Test
  void missingOrUnknownArgumentsAreUsageErrors() {
    Run none = run();
    assertThat(none.exitCode()).isEqualTo(2);
    assertThat(none.stderr()).startsWith("slipstream: ");

    Run unknown = run("cp", "--frobnicate", uri(KEY), "x");
    assertThat(unknown.exitCode()).isEqualTo(2);
    assertThat(unknown.stderr()).startsWith("slipstream: ").contains("--frobnicate");

    Run missing = run("cp", uri(KEY));
    assertThat(missing.exitCode()).isEqualTo(2);
    assertThat(missing.stderr()).startsWith("slipstream: ");
  }

  @Test
  void demoCopiesBothWaysVerifiesAndComparesThroughputs() {
    Run r = run("demo", "--size", "16M", "--profile", "loopback");

    assertThat(r.exitCode()).as(r.stdout() + r.stderr()).isEqualTo(0);
    String out = r.stdout();
    assertThat(out).contains("loopback").contains("16 MiB");
    assertThat(out).containsPattern("(?m)^Slipstream: +16 MiB in [0-9.]+ s = [0-9.]+ MB/s \\(\\d+ GETs?, \\d+ retr(y|ies)\\)$");
    assertThat(out).containsPattern("(?m)^One GET stream: 16 MiB in [0-9.]+ s = [0-9.]+ MB/s$");
    assertThat(out).contains("Both copies verified");
    assertThat(out).containsPattern("Slipstream was [0-9.]+x (faster|slower)\\.");
  }

  @Test
  void demoRejectsABadProfileOrSize() {
    Run profile = run("demo", "--profile", "dial-up");
    assertThat(profile.exitCode()).isEqualTo(2);
    assertThat(profile.stderr()).contains("dial-up");
    assertOneErrorLine(profile);

    Run size = run("demo", "--size", "lots");
    assertThat(size.exitCode()).isEqualTo(2);
    assertThat(size.stderr()).contains("--size");
    assertOneErrorLine(size);
  }

  @Test
  void benchRunsTheChosenReadersAndWritesTheReport(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir)
      throws Exception {
    java.nio.file.Path out = dir.resolve("report");
    Run r = run("bench", "--profile", "loopback", "--readers", "s3a-classic,slipstream", "--workloads", "sequential",
        "--sequential-size", "1M", "--runs", "1", "--warmup", "0", "--tmp-dir", dir.toString(), "--out", out.toString());

    assertThat(r.exitCode()).as(r.stdout() + r.stderr()).isEqualTo(0);
    assertThat(r.stderr()).contains("link capacity").contains("bytes ok");
    assertThat(r.stdout()).containsPattern("(?m)^sequential +s3a-classic .*ok, bytes verified$")
        .containsPattern("(?m)^sequential +slipstream .*ok, bytes verified$");
    assertThat(out.resolve("results.json")).isRegularFile();
    assertThat(out.resolve("report.md")).isRegularFile();
    assertThat(java.nio.file.Files.readString(out.resolve("results.json")))
        .contains("\"command\": \"bin/slipstream bench --profile loopback");
  }

  @Test
  void benchWritesTheReportsAgainFromACommittedRunAgainstABaseline(@TempDir Path dir) throws Exception {
    Path docs = Path.of("..", "docs", "bench");
    Path out = dir.resolve("again");
    Run r = run("bench", "--report-from", docs.resolve("2026-11-23-chain").toString(), "--baseline",
        docs.resolve("2026-11-22-default").toString(), "--out", out.toString());

    assertThat(r.exitCode()).as(r.stdout() + r.stderr()).isEqualTo(0);
    assertThat(r.stdout()).contains("real improvements", "report.html");
    assertThat(Files.readString(out.resolve("report.html"))).contains("2026-11-22-default", "vs baseline");
    assertThat(Files.readString(out.resolve("results.json")))
        .isEqualTo(Files.readString(docs.resolve("2026-11-23-chain").resolve("results.json")));

    Run noOut = run("bench", "--report-from", docs.resolve("2026-11-23-chain").toString());
    assertThat(noOut.exitCode()).isEqualTo(2);
    assertThat(noOut.stderr()).contains("--out");
    Run noBaseline = run("bench", "--report-from", docs.resolve("2026-11-23-chain").toString(), "--baseline",
        dir.resolve("nowhere").toString(), "--out", out.toString());
    assertThat(noBaseline.exitCode()).isEqualTo(2);
    assertThat(noBaseline.stderr()).contains("--baseline");
  }

  @Test
  void benchGivesBothSlipstreamReadersTheSettingsOfSet(@TempDir Path dir) throws Exception {
    Path out = dir.resolve("report");
    // 1 MiB blocks: a 4 MiB object declared whole is read in 4 GETs, one a block (with 8 MiB blocks, in 2 parts).
    Run r = run("bench", "--profile", "loopback", "--readers", "slipstream-core,slipstream", "--workloads",
        "sequential", "--sequential-size", "4M", "--runs", "1", "--warmup", "0", "--set", "block.size=1M",
        "--tmp-dir", dir.toString(), "--out", out.toString());

    assertThat(r.exitCode()).as(r.stdout() + r.stderr()).isEqualTo(0);
    List<String> rows = Files.readAllLines(out.resolve("results.csv"));
    int gets = List.of(rows.get(0).split(",")).indexOf("gets");
    assertThat(rows.subList(1, rows.size())).hasSize(2).allSatisfy(row -> {
      assertThat(row).contains("ok");
      assertThat(row.split(",")[gets]).as(row).isEqualTo("4");
    });
  }

  @Test
  void benchRefusesSettingsItCannotGiveNamingThem() {
    for (String[] args : new String[][] {{"bench", "--set", "no.such.key=1"}, {"bench", "--set", "block.size=lots"},
        {"bench", "--set", "secret.key=abc", "--workloads", "sequential"},
        {"bench", "--set", "block.size=16M", "--workloads", "cluster-first"},
        {"bench", "--set", "block.size=16M", "--workloads", "spark-sql"}}) {
      Run r = run(args);
      assertThat(r.exitCode()).as(String.join(" ", args)).isEqualTo(2);
      String named = args.length > 3 && !args[4].equals("sequential") ? args[4] : args[2].split("=")[0];
      assertThat(r.stderr()).contains(named);
      assertOneErrorLine(r);
    }
    assertThat(run("bench", "--set", "secret.key=abc").stderr()).doesNotContain("abc");
  }

  @Test
  void benchRejectsUnknownProfilesReadersAndWorkloads() {
    for (String[] args : new String[][] {{"bench", "--profile", "dial-up"}, {"bench", "--readers", "s3a-magic"},
        {"bench", "--workloads", "sorting"}}) {
      Run r = run(args);
      assertThat(r.exitCode()).as(String.join(" ", args)).isEqualTo(2);
      assertThat(r.stderr()).contains(args[2]);
      assertOneErrorLine(r);
    }
    Run help = run("bench", "--help");
    assertThat(help.exitCode()).isEqualTo(0);
    assertThat(help.stdout()).contains("--full").contains("--out").contains("s3a-analytics").contains("--baseline")
        .contains("--report-from");
    assertThat(help.stderr()).doesNotContain("WARN");
  }
}
