/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.sparkit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.slipstream.Counter;
import dev.slipstream.ReadStatistics;
import dev.slipstream.hadoop.SlipstreamS3AFileSystem;
import dev.slipstream.testkit.ForkedS3Server;
import dev.slipstream.spark.SlipstreamPlugin;
import java.io.IOException;
import java.io.InputStream;
import java.net.HttpURLConnection;
import java.nio.charset.StandardCharsets;
import java.net.URI;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.s3a.S3AFileSystem;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.util.HadoopInputFile;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerTaskEnd;
import org.apache.spark.sql.Dataset;
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
 * Spark in local mode writes a Parquet and a CSV dataset to s3proxy with stock S3A, reads them back with
 * stock S3A, then reads them again in a new SparkSession whose only change is
 * {@code spark.hadoop.fs.s3a.impl=dev.slipstream.hadoop.SlipstreamS3AFileSystem}; both reads must give the
 * same answers, and the second must have gone through Slipstream (its JVM-wide counters grew).
 *
 * <p>s3proxy runs in a child JVM ({@link ForkedS3Server}): its Jetty 11 would clash with Spark's Jetty 12.
 * All the Spark work happens once, in {@link #runBothReads()}; the tests check its outcome separately, so
 * that one failing check (e.g. the counters, while the read path is being written) does not hide the others.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@Timeout(value = 4, unit = TimeUnit.MINUTES)
class SparkReadsThroughSlipstreamTest {
  private static final String BUCKET = "spark-it";
  private static final String PARQUET = "s3a://" + BUCKET + "/data/events-parquet";
  private static final String CSV = "s3a://" + BUCKET + "/data/events-csv";
  private static final long ROWS = 200_000;
  private static final int FILES = 4;
  private static final int ROW_GROUP_BYTES = 256 * 1024;
  private static final String CSV_SCHEMA =
      "id BIGINT, qty INT, category STRING, amount DOUBLE, flag BOOLEAN, event_date DATE, price DECIMAL(12,2)";
  private static final Counter[] WATCHED = {Counter.BYTES_READ, Counter.STREAMS_OPENED, Counter.GET_REQUESTS};

  private ForkedS3Server server;

  // Outcome of the stock phase.
  private Class<?> stockFileSystemClass;
  private List<FileStatus> parquetFiles;
  private List<FileStatus> csvFiles;
  private Map<String, Integer> rowGroupsPerFile;
  private Map<String, String> stockResults;
  private Map<Counter, Long> slipstreamCountersDuringStockRead;

  // Outcome of the Slipstream phase.
  private Class<?> slipstreamFileSystemClass;
  private Map<String, String> slipstreamResults;
  private Map<Counter, Long> slipstreamCountersDuringSlipstreamRead;
  private String sparkPrometheus;
  private long getsBeforeScrape;
  private long getsAfterScrape;
  private final InputMetrics stockInput = new InputMetrics();
  private final InputMetrics slipstreamInput = new InputMetrics();

  @BeforeAll
  // A guard against a hang, not a speed check: about 25 s of Spark work on an idle machine (1.6 MB of data,
  // a few hundred requests), 108 s for its first step alone beside a load average of 12.
  @Timeout(value = 20, unit = TimeUnit.MINUTES)
  void runBothReads() throws IOException {
    server = ForkedS3Server.start();
    server.createBucket(BUCKET);

    // 1. Stock S3A: write both datasets, read them back.
    SparkSession stock = newSession(false);
    try {
      Configuration conf = stock.sparkContext().hadoopConfiguration();
      stockFileSystemClass = FileSystem.get(URI.create(PARQUET), conf).getClass();
      long t0 = System.nanoTime();
      writeDatasets(stock);
      log("stock write", t0);
      parquetFiles = dataFiles(conf, PARQUET, ".parquet");
      csvFiles = dataFiles(conf, CSV, ".csv");
      rowGroupsPerFile = new LinkedHashMap<>();
      for (FileStatus f : parquetFiles) {
        try (ParquetFileReader reader = ParquetFileReader.open(HadoopInputFile.fromStatus(f, conf))) {
          rowGroupsPerFile.put(f.getPath().getName(), reader.getRowGroups().size());
        }
      }
      stock.sparkContext().addSparkListener(stockInput);
      Map<Counter, Long> before = slipstreamCounters();
      long t1 = System.nanoTime();
      stockResults = compute(stock);
      log("stock read", t1);
      slipstreamCountersDuringStockRead = delta(before, slipstreamCounters());
    } finally {
      stopSession(stock);
    }

    // 2. The same reads in a new session, with only fs.s3a.impl changed.
    SparkSession slipstream = newSession(true);
    try {
      slipstreamFileSystemClass =
          FileSystem.get(URI.create(PARQUET), slipstream.sparkContext().hadoopConfiguration()).getClass();
      slipstream.sparkContext().addSparkListener(slipstreamInput);
      Map<Counter, Long> before = slipstreamCounters();
      long t2 = System.nanoTime();
      slipstreamResults = compute(slipstream);
      log("slipstream read", t2);
      slipstreamCountersDuringSlipstreamRead = delta(before, slipstreamCounters());
      getsBeforeScrape = ReadStatistics.global().get(Counter.GET_REQUESTS);
      sparkPrometheus = scrape(URI.create(slipstream.sparkContext().uiWebUrl().get() + "/metrics/prometheus"));
      getsAfterScrape = ReadStatistics.global().get(Counter.GET_REQUESTS);
      sparkPrometheus.lines().filter(l -> l.contains("slipstream_get_")).forEach(System.out::println);
    } finally {
      // stop() drains the listener bus, so every onTaskEnd has run once it returns
      stopSession(slipstream);
    }
    // Stock S3A's figure leaves out its vectored reads (Parquet's column chunks), counted on S3A's pool
    // threads where no task sees them: SparkProjectedBytesTest compares the bytes on the wire.
    System.out.printf("Spark input: stock S3A %s (without its vectored reads); Slipstream %s; Slipstream counters"
        + " during its read %s%n", stockInput, slipstreamInput, slipstreamCountersDuringSlipstreamRead);
  }

  @AfterAll
  void stopServer() {
    if (server != null) {
      server.close();
    }
  }

  @Test
  @Order(1)
  void stockWriteMadeSeveralFilesWithSeveralRowGroups() {
    assertThat(stockFileSystemClass).isEqualTo(S3AFileSystem.class);
    assertThat(parquetFiles).hasSize(FILES);
    assertThat(csvFiles).hasSize(FILES);
    assertThat(rowGroupsPerFile.values()).as("row groups per Parquet file: %s", rowGroupsPerFile)
        .allSatisfy(groups -> assertThat(groups).isGreaterThanOrEqualTo(2));
    assertThat(stockResults).containsEntry("parquet.count", Long.toString(ROWS))
        .containsEntry("csv.count", Long.toString(ROWS));
    assertThat(stockResults.values()).allSatisfy(answer -> assertThat(answer).isNotBlank());
  }

  @Test
  @Order(2)
  void stockParquetAndCsvAgreeOnTheirCommonColumns() {
    // the same rows went to both formats, so the questions asked of both must get the same answers
    for (String question : List.of("filtered", "grouped", "projected.checksum", "projected.sample")) {
      assertThat(stockResults.get("csv." + question)).as(question)
          .isEqualTo(stockResults.get("parquet." + question));
    }
  }

  @Test
  @Order(3)
  void configurationSwitchesTheFileSystemToSlipstream() {
    assertThat(slipstreamFileSystemClass).isEqualTo(SlipstreamS3AFileSystem.class);
  }

  @Test
  @Order(4)
  void slipstreamReadGivesTheSameResultsAsStockS3A() {
    assertThat(slipstreamResults).containsExactlyEntriesOf(stockResults);
  }

  @Test
  @Order(5)
  void sparkCountedInputForTheSlipstreamRead() {
    assertThat(slipstreamInput.bytes.get()).as("bytes").isPositive();
    assertThat(slipstreamInput.records.get()).as("records").isPositive();
  }

  @Test
  @Order(6)
  void stockReadDidNotGoThroughSlipstream() {
    assertThat(slipstreamCountersDuringStockRead).allSatisfy((counter, delta) -> assertThat(delta).isZero());
  }

  @Test
  @Order(7)
  void slipstreamCountersGrewDuringTheSlipstreamRead() {
    assertThat(slipstreamCountersDuringSlipstreamRead)
        .as("Slipstream's JVM-wide counters during the Slipstream read (Spark input: %s)", slipstreamInput)
        .hasEntrySatisfying(Counter.STREAMS_OPENED, delta -> assertThat(delta).isPositive())
        .hasEntrySatisfying(Counter.BYTES_READ, delta -> assertThat(delta).isPositive());
  }

  @Test
  @Order(8)
  void sparksPrometheusServletShowsThePluginsCountersAndLatencies() {
    // the driver's gauges read this JVM's statistics (in local mode the executor is this JVM too)
    assertThat(gauge(sparkPrometheus, "slipstream_get_requests_total"))
        .as("GETs in the scrape, against the JVM's counter around it")
        .isPositive()
        .isBetween((double) getsBeforeScrape, (double) getsAfterScrape);
    assertThat(gauge(sparkPrometheus, "slipstream_bytes_read_total")).isPositive();
    assertThat(gauge(sparkPrometheus, "slipstream_get_first_byte_latency_count")).isPositive();
    double p50 = gauge(sparkPrometheus, "slipstream_get_first_byte_latency_p50_seconds");
    double p99 = gauge(sparkPrometheus, "slipstream_get_first_byte_latency_p99_seconds");
    assertThat(p50).isPositive().isLessThanOrEqualTo(p99);
    assertThat(gauge(sparkPrometheus, "slipstream_retries_stall_total")).isZero();
    assertThat(sparkPrometheus.lines().filter(l -> l.contains("slipstream_")))
        .as("no series names a bucket or a key")
        .noneMatch(l -> l.contains(BUCKET) || l.contains("events"));
  }

  @Test
  @Order(9)
  void nothingLeftRunningThatWouldBlockJvmExit() throws InterruptedException {
    // Both sessions are stopped and the FileSystems closed: only JUnit's own threads may remain.
    List<String> left = List.of();
    for (int i = 0; i < 50; i++) {
      left = Thread.getAllStackTraces().keySet().stream()
          .filter(t -> t.isAlive() && !t.isDaemon() && t != Thread.currentThread())
          .map(Thread::getName)
          .filter(name -> !name.startsWith("junit-"))
          .sorted()
          .collect(Collectors.toList());
      if (left.isEmpty()) {
        break;
      }
      Thread.sleep(100);
    }
    assertThat(left).as("non-daemon threads still alive").isEmpty();
  }

  private SparkSession newSession(boolean slipstream) {
    SparkSession.Builder builder = LocalSpark.builder(slipstream ? "slipstream-read" : "stock-s3a", server.endpoint())
        .config("spark.sql.shuffle.partitions", "4")
        // ~5 splits per file: tasks start mid-file (Parquet row groups, CSV lines cut by a split edge)
        .config("spark.sql.files.maxPartitionBytes", "1m");
    if (slipstream) {
      builder.config("spark.hadoop.fs.s3a.impl", SlipstreamS3AFileSystem.class.getName());
      builder.config("spark.hadoop.fs.slipstream.cache.disk.dir", "target/test-disk-cache");
      // the Spark plugin, shown by Spark's own Prometheus servlet on its UI (port chosen by the system)
      builder.config("spark.plugins", SlipstreamPlugin.class.getName())
          .config("spark.ui.enabled", "true")
          .config("spark.ui.port", "0")
          .config("spark.metrics.conf.*.sink.prometheusServlet.class",
              "org.apache.spark.metrics.sink.PrometheusServlet")
          .config("spark.metrics.conf.*.sink.prometheusServlet.path", "/metrics/prometheus");
    }
    return builder.getOrCreate();
  }

  /** The value of the one gauge whose name ends in {@code name} in Spark's Prometheus text. */
  private static double gauge(String text, String name) {
    Matcher m = Pattern.compile("(?m)^metrics_\\w*_" + name + "_Value\\{type=\"gauges\"\\} (\\S+)$").matcher(text);
    assertThat(m.find()).as("a gauge named ..._%s in%n%s", name, text).isTrue();
    double value = Double.parseDouble(m.group(1));
    assertThat(m.find()).as("a second gauge named ..._%s", name).isFalse();
    return value;
  }

  private static String scrape(URI uri) throws IOException {
    HttpURLConnection c = (HttpURLConnection) uri.toURL().openConnection();
    try (InputStream in = c.getInputStream()) {
      assertThat(c.getResponseCode()).as("GET %s", uri).isEqualTo(200);
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } finally {
      c.disconnect();
    }
  }

  private static void stopSession(SparkSession spark) throws IOException {
    spark.stop();
    SparkSession.clearActiveSession();
    SparkSession.clearDefaultSession();
    // the FileSystem cache is JVM-wide: without this the next session would reuse this one's instances
    FileSystem.closeAll();
  }

  /** 200k rows, 12 columns of mixed types; deterministic, and the name column is incompressible. */
  private static void writeDatasets(SparkSession spark) {
    Dataset<Row> events = spark.range(0, ROWS, 1, FILES).selectExpr(
        "id",
        "CAST(id % 97 AS INT) AS qty",
        "CAST(id % 7 AS SMALLINT) AS weekday",
        "concat('cat_', CAST(id % 37 AS STRING)) AS category",
        "CAST(id AS DOUBLE) * 1.5 / 7 AS amount",
        "CAST(id % 1000 AS FLOAT) / 8 AS score",
        "id % 3 = 0 AS flag",
        "date_add(DATE'2020-01-01', CAST(id % 1500 AS INT)) AS event_date",
        "timestamp_seconds(1600000000 + id * 37) AS event_ts",
        "CAST(CAST((id * 7919) % 10000000 AS DECIMAL(12,0)) / 100 AS DECIMAL(12,2)) AS price",
        "sha2(CAST(id AS STRING), 256) AS name",
        "CAST(id % 256 - 128 AS TINYINT) AS small")
        .repartition(FILES);
    events.write()
        .mode("overwrite")
        .option("parquet.block.size", Integer.toString(ROW_GROUP_BYTES))
        .parquet(PARQUET);
    events.select("id", "qty", "category", "amount", "flag", "event_date", "price")
        .write()
        .mode("overwrite")
        .option("header", "true")
        .csv(CSV);
  }

  /** The same questions for both datasets; every answer exact (no floating-point sums). */
  private static Map<String, String> compute(SparkSession spark) {
    Map<String, String> results = new LinkedHashMap<>();
    Dataset<Row> parquet = spark.read().parquet(PARQUET);
    Dataset<Row> csv = spark.read().option("header", "true").schema(CSV_SCHEMA).csv(CSV);
    Map<String, Dataset<Row>> datasets = new LinkedHashMap<>();
    datasets.put("parquet", parquet);
    datasets.put("csv", csv);
    for (Map.Entry<String, Dataset<Row>> e : datasets.entrySet()) {
      String name = e.getKey();
      Dataset<Row> df = e.getValue();
      df.createOrReplaceTempView(name);
      results.put(name + ".count", Long.toString(df.count()));
      results.put(name + ".filtered", rowsAsText(spark.sql(
          "SELECT count(*), sum(qty), sum(price), avg(price), sum(CAST(amount * 1000 AS BIGINT)),"
              + " min(event_date), max(event_date), count_if(flag)"
              + " FROM " + name + " WHERE category = 'cat_7' AND qty > 20")));
      results.put(name + ".grouped", rowsAsText(spark.sql(
          "SELECT category, count(*), sum(price) FROM " + name
              + " WHERE flag GROUP BY category ORDER BY category")));
      results.put(name + ".projected.checksum", rowsAsText(spark.sql(
          "SELECT count(*), sum(CAST(hash(id, price) AS BIGINT)) FROM (SELECT id, price FROM " + name + ")")));
      results.put(name + ".projected.sample", rowsAsText(
          df.select("id", "price").where("id % 100 = 0").orderBy("id")));
    }
    results.put("parquet.projected.strings", rowsAsText(spark.sql(
        "SELECT count(*), sum(CAST(hash(name, event_ts) AS BIGINT)), min(name), max(event_ts) FROM parquet")));
    results.put("parquet.allColumns.sample", rowsAsText(
        parquet.where("id % 997 = 0").orderBy("id")));
    return results;
  }

  private static void log(String what, long startNanos) {
    System.out.printf("%s: %d ms%n", what, TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos));
  }

  private static String rowsAsText(Dataset<Row> df) {
    return df.collectAsList().stream().map(Row::toString).collect(Collectors.joining("\n"));
  }

  private static List<FileStatus> dataFiles(Configuration conf, String dir, String suffix) throws IOException {
    Path path = new Path(dir);
    List<FileStatus> files = new ArrayList<>();
    for (FileStatus f : path.getFileSystem(conf).listStatus(path)) {
      if (f.isFile() && f.getPath().getName().startsWith("part-") && f.getPath().getName().endsWith(suffix)) {
        files.add(f);
      }
    }
    return files;
  }

  /** Sums Spark's task input metrics, as the Spark UI shows them. */
  private static final class InputMetrics extends SparkListener {
    final AtomicLong bytes = new AtomicLong();
    final AtomicLong records = new AtomicLong();

    @Override
    public void onTaskEnd(SparkListenerTaskEnd taskEnd) {
      if (taskEnd.taskMetrics() != null) {
        bytes.addAndGet(taskEnd.taskMetrics().inputMetrics().bytesRead());
        records.addAndGet(taskEnd.taskMetrics().inputMetrics().recordsRead());
      }
    }

    @Override
    public String toString() {
      return bytes + " bytes, " + records + " records";
    }
  }

  private static Map<Counter, Long> slipstreamCounters() {
    Map<Counter, Long> values = new EnumMap<>(Counter.class);
    for (Counter c : WATCHED) {
      values.put(c, ReadStatistics.global().get(c));
    }
    return values;
  }

  private static Map<Counter, Long> delta(Map<Counter, Long> before, Map<Counter, Long> after) {
    Map<Counter, Long> d = new EnumMap<>(Counter.class);
    before.forEach((c, v) -> d.put(c, after.get(c) - v));
    return d;
  }
}
