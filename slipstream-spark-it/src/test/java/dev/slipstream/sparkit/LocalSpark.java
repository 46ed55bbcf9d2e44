/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.sparkit;

import dev.slipstream.testkit.S3ASettings;
import java.io.IOException;
import java.net.URI;
import org.apache.hadoop.fs.FileSystem;
import org.apache.spark.sql.SparkSession;

/** A local[2] Spark session on loopback whose {@code s3a://} talks to a test S3 server, as the tests share it. */
final class LocalSpark {
  private LocalSpark() {}

  /**
   * A builder for {@code appName} with S3A pointed at {@code endpoint} (path style, plain HTTP, the
   * embedded server's keys, no bucket probe) and FileOutputCommitter v2 leaving {@code _temporary/}
   * behind: s3proxy's filesystem backend retries deleting a non-empty directory 10 times, 1 s apart, and
   * S3A's bulk delete of the markers under it runs into that twice, 20 s per write for nothing.
   */
  static SparkSession.Builder builder(String appName, URI endpoint) {
    SparkSession.Builder b = SparkSession.builder()
        .master("local[2]")
        .appName(appName)
        .config("spark.ui.enabled", "false")
        .config("spark.driver.host", "127.0.0.1")
        .config("spark.driver.bindAddress", "127.0.0.1")
        .config("spark.hadoop.mapreduce.fileoutputcommitter.algorithm.version", "2")
        .config("spark.hadoop.mapreduce.fileoutputcommitter.cleanup.skipped", "true");
    S3ASettings.forEndpoint(endpoint).forEach((key, value) -> b.config("spark.hadoop." + key, value));
    return b;
  }

  /**
   * A session of {@code appName} reading through S3A classic (also on Hadoop 3.5, whose default stream is
   * the analytics one), or through Slipstream, switched on by {@code fs.s3a.impl} with 1 MiB blocks (the
   * tests' files are scaled down by 8) and a disk cache of its own under {@code target/}.
   */
  static SparkSession classicOrSlipstream(String appName, boolean slipstream, URI endpoint) {
    SparkSession.Builder b = builder(appName, endpoint)
        .config("spark.sql.shuffle.partitions", "2")
        .config("spark.hadoop.fs.s3a.input.stream.type", "classic");
    if (slipstream) {
      b.config("spark.hadoop.fs.s3a.impl", "dev.slipstream.hadoop.SlipstreamS3AFileSystem")
          .config("spark.hadoop.fs.slipstream.block.size", "1M")
          .config("spark.hadoop.fs.slipstream.cache.disk.dir", "target/" + appName + "-cache-" + System.nanoTime());
    }
    return b.getOrCreate();
  }

  /** Stops a session and forgets it, and closes the cached FileSystems: the next session starts cold. */
  static void stop(SparkSession spark) throws IOException {
    spark.stop();
    SparkSession.clearActiveSession();
    SparkSession.clearDefaultSession();
    FileSystem.closeAll();
  }
}
