/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.sparkit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.slipstream.testkit.ForkedS3Server;
import dev.slipstream.testkit.MemcachedServer;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Collectors;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerTaskStart;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;

/**
 * The shared tier on a real Spark cluster: applications on a {@code local-cluster} of two executor JVMs,
 * each with Slipstream from {@code spark.jars} alone (the drop-in jar, carrying the tier), and three real
 * memcached servers. Each application is a new SparkContext with new executor JVMs and no local cache
 * (disk cache off; memory dies with the JVM), so what a later one finds, it finds in the tier. Each
 * executor's numbers come from the plugin's gauges in Spark's CSV sink.
 *
 * <ol>
 *   <li>Application 1 scans the table with the pool empty and fills it.</li>
 *   <li>Application 2 scans it again: at least 90% of its bytes come from the tier, and its GETs are the
 *       access checks of its opens (one conditional 1-byte GET a file).</li>
 *   <li>Application 3 scans it with one server killed as its first task starts: the answer is the same,
 *       the dead server's share comes from S3 and the other two serve theirs.</li>
 *   <li>Application 4 scans it in {@code shared.mode=shadow}: no byte comes from the tier, and the blocks it
 *       would have served are counted as shadow hits.</li>
 * </ol>
 * Every answer equals the one S3A classic gives in a local session.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@Timeout(value = 6, unit = TimeUnit.MINUTES)
class SharedTierOnSparkClusterTest {
  private static final String BUCKET = "shared-tier-it";
  private static final String TABLE = "s3a://" + BUCKET + "/events";
  private static final long ROWS = 300_000;
  /** Every column of every row: all the table's bytes are read. */
  private static final String SCAN = "SELECT count(*), sum(id), sum(a), sum(b), sum(hash(s)) FROM events";
  private static final String SECRET = "shared-tier-it-" + Long.toHexString(new java.util.Random().nextLong());

  private ForkedS3Server server;
  private final List<MemcachedServer> pool = new ArrayList<>();
  private String expected;
  private Path work;

  @BeforeAll
  void writeTheTable() throws IOException {
    work = Files.createTempDirectory(Path.of("target"), "shared-tier-it-");
    server = ForkedS3Server.start();
    server.createBucket(BUCKET);
    for (int i = 0; i < 3; i++) {
      pool.add(MemcachedServer.start(64));
    }
    SparkSession writer = LocalSpark.classicOrSlipstream("shared-tier-writer", false, server.endpoint());
    try {
      // random longs and hex digests: little for Snappy to take, about 3 MB a file
      writer.range(0, ROWS, 1, 8)
          .selectExpr("id", "cast(rand(7) * 1e12 as bigint) AS a", "cast(rand(11) * 1e12 as bigint) AS b",
              "sha2(cast(id AS string), 256) AS s")
          .write().parquet(TABLE);
      writer.read().parquet(TABLE).createOrReplaceTempView("events");
      expected = writer.sql(SCAN).first().toString();
    } finally {
      LocalSpark.stop(writer);
    }
  }

  @AfterAll
  void stopServers() {
    pool.forEach(MemcachedServer::close);
    if (server != null) {
      server.close();
    }
  }

  /** One application: a new cluster, the scan, and each executor's gauges once they have settled. */
  private record App(String answer, ExecutorGauges gauges, String environment) {
    long fromTier() {
      return gauges.sum("shared_bytes_read_total");
    }

    long fromS3() {
      return gauges.sum("bytes_fetched_total");
    }
  }

  private App run(String name, String mode, Runnable atFirstTask, boolean ui) throws Exception {
    Path csv = Files.createDirectories(work.resolve(name));
    SparkSession.Builder b = LocalSpark.cluster(name, server.endpoint())
        .config("spark.ui.enabled", Boolean.toString(ui))
        .config("spark.ui.port", "0")
        .config("spark.hadoop.fs.s3a.impl", "dev.slipstream.hadoop.SlipstreamS3AFileSystem")
        .config("spark.plugins", "dev.slipstream.spark.SlipstreamPlugin")
        .config("spark.hadoop.fs.slipstream.block.size", "1M")
        .config("spark.hadoop.fs.slipstream.cache.disk.mode", "off")
        .config("spark.hadoop.fs.slipstream.shared.mode", mode)
        .config("spark.hadoop.fs.slipstream.shared.secret", SECRET)
        // What the tier holds is measured here, not how fast it answers: on a machine other jobs load, a
        // lookup can take longer than the 200 ms default, or than a wait fitted to quieter moments, and
        // would then count as a miss.
        .config("spark.hadoop.fs.slipstream.shared.timeout", "5s")
        .config("spark.hadoop.fs.slipstream.shared.timeout.adaptive", "false")
        .config("spark.hadoop.fs.slipstream.shared.servers",
            pool.stream().map(MemcachedServer::hostPort).collect(Collectors.joining(",")));
    ExecutorGauges.sinkTo(csv).forEach(b::config);
    SparkSession spark = b.getOrCreate();
    try {
      if (atFirstTask != null) {
        AtomicBoolean once = new AtomicBoolean();
        spark.sparkContext().addSparkListener(new SparkListener() {
          @Override
          public void onTaskStart(SparkListenerTaskStart taskStart) {
            if (once.compareAndSet(false, true)) {
              atFirstTask.run();
            }
          }
        });
      }
      spark.read().parquet(TABLE).createOrReplaceTempView("events");
      Row row = spark.sql(SCAN).first();
      String environment = ui ? environmentPage(spark) : null;
      ExecutorGauges gauges = ExecutorGauges.settled(csv, 2, "shared_hits_total", 60_000);
      System.out.printf("%s (shared.mode=%s): %s%n", name, mode, gauges);
      return new App(row.toString(), gauges, environment);
    } finally {
      LocalSpark.stop(spark);
    }
  }

  /** What the UI's REST API and Environment page show of the application's settings. */
  private static String environmentPage(SparkSession spark) throws Exception {
    String ui = spark.sparkContext().uiWebUrl().get();
    HttpClient http = HttpClient.newHttpClient();
    StringBuilder both = new StringBuilder();
    for (String path : List.of("/api/v1/applications/" + spark.sparkContext().applicationId() + "/environment",
        "/environment/")) {
      HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(ui + path)).build(),
          HttpResponse.BodyHandlers.ofString());
      assertThat(r.statusCode()).as("GET %s", path).isEqualTo(200);
      both.append(r.body());
    }
    return both.toString();
  }

  private App first;
  private App second;

  @Test
  @Order(1)
  void theNextApplicationReadsAtLeastNinetyPercentOfItsBytesFromTheTier() throws Exception {
    first = run("app-1-fills", "read-write", null, true);
    second = run("app-2-rereads", "read-write", null, false);

    assertThat(first.answer()).isEqualTo(expected);
    assertThat(second.answer()).isEqualTo(expected);
    assertThat(first.gauges().byExecutor).as("executors whose sink wrote the plugin's gauges").containsOnlyKeys("0", "1");
    assertThat(second.gauges().byExecutor).containsOnlyKeys("0", "1");
    // The pool starts empty; app 1 may find there only what its own driver or other executor put there
    // moments before (a footer the driver read to learn the schema).
    assertThat(first.fromS3()).as("app 1's bytes from S3 (%d) against the tier (%d)", first.fromS3(), first.fromTier())
        .isGreaterThanOrEqualTo(9 * first.fromTier());
    assertThat(first.gauges().sum("shared_sets_total")).as("blocks and ranges app 1 wrote to the pool").isPositive();
    for (String id : List.of("0", "1")) {
      assertThat(second.gauges().get(id, "shared_hits_total")).as("shared hits of executor %s", id).isPositive();
    }
    long tier = second.fromTier();
    long s3 = second.fromS3();
    assertThat(tier).as("app 2's bytes from the tier (%d) against S3 (%d)", tier, s3)
        .isGreaterThanOrEqualTo(9 * s3);
    long files = listFiles();
    // the access checks: a conditional 1-byte GET an open, with nothing else from S3
    assertThat(second.gauges().sum("get_requests_total")).as("app 2's GETs, %d data files", files)
        .isLessThanOrEqualTo(2 * files);
  }

  @Test
  @Order(2)
  void theUiShowsTheSecretsKeyButNeverItsValue() {
    assertThat(first).as("application 1 ran").isNotNull();
    assertThat(first.environment()).contains("spark.hadoop.fs.slipstream.shared.secret")
        .contains("*********(redacted)")
        .doesNotContain(SECRET);
  }

  @Test
  @Order(3)
  void aServerKilledDuringTheScanIsAMissAndItsShareComesFromS3() throws Exception {
    MemcachedServer killed = pool.get(1);
    App third = run("app-3-one-server-killed", "read-write", killed::kill, false);
    try {
      assertThat(third.answer()).isEqualTo(expected);
      assertThat(third.fromTier()).as("the two servers left serve their share").isPositive();
      assertThat(third.fromS3()).as("the killed server's share, from S3").isPositive();
      assertThat(third.gauges().sum("shared_misses_total")).isPositive();
    } finally {
      killed.restart(); // empty: its share is gone
    }
  }

  @Test
  @Order(4)
  void inShadowModeNoByteComesFromTheTierAndWouldBeHitsAreCounted() throws Exception {
    App shadow = run("app-4-shadow", "shadow", null, false);

    assertThat(shadow.answer()).isEqualTo(expected);
    assertThat(shadow.fromTier()).as("bytes served from the tier").isZero();
    assertThat(shadow.gauges().sum("shared_hits_total")).isZero();
    assertThat(shadow.gauges().sum("shared_shadow_hits_total")).as("would-be hits").isPositive();
    assertThat(shadow.gauges().sum("shared_shadow_mismatches_total")).isZero();
  }

  /** The table's data files. */
  private long listFiles() throws IOException {
    SparkSession s = LocalSpark.classicOrSlipstream("shared-tier-list", false, server.endpoint());
    try {
      return s.read().parquet(TABLE).inputFiles().length;
    } finally {
      LocalSpark.stop(s);
    }
  }
}
