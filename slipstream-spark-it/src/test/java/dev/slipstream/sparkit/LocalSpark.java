/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.sparkit;

import dev.slipstream.testkit.EmbeddedS3Server;
import java.net.URI;
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
    return SparkSession.builder()
        .master("local[2]")
        .appName(appName)
        .config("spark.ui.enabled", "false")
        .config("spark.driver.host", "127.0.0.1")
        .config("spark.driver.bindAddress", "127.0.0.1")
        .config("spark.hadoop.fs.s3a.endpoint", endpoint.toString())
        .config("spark.hadoop.fs.s3a.endpoint.region", EmbeddedS3Server.REGION)
        .config("spark.hadoop.fs.s3a.path.style.access", "true")
        .config("spark.hadoop.fs.s3a.connection.ssl.enabled", "false")
        .config("spark.hadoop.fs.s3a.aws.credentials.provider",
            "org.apache.hadoop.fs.s3a.SimpleAWSCredentialsProvider")
        .config("spark.hadoop.fs.s3a.access.key", EmbeddedS3Server.ACCESS_KEY)
        .config("spark.hadoop.fs.s3a.secret.key", EmbeddedS3Server.SECRET_KEY)
        .config("spark.hadoop.fs.s3a.bucket.probe", "0")
        .config("spark.hadoop.mapreduce.fileoutputcommitter.algorithm.version", "2")
        .config("spark.hadoop.mapreduce.fileoutputcommitter.cleanup.skipped", "true");
  }
}
