/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.sparkit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.slipstream.hadoop.SlipstreamS3AFileSystem;
import dev.slipstream.spark.SlipstreamPlugin;
import dev.slipstream.testkit.ForkedS3Server;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
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
@Timeout(value = 15, unit = TimeUnit.MINUTES) // a guard against a hang: a local cluster's start alone is slow on a busy machine
class SparkPluginOnExecutorsTest {
  private static final String BUCKET = "plugin-it";
  private static final String DATA = "s3a://" + BUCKET + "/ids";
  private static final long ROWS = 400_000;

  private ForkedS3Server server;
  private long sum;
  /** Each executor's gauges, once the GETs of both are in. */
  private ExecutorGauges gauges;

  @BeforeAll
  void runOnTwoExecutors() throws Exception {
    Path csvDir = Files.createTempDirectory(Path.of("target"), "executor-metrics-");
    server = ForkedS3Server.start();
    server.createBucket(BUCKET);
    SparkSession.Builder b = LocalSpark.cluster("plugin-on-executors", server.endpoint())
        .config("spark.hadoop.fs.s3a.impl", SlipstreamS3AFileSystem.class.getName())
        .config("spark.plugins", SlipstreamPlugin.class.getName());
    ExecutorGauges.sinkTo(csvDir).forEach(b::config);
    SparkSession spark = b.getOrCreate();
    try {
      spark.range(0, ROWS, 1, 8).write().parquet(DATA);
      sum = spark.read().parquet(DATA).selectExpr("sum(id)").first().getLong(0);
      // the sink writes every second; wait until both executors have written their counts of the read
      gauges = ExecutorGauges.settled(csvDir, 2, "get_requests_total", 60_000);
      System.out.printf("Executors' gauges: %s%n", gauges);
    } finally {
      LocalSpark.stop(spark);
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
    assertThat(gauges.byExecutor).as("executors whose CSV sink wrote the plugin's gauges").containsOnlyKeys("0", "1");
    assertThat(gauges.sum("get_requests_total")).as("GETs the executors made, by their gauges").isPositive();
    // A GET's latency is sampled when its body has been read whole: a hedge that lost, or a GET cut short
    // (a prefetch its stream no longer wanted), counts as a GET with no sample.
    for (String id : gauges.byExecutor.keySet()) {
      assertThat(gauges.get(id, "get_latency_count")).as("GET latency samples of executor %s", id).isPositive()
          .isLessThanOrEqualTo(gauges.get(id, "get_requests_total"));
    }
  }
}
