/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.sparkit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.slipstream.hadoop.SlipstreamS3AFileSystem;
import dev.slipstream.spark.SlipstreamPlugin;
import dev.slipstream.testkit.ForkedS3Server;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;

/**
 * The Spark plugin on real executors: a {@code local-cluster} of two executor JVMs, each reading through
 * Slipstream, each with Spark's CSV sink. Every executor must have registered the plugin's gauges, and
 * the GETs they show must add up to reads that happened.
 *
 * <p>The executors have Slipstream and the plugin from {@code spark.jars} only (see {@link LocalSpark#cluster}).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 4, unit = TimeUnit.MINUTES)
class SparkPluginOnExecutorsTest {
  private static final String BUCKET = "plugin-it";
  private static final String DATA = "s3a://" + BUCKET + "/ids";
  private static final long ROWS = 400_000;

  private ForkedS3Server server;
  private Path csvDir;
  private long sum;
  /** Executor id to the last value of its {@code slipstream_get_requests_total} gauge. */
  private final Map<String, Long> getsByExecutor = new TreeMap<>();
  private final Map<String, Long> latencyCountsByExecutor = new TreeMap<>();

  @BeforeAll
  void runOnTwoExecutors() throws Exception {
    csvDir = Files.createTempDirectory(Path.of("target"), "executor-metrics-");
    server = ForkedS3Server.start();
    server.createBucket(BUCKET);
    SparkSession spark = LocalSpark.cluster("plugin-on-executors", server.endpoint())
        .config("spark.hadoop.fs.s3a.impl", SlipstreamS3AFileSystem.class.getName())
        .config("spark.plugins", SlipstreamPlugin.class.getName())
        .config("spark.metrics.conf.executor.sink.csv.class", "org.apache.spark.metrics.sink.CsvSink")
        .config("spark.metrics.conf.executor.sink.csv.period", "1")
        .config("spark.metrics.conf.executor.sink.csv.unit", "seconds")
        .config("spark.metrics.conf.executor.sink.csv.directory", csvDir.toAbsolutePath().toString())
        .getOrCreate();
    try {
      spark.range(0, ROWS, 1, 8).write().parquet(DATA);
      sum = spark.read().parquet(DATA).selectExpr("sum(id)").first().getLong(0);
      // the sink writes every second; wait until both executors have written their counts of the read
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      do {
        Thread.sleep(500);
        readCsvSink();
      } while (System.nanoTime() < deadline
          && (getsByExecutor.size() < 2 || getsByExecutor.values().stream().mapToLong(Long::longValue).sum() == 0));
      System.out.printf("Executors' gauges: GETs %s, GET latency samples %s%n", getsByExecutor, latencyCountsByExecutor);
    } finally {
      spark.stop();
      SparkSession.clearActiveSession();
      SparkSession.clearDefaultSession();
      FileSystem.closeAll();
    }
  }

  @AfterAll
  void stopServer() {
    if (server != null) {
      server.close();
    }
  }

  @Test
  void everyExecutorShowsSlipstreamsGaugesInSparksSinks() {
    assertThat(sum).isEqualTo(ROWS * (ROWS - 1) / 2);
    assertThat(getsByExecutor).as("executors whose CSV sink wrote slipstream_get_requests_total")
        .containsOnlyKeys("0", "1");
    assertThat(getsByExecutor.values().stream().mapToLong(Long::longValue).sum())
        .as("GETs the executors made, by their gauges").isPositive();
    assertThat(latencyCountsByExecutor).as("GET latency samples by executor").containsOnlyKeys("0", "1");
    // A GET's latency is sampled when its body has been read whole: a hedge that lost, or a GET cut short
    // (a prefetch its stream no longer wanted), counts as a GET with no sample.
    getsByExecutor.forEach((id, gets) -> assertThat(latencyCountsByExecutor.get(id))
        .as("GET latency samples of executor %s", id).isPositive().isLessThanOrEqualTo(gets));
  }

  /** Reads the last row of each executor's get-requests and GET-latency-count files. */
  private void readCsvSink() throws IOException {
    Pattern name = Pattern.compile(
        ".*\\.(\\d+)\\.plugin\\.dev\\.slipstream\\.spark\\.SlipstreamPlugin\\.slipstream_(get_requests_total|get_latency_count)\\.csv");
    try (Stream<Path> files = Files.list(csvDir)) {
      for (Path f : files.toList()) {
        Matcher m = name.matcher(f.getFileName().toString());
        if (m.matches()) {
          List<String> rows = Files.readAllLines(f);
          String last = rows.get(rows.size() - 1);
          if (last.startsWith("t,")) {
            continue;
          }
          long value = Long.parseLong(last.substring(last.indexOf(',') + 1).trim());
          (m.group(2).startsWith("get_requests") ? getsByExecutor : latencyCountsByExecutor).put(m.group(1), value);
        }
      }
    }
  }
}
