/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.sparkit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.slipstream.hadoop.SlipstreamS3AFileSystem;
import dev.slipstream.testkit.ForkedS3Server;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.LongStream;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;

/**
 * A Spark job that writes a partitioned table through S3A's magic committer (bound by
 * {@code spark-hadoop-cloud}), then reads it back at once in the same application, reads exactly what it
 * wrote: after the first write, after an overwrite that replaces every partition and adds one, and after
 * an append, with {@code access.ttl} and {@code list.reuse.ttl} at their defaults (30 s). Each read goes
 * once by the table's path (Spark's file index lists the partition directories) and once by a glob over
 * them (Slipstream answers the glob from one listing and keeps it for the directories it matched).
 * Reader, writer and committer share the application's one FileSystem, as in any Spark driver and
 * local executor.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 10, unit = TimeUnit.MINUTES)
class SparkMagicCommitterTest {
  private static final String BUCKET = "magic-it";
  private static final String TABLE = "s3a://" + BUCKET + "/warehouse/t";

  private ForkedS3Server server;
  private SparkSession spark;

  @BeforeAll
  void start() {
    // In the child JVM's heap: deleting a "directory" is one key range, with no retries on the backend's files.
    server = ForkedS3Server.start(ForkedS3Server.Storage.TRANSIENT);
    server.createBucket(BUCKET);
    spark = LocalSpark.builder("magic-committer", server.endpoint())
        .config("spark.sql.shuffle.partitions", "2")
        .config("spark.hadoop.fs.s3a.impl", SlipstreamS3AFileSystem.class.getName())
        .config("spark.hadoop.fs.slipstream.block.size", "1M")
        .config("spark.hadoop.fs.slipstream.cache.disk.dir", "target/magic-committer-cache-" + System.nanoTime())
        .config("spark.hadoop.mapreduce.outputcommitter.factory.scheme.s3a",
            "org.apache.hadoop.fs.s3a.commit.S3ACommitterFactory")
        .config("spark.hadoop.fs.s3a.committer.name", "magic")
        .config("spark.hadoop.fs.s3a.committer.magic.enabled", "true")
        .config("spark.sql.sources.commitProtocolClass",
            "org.apache.spark.internal.io.cloud.PathOutputCommitProtocol")
        .config("spark.sql.parquet.output.committer.class",
            "org.apache.spark.internal.io.cloud.BindingParquetOutputCommitter")
        .getOrCreate();
  }

  @AfterAll
  void stop() throws IOException {
    try {
      if (spark != null) {
        LocalSpark.stop(spark);
      }
    } finally {
      if (server != null) {
        server.close();
      }
    }
  }

  /** Rows {@code id} in [from, to), partitioned by {@code p = id % partitions}. */
  private Dataset<Row> rows(long from, long to, int partitions) {
    return spark.range(from, to, 1, 2).selectExpr("id", "cast(id % " + partitions + " as int) as p");
  }

  private static List<String> expected(long from, long to, int partitions) {
    return LongStream.range(from, to).mapToObj(id -> id + "," + (id % partitions)).toList();
  }

  private static List<String> rowsOf(Dataset<Row> table) {
    return table.selectExpr("id", "p").orderBy("id").collectAsList().stream()
        .map(r -> r.getLong(0) + "," + r.getInt(1)).toList();
  }

  /** The table's rows, read by its path, then by a glob over its partitions: both must be {@code want}. */
  private void readsExactly(List<String> want, String after) {
    assertThat(rowsOf(spark.read().parquet(TABLE))).as("read by the table's path after " + after)
        .containsExactlyElementsOf(want);
    assertThat(rowsOf(spark.read().option("basePath", TABLE).parquet(TABLE + "/p=*")))
        .as("read by a glob over the partitions after " + after).containsExactlyElementsOf(want);
  }

  /** The job's {@code _SUCCESS}: S3A's committers write a JSON summary naming themselves; Hadoop's, no bytes. */
  private String successMarker() throws IOException {
    FileSystem fs = FileSystem.get(URI.create(TABLE), spark.sparkContext().hadoopConfiguration());
    assertThat(fs).isInstanceOf(SlipstreamS3AFileSystem.class);
    try (FSDataInputStream in = fs.open(new Path(TABLE + "/_SUCCESS"))) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  @Test
  void aTableWrittenThroughTheMagicCommitterIsReadBackExactlyAfterEachWrite() throws IOException {
    rows(0, 30, 3).write().partitionBy("p").mode("overwrite").parquet(TABLE);
    assertThat(successMarker()).as("_SUCCESS of the first write").containsPattern("\"committer\"\\s*:\\s*\"magic\"");
    readsExactly(expected(0, 30, 3), "the first write");

    // Replaces p=0..2 with other rows, and adds p=3.
    rows(100, 120, 4).write().partitionBy("p").mode("overwrite").parquet(TABLE);
    readsExactly(expected(100, 120, 4), "an overwrite");

    // New files in p=0..3, and a new partition p=4.
    rows(200, 210, 5).write().partitionBy("p").mode("append").parquet(TABLE);
    List<String> both = new ArrayList<>(expected(100, 120, 4));
    both.addAll(expected(200, 210, 5));
    readsExactly(both, "an append");
    assertThat(successMarker()).as("_SUCCESS of the append").containsPattern("\"committer\"\\s*:\\s*\"magic\"");
  }
}
