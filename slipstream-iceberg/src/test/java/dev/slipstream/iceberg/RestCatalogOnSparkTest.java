/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.iceberg;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.slipstream.Counter;
import dev.slipstream.ReadStatistics;
import dev.slipstream.testkit.RequestInfo;
import dev.slipstream.testkit.ScriptedS3Server;
import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.SeekableInputStream;
import org.apache.iceberg.rest.RESTCatalog;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.api.java.UDF1;
import org.apache.spark.sql.types.DataTypes;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;

/**
 * Spark reads Iceberg tables of a REST catalog that vends short-lived, per-table credentials
 * ({@link RestCatalog}: Iceberg's REST server, a front that vends and refreshes, and a store that refuses a
 * key of the wrong principal, a stranger's, or one past its life), with SlipstreamFileIO as the catalog's
 * {@code io-impl}. Table {@code db.a} is vended to {@code alice}, {@code db.b} to {@code bob}; the host's
 * default identity ({@code host-default}, from Java system properties) is no key the store knows, so a read
 * that fell back on it would be refused.
 */
@Timeout(300)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class RestCatalogOnSparkTest {
  static final int FILES = 12;
  static final int ROWS_PER_FILE = 200;
  static ScriptedS3Server store;
  static RestCatalog catalog;
  static SparkSession spark;

  @BeforeAll
  static void start() throws Exception {
    System.setProperty("aws.accessKeyId", "host-default");
    System.setProperty("aws.secretAccessKey", "host-default-secret");
    store = ScriptedS3Server.start().storingWrites();
    Path dir = Files.createDirectories(Path.of("target", "rest-catalog-on-spark-" + System.nanoTime()));
    catalog = RestCatalog.start(store, dir);
    store.refuse(catalog::refusal);
    catalog.principals.put("db.a", "alice");
    catalog.principals.put("db.b", "bob");
    catalog.lifetime = Duration.ofSeconds(30); // while the tables are written

    String p = "spark.sql.catalog.rest";
    SparkSession.Builder b = SparkSession.builder()
        .master("local[2]")
        .appName("rest-catalog-on-spark")
        .config("spark.ui.enabled", "false")
        .config("spark.driver.host", "127.0.0.1")
        .config("spark.driver.bindAddress", "127.0.0.1")
        .config("spark.sql.shuffle.partitions", "2")
        .config("spark.sql.extensions", "org.apache.iceberg.spark.extensions.IcebergSparkSessionExtensions");
    for (Map.Entry<String, String> e : catalogProperties().entrySet()) {
      b.config(p + "." + e.getKey(), e.getValue());
    }
    b.config(p, "org.apache.iceberg.spark.SparkCatalog").config(p + ".cache-enabled", "false");
    spark = b.getOrCreate();
    spark.udf().register("pause", (UDF1<Long, Long>) id -> {
      Thread.sleep(5); // each file's rows take a second: the read outlives several credential lifetimes
      return id;
    }, DataTypes.LongType);
    spark.sql("CREATE NAMESPACE rest.db");
    for (String table : new String[] {"a", "b"}) {
      spark.sql("CREATE TABLE rest.db." + table + " (id BIGINT, name STRING) USING iceberg TBLPROPERTIES ("
          + "'read.split.target-size'='1', 'read.split.open-file-cost'='1')"); // a task per file
      spark.sql("INSERT INTO rest.db." + table + " SELECT /*+ REPARTITION(" + FILES + ") */ id, concat('" + table
          + "-', id) FROM range(0, " + FILES * ROWS_PER_FILE + ")");
    }
  }

  /** The catalog properties of a REST catalog client whose tables read through SlipstreamFileIO. */
  static Map<String, String> catalogProperties() {
    return Map.of(
        "type", "rest",
        "uri", catalog.uri().toString(),
        "io-impl", SlipstreamFileIO.class.getName(),
        "header.X-Iceberg-Access-Delegation", "vended-credentials",
        "s3.endpoint", store.endpoint().toString(),
        "s3.path-style-access", "true",
        "client.region", "us-east-1",
        "slipstream.cache.disk.mode", "off");
  }

  @AfterAll
  static void stop() {
    if (spark != null) {
      spark.stop();
      SparkSession.clearActiveSession();
      SparkSession.clearDefaultSession();
    }
    if (catalog != null) {
      catalog.close();
    }
    if (store != null) {
      store.close();
    }
    System.clearProperty("aws.accessKeyId");
    System.clearProperty("aws.secretAccessKey");
  }

  /**
   * A read that outlives three credential lifetimes: Iceberg refreshes the table's credential from the
   * catalog's endpoint as each one nears its end, the reads go with each new key in turn, and the rows are
   * right. With a key that was not refreshed, the store would refuse the reads past its life
   * ({@code ExpiredToken}).
   */
  @Test
  @Order(1)
  void aReadThatOutlivesThreeCredentialLifetimesReadsTheRightRowsWithRefreshedKeys() {
    catalog.lifetime = Duration.ofSeconds(2);
    int refreshed = catalog.refreshes("db.a");
    long fetched = ReadStatistics.global().get(Counter.BYTES_FETCHED);
    store.reset();

    List<Row> rows = rows("SELECT count(*), sum(pause(id)), count(DISTINCT name) FROM rest.db.a");

    long n = (long) FILES * ROWS_PER_FILE;
    assertThat(rows).hasSize(1);
    assertThat(rows.get(0).getLong(0)).isEqualTo(n);
    assertThat(rows.get(0).getLong(1)).isEqualTo(n * (n - 1) / 2);
    assertThat(rows.get(0).getLong(2)).isEqualTo(n);
    assertThat(ReadStatistics.global().get(Counter.BYTES_FETCHED)).as("read through Slipstream").isGreaterThan(fetched);
    assertThat(catalog.refreshes("db.a") - refreshed).as("refreshes during the read").isGreaterThanOrEqualTo(3);
    List<RequestInfo> dataReads = store.requests().stream()
        .filter(r -> r.isGet() && r.path().contains("/db/a/data/")).toList();
    assertThat(dataReads).hasSizeGreaterThanOrEqualTo(FILES);
    Map<String, Set<String>> keys = catalog.keysByPrincipal(dataReads);
    assertThat(keys.keySet()).as("every data file read as alice").containsExactly("alice");
    assertThat(keys.get("alice")).as("keys the data files were read with").hasSizeGreaterThanOrEqualTo(3);
  }

  /** Table b, vended to bob, is read as bob: each table as its own principal. */
  @Test
  @Order(2)
  void eachTableIsReadAsThePrincipalItWasVendedFor() {
    store.reset();
    List<Row> rows = rows("SELECT count(*), min(name) FROM rest.db.b");
    assertThat(rows.get(0).getLong(0)).isEqualTo((long) FILES * ROWS_PER_FILE);
    assertThat(rows.get(0).getString(1)).startsWith("b-");
    List<RequestInfo> reads = store.requests().stream() // the catalog server reads the metadata.json itself
        .filter(r -> r.isGet() && r.path().contains("/db/") && !r.path().endsWith(".metadata.json")).toList();
    assertThat(reads).isNotEmpty().allSatisfy(r -> assertThat(r.path()).contains("/db/b/"));
    assertThat(catalog.keysByPrincipal(reads).keySet()).containsExactly("bob");
  }

  /**
   * A FileIO the catalog vended alice's credential with reads table a and is refused table b's files, as S3
   * refuses alice: no other identity reads them instead. Through Iceberg's own REST client, as an engine
   * other than Spark would load the table.
   */
  @Test
  @Order(3)
  void aTablesFileIoIsRefusedAnotherTablesFilesAsS3RefusesItsPrincipal() throws IOException {
    try (RESTCatalog rest = new RESTCatalog()) {
      rest.initialize("rest", catalogProperties());
      Table a = rest.loadTable(TableIdentifier.of(Namespace.of("db"), "a"));
      Table b = rest.loadTable(TableIdentifier.of(Namespace.of("db"), "b"));
      assertThat(a.io()).isInstanceOf(SlipstreamFileIO.class);
      String aFile = firstDataFile(a);
      String bFile = firstDataFile(b);
      store.reset();
      try (SeekableInputStream in = a.io().newInputFile(aFile).newStream()) {
        assertThat(in.read()).isNotNegative();
      }
      byte[] buffer = new byte[100];
      Throwable t = catchThrowable(() -> {
        try (SeekableInputStream in = a.io().newInputFile(bFile).newStream()) {
          in.read(buffer);
        }
      });
      Throwable denied = t;
      while (denied != null && !(denied instanceof AccessDeniedException)) {
        denied = denied.getCause();
      }
      assertThat(denied).as("%s", t).isInstanceOf(AccessDeniedException.class);
      assertThat(denied.getMessage()).contains(bFile.substring("s3://".length()));
      assertThat(buffer).as("nothing copied").containsOnly(0);
      assertThat(catalog.keysByPrincipal(store.requests().stream()
          .filter(r -> !r.path().endsWith(".metadata.json")).toList()).keySet()).containsExactly("alice");
    }
  }

  private static String firstDataFile(Table table) throws IOException {
    try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
      return tasks.iterator().next().file().location();
    }
  }

  private static List<Row> rows(String sql) {
    return new ArrayList<>(spark.sql(sql).collectAsList());
  }
}
