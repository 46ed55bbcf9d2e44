/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.sparkit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.slipstream.ReadStatistics;
import dev.slipstream.testkit.ForkedS3Server;
import dev.slipstream.testkit.LinkProfile;
import dev.slipstream.testkit.LinkShaper;
import dev.slipstream.testkit.RequestInfo;
import java.io.IOException;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.LocatedFileStatus;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.RemoteIterator;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.functions;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Spark SQL over Parquet tables laid out as engines other than Spark's defaults write them, S3A classic
 * against Slipstream, judged by what the link carried, request by request, never by time: the answers,
 * the GETs the table's files cost, the bytes, and no run of small GETs where S3A classic made one (a
 * round trip costs more than 64 KiB).
 *
 * <p>The layouts: columns of few values, dictionary-encoded and filtered by dictionary (as pyarrow
 * writes every column); a column sorted within each file, filtered through the page indexes; many small
 * row groups; one row group larger than a Slipstream block. Sizes are scaled down by 8 from the 8 MiB
 * default block: a 1 MiB block, files of about 1.7 MB.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 10, unit = TimeUnit.MINUTES)
class SparkTableLayoutsTest {
  private static final String BUCKET = "spark-layouts";
  private static final int PARTITIONS = 6;
  private static final long ROWS_PER_PARTITION = 40_000;
  /** Every GET of a table file but these is at least this large. */
  private static final int MIN_GET = 64 * 1024;
  /** An access check: a conditional 1-byte GET of byte 0, before cached bytes are served. */
  private static final String ACCESS_CHECK = "bytes=0-0";

  /** A table layout: how it is written, and the query that reads it as its writer's users do. */
  enum Layout {
    /** Two row groups a file; c02 has 1,000 values, dictionary-encoded, and the query filters by it. */
    DICTIONARY(Map.of("parquet.block.size", "1048576"), false,
        "SELECT dt, count(*), sum(c01 % 1000003) FROM t WHERE c02 < 0 GROUP BY dt ORDER BY dt"),
    /** Sorted by c03 in each file, pages of 2,000 rows: the filter on c03 reads the column indexes and few pages. */
    PAGE_INDEX(Map.of("parquet.block.size", "8388608", "parquet.page.row.count.limit", "2000",
        "parquet.page.size", "16384"), true,
        "SELECT dt, count(*), sum(c01 % 1000003) FROM t WHERE c03 < 1000 GROUP BY dt ORDER BY dt"),
    /** Row groups of about 128 KB: a dozen a file. */
    SMALL_ROW_GROUPS(Map.of("parquet.block.size", "131072"), false,
        "SELECT dt, count(*), sum(c01 % 1000003) FROM t WHERE c02 < 0 GROUP BY dt ORDER BY dt"),
    /** One row group a file, larger than a block. */
    LARGE_ROW_GROUP(Map.of("parquet.block.size", "8388608"), false,
        "SELECT c06, avg(c05 % 1000003), max(c02) FROM t GROUP BY c06 ORDER BY c06");

    final Map<String, String> writeOptions;
    final boolean sorted;
    final String query;

    Layout(Map<String, String> writeOptions, boolean sorted, String query) {
      this.writeOptions = writeOptions;
      this.sorted = sorted;
      this.query = query;
    }

    String table() {
      return "s3a://" + BUCKET + "/warehouse/" + name().toLowerCase(java.util.Locale.ROOT);
    }
  }

  /**
   * One reader's query over one layout: the answer, the GETs of the table's files the link carried, and
   * what Slipstream's counters say of how it read them.
   */
  record Run(List<String> answer, long bytes, List<RequestInfo> gets, Map<String, Long> counters) {}

  private ForkedS3Server server;
  private LinkShaper link;
  /** Every table file's length, by the path a request names. */
  private final Map<String, Long> lengths = new HashMap<>();
  private final Map<Layout, Run> classic = new EnumMap<>(Layout.class);
  private final Map<Layout, Run> slipstream = new EnumMap<>(Layout.class);

  @BeforeAll
  void writeTablesAndQueryThemWithBothReaders() throws IOException {
    server = ForkedS3Server.start();
    server.createBucket(BUCKET);
    link = LinkShaper.start(server.endpoint(), LinkProfile.LOOPBACK, 5);
    SparkSession writer = LocalSpark.classicOrSlipstream("classic-layouts", false, server.endpoint());
    try {
      for (Layout layout : Layout.values()) {
        write(writer, layout);
      }
    } finally {
      LocalSpark.stop(writer);
    }
    for (boolean withSlipstream : new boolean[] {false, true}) {
      SparkSession spark = LocalSpark.classicOrSlipstream(withSlipstream ? "slipstream-layouts" : "classic-layouts",
          withSlipstream, link.endpoint());
      try {
        for (Layout layout : Layout.values()) {
          (withSlipstream ? slipstream : classic).put(layout, query(spark, layout));
        }
      } finally {
        LocalSpark.stop(spark);
      }
    }
    for (Layout layout : Layout.values()) {
      // What one file cost, request by request: the first thing to look at when the counts differ.
      System.out.printf("%s: classic %d GETs, %,d bytes; Slipstream %d GETs, %,d bytes%n  classic: %s%n"
              + "  Slipstream: %s%n  Slipstream's counters: %s%n", layout, classic.get(layout).gets.size(),
          classic.get(layout).bytes, slipstream.get(layout).gets.size(), slipstream.get(layout).bytes,
          describe(classic.get(layout).gets), describe(slipstream.get(layout).gets), slipstream.get(layout).counters);
    }
  }

  @AfterAll
  void stopServers() {
    if (link != null) {
      link.close();
    }
    if (server != null) {
      server.close();
    }
  }

  private void write(SparkSession spark, Layout layout) throws IOException {
    Dataset<Row> rows = spark.range(0, PARTITIONS * ROWS_PER_PARTITION, 1, 4).selectExpr(
        "format_string('%03d', CAST(id % " + PARTITIONS + " AS INT)) AS dt",
        "xxhash64(id, 1) AS c01", "CAST(pmod(xxhash64(id, 2), 1000) - 500 AS BIGINT) AS c02",
        "CAST(id DIV " + PARTITIONS + " AS BIGINT) AS c03", "xxhash64(id, 4) AS c04", "xxhash64(id, 5) AS c05",
        "CAST(id % 10 AS BIGINT) AS c06", "CAST(pmod(xxhash64(id, 7), 100) AS BIGINT) AS c07",
        "xxhash64(id, 8) AS c08")
        .repartition(PARTITIONS, functions.col("dt"));
    if (layout.sorted) {
      rows = rows.sortWithinPartitions("c03");
    }
    var w = rows.write().mode("overwrite");
    for (Map.Entry<String, String> o : layout.writeOptions.entrySet()) {
      w = w.option(o.getKey(), o.getValue());
    }
    w.partitionBy("dt").parquet(layout.table());
    FileSystem fs = new Path(layout.table()).getFileSystem(spark.sparkContext().hadoopConfiguration());
    RemoteIterator<LocatedFileStatus> files = fs.listFiles(new Path(layout.table()), true);
    while (files.hasNext()) {
      LocatedFileStatus f = files.next();
      lengths.put("/" + BUCKET + "/" + f.getPath().toUri().getPath().substring(1), f.getLen());
    }
  }

  private Run query(SparkSession spark, Layout layout) {
    spark.read().parquet(layout.table()).createOrReplaceTempView("t");
    link.clearRequestLog();
    long before = link.bytesSent();
    Map<String, Long> countersBefore = ReadStatistics.global().snapshot();
    List<String> answer = spark.sql(layout.query).collectAsList().stream().map(Row::toString).toList();
    long bytes = link.bytesSent() - before;
    Map<String, Long> countersAfter = ReadStatistics.global().snapshot();
    Map<String, Long> counters = new java.util.TreeMap<>();
    for (String name : List.of("streams_opened", "parquet_footers_parsed", "parquet_plans_reused", "extended_reads",
        "sequential_switches", "row_group_ahead_started", "prefetch_used", "prefetch_wasted", "predicted_column_bytes",
        "predicted_column_bytes_unread")) {
      counters.put(name, countersAfter.getOrDefault(name, 0L) - countersBefore.getOrDefault(name, 0L));
    }
    List<RequestInfo> gets = new ArrayList<>();
    for (RequestInfo r : link.requestLog()) {
      if (r.isGet() && r.path().endsWith(".parquet")) {
        gets.add(new RequestInfo(r.method(), java.net.URLDecoder.decode(r.path(), java.nio.charset.StandardCharsets.UTF_8),
            r.query(), r.headers()));
      }
    }
    return new Run(answer, bytes, gets, counters);
  }

  @ParameterizedTest
  @EnumSource(Layout.class)
  void bothReadersGiveTheSameAnswer(Layout layout) {
    assertThat(classic.get(layout).answer).isNotEmpty();
    assertThat(slipstream.get(layout).answer).isEqualTo(classic.get(layout).answer);
  }

  @ParameterizedTest
  @EnumSource(Layout.class)
  void slipstreamMakesNoMoreGetsThanS3aClassic(Layout layout) {
    assertThat(slipstream.get(layout).gets.size()).as("GETs of the table's files (S3A classic %d); %s",
        classic.get(layout).gets.size(), describe(slipstream.get(layout).gets))
        .isLessThanOrEqualTo(classic.get(layout).gets.size());
  }

  @ParameterizedTest
  @EnumSource(Layout.class)
  void slipstreamMovesNoMoreThanATenthMoreBytesThanS3aClassic(Layout layout) {
    long bytes = classic.get(layout).bytes;
    assertThat(bytes).isPositive();
    assertThat(slipstream.get(layout).bytes).as("bytes the link carried (S3A classic %,d)", bytes)
        .isLessThanOrEqualTo(bytes * 11 / 10);
  }

  /**
   * A small read costs one round trip, as S3A classic's 64 KiB readahead makes it: every Slipstream GET
   * under 64 KiB (but an access check, or one that reaches its file's end) lies inside a GET S3A classic
   * made of the same file, and no two of them inside the same one. What a reader asks for exactly (a
   * vectored range of 15 KB that a column index selected, or the part of one the stream did not hold) is
   * fetched as asked, as classic does; what the Thrift reader of a page header asks for a few bytes at a
   * time is fetched once, as classic does.
   */
  @ParameterizedTest
  @EnumSource(Layout.class)
  void slipstreamNeverTakesSeveralSmallGetsForWhatClassicFetchedInOne(Layout layout) {
    Map<String, List<long[]>> classicGets = new HashMap<>();
    for (RequestInfo r : classic.get(layout).gets) {
      if (r.range() != null) {
        classicGets.computeIfAbsent(r.path(), k -> new ArrayList<>()).add(bounds(r.range()));
      }
    }
    Map<String, List<String>> smallByClassicGet = new HashMap<>();
    List<String> outside = new ArrayList<>();
    for (RequestInfo r : slipstream.get(layout).gets) {
      String range = r.range();
      if (range == null || ACCESS_CHECK.equals(range)) {
        continue;
      }
      long[] b = bounds(range);
      Long length = lengths.get(r.path());
      assertThat(length).as("a GET of a file not in the table: %s", r.path()).isNotNull();
      if (b[1] - b[0] + 1 >= MIN_GET || b[1] == length - 1) {
        continue;
      }
      String name = r.path().substring(r.path().lastIndexOf('/') + 1, r.path().lastIndexOf('/') + 11);
      long[] within = classicGets.getOrDefault(r.path(), List.of()).stream()
          .filter(c -> c[0] <= b[0] && b[1] <= c[1]).findFirst().orElse(null);
      if (within == null) {
        outside.add(name + " " + range);
      } else {
        smallByClassicGet.computeIfAbsent(r.path() + " " + within[0] + "-" + within[1], k -> new ArrayList<>())
            .add(name + " " + range);
      }
    }
    assertThat(outside).as("GETs under 64 KiB inside no GET of S3A classic").isEmpty();
    assertThat(smallByClassicGet.values()).as("GETs under 64 KiB inside one GET of S3A classic")
        .allSatisfy(small -> assertThat(small).hasSize(1));
  }

  /** {first, last} of a Range header {@code bytes=first-last}. */
  private static long[] bounds(String range) {
    String[] ends = range.substring("bytes=".length()).split("-");
    return new long[] {Long.parseLong(ends[0]), Long.parseLong(ends[1])};
  }

  private static String describe(List<RequestInfo> gets) {
    Map<String, List<String>> byFile = new java.util.TreeMap<>();
    for (RequestInfo r : gets) {
      byFile.computeIfAbsent(r.path().substring(r.path().indexOf("dt=")), k -> new ArrayList<>()).add(r.range());
    }
    return byFile.entrySet().stream().limit(1).map(e -> e.getKey() + " " + e.getValue()).toList().toString();
  }
}
