/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.cli;

import static dev.slipstream.cli.SlipstreamCliTest.assertOneErrorLine;
import static dev.slipstream.cli.SlipstreamCliTest.run;
import static org.assertj.core.api.Assertions.assertThat;

import dev.slipstream.cli.SlipstreamCliTest.Run;
import dev.slipstream.testkit.EmbeddedS3Server;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.net.HttpURLConnection;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jclouds.blobstore.options.ListContainerOptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** {@code slipstream load}, run in-process as a user would run it. */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class LoadCommandTest {
  @Test
  void loadReadsEveryKindChecksEveryByteAndReports() {
    Run r = run("load", "--profile", "loopback", "--duration", "2s", "--streams", "3", "--size", "4M");

    assertThat(r.exitCode()).as(r.stdout() + r.stderr()).isEqualTo(0);
    String out = r.stdout();
    for (String kind : LoadCommand.KINDS) {
      assertThat(out).as(kind).containsPattern("(?m)^" + kind + " +[1-9]\\d* +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+ +0$");
    }
    assertThat(out).containsPattern("(?m)^all +[1-9]\\d* ").contains("reads with wrong bytes: 0", "retries: none");
    assertThat(out).containsPattern("GET first byte, as the client waited for it: p50 [0-9.]+ ms, p99 [0-9.]+ ms,"
        + " p999 [0-9.]+ ms; hedged GETs: \\d+ \\(\\d+ answered first\\)");
  }

  @Test
  void loadOnAFlakyLinkRetriesAndStillReadsTheRightBytes() {
    Run r = run("load", "--profile", "flaky", "--count", "60", "--duration", "1m", "--streams", "4", "--size", "4M",
        "--mix", "sequential,small");

    assertThat(r.exitCode()).as(r.stdout() + r.stderr()).isEqualTo(0);
    assertThat(r.stdout()).contains("reads with wrong bytes: 0").doesNotContain("random ", "footer ")
        .containsPattern("(?m)^all +60 ");
  }

  /** A short soak: many readers on a flaky link with a small memory budget, sampled every 2 s. */
  @Test
  void aShortSoakFindsNoGrowthAndNoMemoryLeftInUse() {
    Run r = run("load", "--profile", "flaky", "--soak", "--duration", "16s", "--sample-interval", "2s",
        "--streams", "12", "--size", "8M", "-D", "memory.max=24M", "-D", "block.size=1M");

    assertThat(r.exitCode()).as(r.stdout() + r.stderr()).isEqualTo(0);
    assertThat(r.stdout()).contains("reads with wrong bytes: 0",
        "Soak: no growth in heap, threads or open files", "memory pool empty once every stream closed");
    assertThat(r.stdout()).containsPattern("(?m)^soak s +heap MiB +threads +open files +pool MiB$");
  }

  @Test
  void loadRejectsBadOptionsBeforeStartingAnything() {
    for (String[] bad : new String[][] {{"--mix", "sequential,scan"}, {"--duration", "0s"}, {"--duration", "soon"},
        {"--streams", "0"}, {"--size", "1M"}, {"--profile", "dial-up"}, {"-D", "block.size=eight"},
        {"--sample-interval", "often"}, {"--rate", "-1"}, {"--prometheus", "port"}, {"--endpoint", "http://x"},
        {"--size", "6G"}}) {
      Run r = run("load", bad[0], bad[1]);
      assertThat(r.exitCode()).as(String.join(" ", bad)).isEqualTo(2);
      assertThat(r.stderr()).contains(bad[0].equals("-D") ? "block.size" : bad[0].equals("--endpoint") ? "--bucket"
          : bad[1].split(",")[bad[1].split(",").length - 1]);
      assertOneErrorLine(r);
    }
  }

  @Test
  void theEmbeddedServersOptionsAndABucketDoNotMix() {
    Run r = run("load", "--bucket", "b", "--profile", "flaky");
    assertThat(r.exitCode()).isEqualTo(2);
    assertThat(r.stderr()).contains("--profile is for the embedded server");
    assertOneErrorLine(r);
  }

  /** Against a real endpoint (here an S3 server of the test's own): write, read, check, delete. */
  @Test
  void loadAgainstABucketWritesItsObjectsReadsThemAndDeletesThem() {
    try (EmbeddedS3Server s3 = EmbeddedS3Server.start()) {
      s3.createBucket("load-ext");
      Run r = run("load", "--bucket", "load-ext", "--prefix", "runs/1/", "--duration", "2s", "--streams", "2",
          "--size", "4M", "--endpoint", s3.endpoint().toString(), "--region", EmbeddedS3Server.REGION,
          "--path-style", "-D", "access.key=" + EmbeddedS3Server.ACCESS_KEY,
          "-D", "secret.key=" + EmbeddedS3Server.SECRET_KEY);

      assertThat(r.exitCode()).as(r.stdout() + r.stderr()).isEqualTo(0);
      assertThat(r.stdout()).contains("against s3://load-ext/runs/1/ at " + s3.endpoint(),
          "reads with wrong bytes: 0");
      for (String kind : LoadCommand.KINDS) {
        assertThat(r.stdout()).as(kind).containsPattern("(?m)^" + kind + " +[1-9]\\d* ");
      }
      assertThat(r.stdout() + r.stderr()).doesNotContain(EmbeddedS3Server.SECRET_KEY);
      assertThat(s3.blobStore().list("load-ext", ListContainerOptions.Builder.recursive()))
          .as("objects left in the bucket").isEmpty();
    }
  }

  @Test
  void aBucketThatCannotBeWrittenIsOneClearError() {
    try (EmbeddedS3Server s3 = EmbeddedS3Server.start()) {
      Run r = run("load", "--bucket", "no-such-bucket", "--duration", "1s", "--size", "2M",
          "--endpoint", s3.endpoint().toString(), "--region", EmbeddedS3Server.REGION, "--path-style",
          "-D", "access.key=" + EmbeddedS3Server.ACCESS_KEY, "-D", "secret.key=" + EmbeddedS3Server.SECRET_KEY);

      assertThat(r.exitCode()).isEqualTo(1);
      assertThat(r.stderr()).contains("cannot write the load's objects under s3://no-such-bucket/slipstream-load/")
          .doesNotContain(EmbeddedS3Server.SECRET_KEY);
      assertOneErrorLine(r);
    }
  }

  /** At a rate, reads start on a schedule: never more than the rate times the duration. */
  @Test
  void loadAtARateStartsNoMoreReadsThanTheScheduleHolds() {
    Run r = run("load", "--profile", "loopback", "--rate", "20", "--duration", "2s", "--streams", "4",
        "--size", "2M", "--mix", "small");

    assertThat(r.exitCode()).as(r.stdout() + r.stderr()).isEqualTo(0);
    Matcher all = Pattern.compile("(?m)^all +(\\d+) ").matcher(r.stdout());
    assertThat(all.find()).isTrue();
    assertThat(Long.parseLong(all.group(1))).isBetween(1L, 40L);
    assertThat(r.stdout()).containsPattern("Rate: [0-9.]+ reads a second done, 20 asked for")
        .contains("reads with wrong bytes: 0");
  }

  /** While the load runs, its client's metrics are scraped over HTTP. */
  @Test
  void loadServesPrometheusMetricsWhileItRuns() throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int[] code = {-1};
    Thread load = new Thread(() -> {
      try (PrintStream errStream = new PrintStream(err, true, StandardCharsets.UTF_8)) {
        code[0] = new SlipstreamCli(out, errStream, false).execute("load", "--profile", "loopback", "--duration",
            "8s", "--streams", "2", "--size", "4M", "--prometheus", "0");
      }
    });
    load.start();
    Pattern url = Pattern.compile("Prometheus metrics: (http://127\\.0\\.0\\.1:\\d+/metrics)");
    Matcher m = url.matcher("");
    boolean printed = false;
    for (int i = 0; i < 200 && !printed; i++) {
      Thread.sleep(50);
      m = url.matcher(out.toString(StandardCharsets.UTF_8));
      printed = m.find();
    }
    assertThat(printed).as("the address printed in: %s", out.toString(StandardCharsets.UTF_8)).isTrue();
    URI scrapeAt = URI.create(m.group(1));
    String text = "";
    for (int i = 0; i < 100 && !text.matches("(?s).*\\nslipstream_get_requests_total [1-9].*"); i++) {
      text = scrape(scrapeAt);
      Thread.sleep(50);
    }
    assertThat(text).containsPattern("(?m)^slipstream_get_requests_total [1-9]")
        .containsPattern("(?m)^slipstream_get_first_byte_latency_quantile_seconds\\{quantile=\"0.99\"} ")
        .contains("slipstream_cost_dollars_total");
    load.join();
    assertThat(code[0]).as(out.toString(StandardCharsets.UTF_8) + err).isEqualTo(0);
  }

  private static String scrape(URI uri) throws IOException {
    HttpURLConnection c = (HttpURLConnection) uri.toURL().openConnection();
    try (InputStream in = c.getInputStream()) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } finally {
      c.disconnect();
    }
  }
}
