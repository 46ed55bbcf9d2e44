/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.sparkit;

import dev.slipstream.hadoop.SlipstreamS3AFileSystem;
import dev.slipstream.spark.SlipstreamPlugin;
import dev.slipstream.testkit.S3ASettings;
import java.io.File;
import java.io.IOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.List;
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
        .config("spark.hadoop.mapreduce.fileoutputcommitter.cleanup.skipped", "true")
        // Spark 4 switches s3a:// writes to S3A's magic committer by itself once spark-hadoop-cloud is on the
        // class path (SparkContext's enableMagicCommitterIfNeeded sets this key to true when it is missing).
        // The tests write through Hadoop's file committer, as before; SparkMagicCommitterTest asks for magic.
        .config("spark.hadoop.fs.s3a.committer.magic.enabled", "false");
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

  /**
   * A builder for {@code appName} on a {@code local-cluster} of two executor JVMs (one core, 512 MiB each)
   * whose class path has no Slipstream jar: Slipstream reaches them as a job's {@code --jars} would, through
   * {@code spark.jars}, and so does the plugin's jar. Spark launches the executors from
   * {@code $SPARK_HOME/jars}: the build sets {@code SPARK_HOME} to {@code target/spark-home}, which this
   * fills with links to the jars of the test class path, Slipstream's left out.
   */
  static SparkSession.Builder cluster(String appName, URI endpoint) throws IOException {
    fillSparkHome(Path.of(System.getenv("SPARK_HOME")));
    return builder(appName, endpoint)
        .master("local-cluster[2,1,1024]")
        .config("spark.executor.memory", "512m")
        .config("spark.jars", String.join(",", slipstreamJars()));
  }

  /**
   * The drop-in jar (slipstream-hadoop's, with core and the shared tier inside) and the plugin's, as the
   * build made them: the test class path has them as jars after {@code package} (Maven's {@code verify}).
   */
  static List<String> slipstreamJars() {
    return List.of(jarOf(SlipstreamS3AFileSystem.class), jarOf(SlipstreamPlugin.class));
  }

  private static String jarOf(Class<?> c) {
    try {
      Path p = Path.of(c.getProtectionDomain().getCodeSource().getLocation().toURI());
      if (!p.toString().endsWith(".jar") || !Files.isRegularFile(p)) {
        throw new IllegalStateException(c.getName() + " comes from " + p + ", not a jar: run the Spark tests through "
            + "Maven's verify, which packages the jars first");
      }
      return p.toAbsolutePath().toString();
    } catch (URISyntaxException e) {
      throw new IllegalStateException(e);
    }
  }

  /**
   * A Spark home whose {@code jars/} holds this JVM's class path but Slipstream's jars, and nothing else: links
   * a build of another Spark version left there (another profile) would mix two Sparks in the executors.
   */
  private static void fillSparkHome(Path home) throws IOException {
    Path jars = home.resolve("jars");
    Files.createDirectories(jars);
    Files.writeString(home.resolve("RELEASE"), "Spark for tests: the jars of the test class path, Slipstream's left out\n");
    try (var old = Files.list(jars)) {
      for (Path link : old.toList()) {
        Files.delete(link);
      }
    }
    String classPath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
    for (String entry : classPath.split(File.pathSeparator)) {
      Path p = Path.of(entry);
      if (entry.endsWith(".jar") && Files.isRegularFile(p) && !p.getFileName().toString().startsWith("slipstream-")) {
        Path link = jars.resolve(p.getFileName());
        if (!Files.exists(link, LinkOption.NOFOLLOW_LINKS)) {
          Files.createSymbolicLink(link, p.toAbsolutePath());
        }
      }
    }
  }

  /** Stops a session and forgets it, and closes the cached FileSystems: the next session starts cold. */
  static void stop(SparkSession spark) throws IOException {
    spark.stop();
    SparkSession.clearActiveSession();
    SparkSession.clearDefaultSession();
    FileSystem.closeAll();
  }
}
