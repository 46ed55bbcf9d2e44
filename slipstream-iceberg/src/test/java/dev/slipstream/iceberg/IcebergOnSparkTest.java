/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.iceberg;

import static org.assertj.core.api.Assertions.assertThat;

import dev.slipstream.Counter;
import dev.slipstream.ReadStatistics;
import dev.slipstream.testkit.RequestInfo;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.aws.s3.S3FileIO;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.data.parquet.GenericParquetWriter;
import org.apache.iceberg.deletes.EqualityDeleteWriter;
import org.apache.iceberg.io.FileInfo;
import org.apache.iceberg.io.OutputFile;
import org.apache.iceberg.parquet.Parquet;
import org.apache.iceberg.spark.Spark3Util;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Iceberg tables through Spark with SlipstreamFileIO as the catalog's {@code io-impl}, against the same
 * tables read through Iceberg's S3FileIO: Spark 4.0 with iceberg-spark-runtime-4.0 (the Iceberg and Spark
 * versions are the module's {@code iceberg.version} and {@code iceberg.spark.version}).
 *
 * <p>One Spark session, two catalogs, each Iceberg's JDBC catalog on an SQLite file of its own (no
 * server): {@code ss} reads through Slipstream, {@code s3} through S3FileIO. Tables are written through
 * {@code ss}; each comparison registers the table's current metadata file in {@code s3}
 * ({@code register_table}) and compares the rows both read.
 */
class IcebergOnSparkTest {
  private static final String BUCKET = "lake";
  private static TestServer s3;
  private static SparkSession spark;

  @BeforeAll
  static void start() throws IOException {
    s3 = new TestServer(BUCKET);
    Path dir = Files.createDirectories(Path.of("target", "iceberg-on-spark-" + System.nanoTime()));
    SparkSession.Builder b = SparkSession.builder()
        .master("local[2]")
        .appName("iceberg-on-spark")
        .config("spark.ui.enabled", "false")
        .config("spark.driver.host", "127.0.0.1")
        .config("spark.driver.bindAddress", "127.0.0.1")
        .config("spark.sql.shuffle.partitions", "2")
        .config("spark.sql.extensions", "org.apache.iceberg.spark.extensions.IcebergSparkSessionExtensions");
    catalog(b, "ss", SlipstreamFileIO.class.getName(), dir);
    // A SlipstreamFileIO whose client keeps no answer (access.ttl=0): every open by path asks S3 anew, as a
    // new job's does, so no read of the same file a moment earlier hides what an open costs.
    catalog(b, "fresh", SlipstreamFileIO.class.getName(), dir);
    b.config("spark.sql.catalog.fresh.slipstream.access.ttl", "0");
    b.config("spark.sql.catalog.fresh.slipstream.block.size", "1M");
    catalog(b, "s3", S3FileIO.class.getName(), dir);
    b.config("spark.sql.catalog.ss.slipstream.block.size", "1M");
    spark = b.getOrCreate();
    spark.sql("CREATE NAMESPACE ss.db");
    spark.sql("CREATE NAMESPACE s3.db");
    spark.sql("CREATE NAMESPACE fresh.db");
  }

  private static void catalog(SparkSession.Builder b, String name, String io, Path dir) {
    String p = "spark.sql.catalog." + name;
    b.config(p, "org.apache.iceberg.spark.SparkCatalog")
        .config(p + ".type", "jdbc")
        .config(p + ".uri", "jdbc:sqlite:" + dir.toAbsolutePath().resolve(name + ".db"))
        .config(p + ".jdbc.schema-version", "V1")
        .config(p + ".warehouse", "s3://" + BUCKET + "/" + name)
        .config(p + ".cache-enabled", "false")
        .config(p + ".io-impl", io);
    for (Map.Entry<String, String> e : s3.catalogProperties().entrySet()) {
      b.config(p + "." + e.getKey(), e.getValue());
    }
  }

  @AfterAll
  static void stop() {
    if (spark != null) {
      spark.stop();
      SparkSession.clearActiveSession();
      SparkSession.clearDefaultSession();
    }
    if (s3 != null) {
      s3.close();
    }
  }

  @Test
  void aTableWrittenAndReadThroughSlipstreamReadsTheSameThroughS3FileIo() throws Exception {
    spark.sql("CREATE TABLE ss.db.events (id BIGINT, name STRING, part INT) USING iceberg PARTITIONED BY (part)");
    spark.sql("INSERT INTO ss.db.events SELECT id, concat('name-', id), CAST(id % 3 AS INT) FROM range(0, 3000)");
    spark.sql("INSERT INTO ss.db.events SELECT id, concat('more-', id), CAST(id % 3 AS INT) FROM range(3000, 3500)");
    assertThat(table("ss.db.events").io()).isInstanceOf(SlipstreamFileIO.class);

    long fetched = ReadStatistics.global().get(Counter.BYTES_FETCHED);
    List<Row> slipstream = rows("SELECT * FROM ss.db.events ORDER BY id");
    assertThat(ReadStatistics.global().get(Counter.BYTES_FETCHED)).as("read through Slipstream").isGreaterThan(fetched);

    assertThat(slipstream).hasSize(3500);
    String s3Name = registered("events");
    assertThat(rows("SELECT * FROM " + s3Name + " ORDER BY id")).isEqualTo(slipstream);
    String aggregate = "SELECT part, count(*), max(id) FROM %s WHERE id >= 100 GROUP BY part ORDER BY part";
    assertThat(rows(String.format(aggregate, "ss.db.events"))).isEqualTo(rows(String.format(aggregate, s3Name)));
  }

  @Test
  void mergeOnReadWithPositionAndEqualityDeletes() throws Exception {
    spark.sql("CREATE TABLE ss.db.mor (id BIGINT, data STRING) USING iceberg TBLPROPERTIES ("
        + "'format-version'='2', 'write.delete.mode'='merge-on-read', 'write.update.mode'='merge-on-read',"
        + " 'write.merge.mode'='merge-on-read')");
    spark.sql("INSERT INTO ss.db.mor SELECT id, concat('d', id) FROM range(0, 200)");
    spark.sql("DELETE FROM ss.db.mor WHERE id % 10 = 0"); // position deletes
    spark.sql("UPDATE ss.db.mor SET data = 'updated' WHERE id = 5");

    Table table = table("ss.db.mor");
    Schema idOnly = table.schema().select("id");
    OutputFile out = table.io().newOutputFile(table.locationProvider().newDataLocation("eq-deletes-0.parquet"));
    EqualityDeleteWriter<Record> writer = Parquet.writeDeletes(out).forTable(table)
        .withSpec(PartitionSpec.unpartitioned()).rowSchema(idOnly)
        .createWriterFunc(GenericParquetWriter::create)
        .equalityFieldIds(idOnly.findField("id").fieldId()).overwrite().buildEqualityWriter();
    Record id = GenericRecord.create(idOnly);
    try (EqualityDeleteWriter<Record> w = writer) {
      for (long deleted : new long[] {7, 8, 151}) {
        w.write(id.copy(Map.of("id", deleted)));
      }
    }
    DeleteFile equalityDeletes = writer.toDeleteFile();
    table.newRowDelta().addDeletes(equalityDeletes).commit();

    assertThat(rows("SELECT DISTINCT content FROM ss.db.mor.delete_files ORDER BY content"))
        .extracting(r -> r.getInt(0)).as("position (1) and equality (2) deletes").containsExactly(1, 2);
    List<Row> slipstream = rows("SELECT * FROM ss.db.mor ORDER BY id");
    Set<Long> ids = new HashSet<>();
    slipstream.forEach(r -> ids.add(r.getLong(0)));
    assertThat(ids).hasSize(200 - 20 - 3).doesNotContain(0L, 10L, 7L, 8L, 151L).contains(5L, 6L, 152L);
    assertThat(slipstream).filteredOn(r -> r.getLong(0) == 5).extracting(r -> r.getString(1)).containsExactly("updated");
    assertThat(rows("SELECT * FROM " + registered("mor") + " ORDER BY id")).isEqualTo(slipstream);
  }

  @Test
  void schemaEvolution() throws Exception {
    spark.sql("CREATE TABLE ss.db.evolving (id BIGINT, name STRING) USING iceberg");
    spark.sql("INSERT INTO ss.db.evolving SELECT id, concat('n', id) FROM range(0, 100)");
    spark.sql("ALTER TABLE ss.db.evolving ADD COLUMN score DOUBLE");
    spark.sql("ALTER TABLE ss.db.evolving RENAME COLUMN name TO label");
    spark.sql("ALTER TABLE ss.db.evolving ALTER COLUMN id AFTER score");
    spark.sql("INSERT INTO ss.db.evolving SELECT concat('m', id), id * 0.5, id FROM range(100, 150)");
    spark.sql("ALTER TABLE ss.db.evolving DROP COLUMN label");

    List<Row> slipstream = rows("SELECT * FROM ss.db.evolving ORDER BY id");
    assertThat(slipstream).hasSize(150);
    assertThat(spark.table("ss.db.evolving").columns()).containsExactly("score", "id");
    assertThat(slipstream.get(0).isNullAt(0)).as("a row written before the column was added").isTrue();
    assertThat(slipstream.get(149).getDouble(0)).isEqualTo(74.5);
    assertThat(rows("SELECT * FROM " + registered("evolving") + " ORDER BY id")).isEqualTo(slipstream);
  }

  @Test
  void metadataTablesReadThroughSlipstreamAsThroughS3FileIo() throws Exception {
    spark.sql("CREATE TABLE ss.db.meta (id BIGINT, v STRING) USING iceberg");
    for (int i = 0; i < 3; i++) {
      spark.sql("INSERT INTO ss.db.meta SELECT id, 'v' FROM range(" + i * 100 + ", " + (i + 1) * 100 + ")");
    }
    assertThat(rows("SELECT count(*) FROM ss.db.meta.snapshots").get(0).getLong(0)).isEqualTo(3);
    assertThat(rows("SELECT sum(record_count) FROM ss.db.meta.files").get(0).getLong(0)).isEqualTo(300);
    String s3Name = registered("meta");
    for (String query : new String[] {
        "SELECT snapshot_id, parent_id, operation FROM %s.snapshots ORDER BY committed_at",
        "SELECT file_path, record_count, file_size_in_bytes FROM %s.files ORDER BY file_path",
        "SELECT path, added_data_files_count FROM %s.manifests ORDER BY path",
        "SELECT made_current_at, snapshot_id FROM %s.history ORDER BY made_current_at"}) {
      List<Row> slipstream = rows(String.format(query, "ss.db.meta"));
      assertThat(slipstream).as(query).isNotEmpty();
      assertThat(rows(String.format(query, s3Name))).as(query).isEqualTo(slipstream);
    }
  }

  @Test
  void expireSnapshotsDeletesThroughTheFileIo() throws Exception {
    spark.sql("CREATE TABLE ss.db.expiring (id BIGINT) USING iceberg");
    for (int i = 0; i < 3; i++) {
      spark.sql("INSERT OVERWRITE ss.db.expiring SELECT id FROM range(0, " + (10 + i) + ")");
    }
    Table table = table("ss.db.expiring");
    String data = table.location() + "/data/";
    Set<String> before = listed(table, data);
    s3.shaper.clearRequestLog();

    Row result = rows("CALL ss.system.expire_snapshots(table => 'db.expiring', older_than => TIMESTAMP '"
        + java.time.LocalDateTime.now().plusMinutes(1) + "', retain_last => 1)").get(0);

    long deletedDataFiles = result.getLong(result.fieldIndex("deleted_data_files_count"));
    assertThat(deletedDataFiles).isPositive();
    assertThat(result.getLong(result.fieldIndex("deleted_manifest_lists_count"))).isEqualTo(2);
    assertThat(s3.shaper.requestLog()).as("S3FileIO's bulk delete")
        .anySatisfy(r -> assertThat(r.method() + " " + r.query()).startsWith("POST").contains("delete"));
    Set<String> after = listed(table, data);
    assertThat(before.size() - after.size()).isEqualTo(deletedDataFiles);
    assertThat(rows("SELECT count(*) FROM ss.db.expiring").get(0).getLong(0)).isEqualTo(12);
    assertThat(rows("SELECT count(*) FROM ss.db.expiring.snapshots").get(0).getLong(0)).isEqualTo(1);
  }

  /**
   * Rule 5 through Iceberg: a columnar read fetches the footer and the chunks it needs, no more requests; and
   * the table's metadata costs no HEAD, whether Iceberg gives the length (manifests) or not (the
   * metadata.json and manifest list, whose first GET says it).
   */
  @Test
  void aProjectedQueryMakesNoHeadAndNoMoreRequestsPerDataFileThanS3FileIo() throws Exception {
    spark.sql("CREATE TABLE ss.db.wide (id BIGINT, a DOUBLE, b STRING, c BIGINT, d STRING) USING iceberg");
    spark.sql("INSERT INTO ss.db.wide SELECT /*+ REPARTITION(4) */ id, rand(1) * id, sha2(CAST(id AS STRING), 256),"
        + " id * 7, uuid() FROM range(0, 200000)");
    String s3Name = registered("wide");
    String freshName = registered("wide", "fresh");
    String query = "SELECT sum(c), count(*) FROM %s WHERE id %% 3 = 0";

    s3.shaper.clearRequestLog();
    List<Row> slipstream = rows(String.format(query, freshName));
    List<RequestInfo> slipstreamRequests = dataFileRequests("/wide/data/");
    List<RequestInfo> metadataRequests = s3.shaper.requestLog().stream()
        .filter(r -> r.path().contains("/wide/metadata/")).toList();
    s3.shaper.clearRequestLog();
    List<Row> s3FileIo = rows(String.format(query, s3Name));
    List<RequestInfo> s3FileIoRequests = dataFileRequests("/wide/data/");

    assertThat(slipstream).isEqualTo(s3FileIo);
    assertThat(slipstreamRequests).as("no HEAD: Iceberg knows each data file's length")
        .noneMatch(RequestInfo::isHead);
    assertThat(metadataRequests).as("the metadata.json, manifest list and manifests read")
        .anySatisfy(r -> assertThat(r.path()).endsWith(".metadata.json"))
        .anySatisfy(r -> assertThat(r.path()).contains("/snap-"));
    assertThat(metadataRequests).as("no HEAD for metadata: Iceberg knows a manifest's length, and the first GET of"
        + " a metadata.json or manifest list says the file's").noneMatch(RequestInfo::isHead);
    assertThat(slipstreamRequests).as("every GET names its end").allSatisfy(r ->
        assertThat(r.range()).matches("bytes=\\d+-\\d+"));
    // Seen: 3 GETs per file (the footer, two column chunks, each its exact range) where S3FileIO makes 4, open-ended.
    assertThat(slipstreamRequests.size()).isLessThanOrEqualTo(s3FileIoRequests.size());
  }

  private static List<RequestInfo> dataFileRequests(String pathPart) {
    List<RequestInfo> found = new ArrayList<>();
    for (RequestInfo r : s3.shaper.requestLog()) {
      if (r.path().contains(pathPart) && r.path().endsWith(".parquet")) {
        found.add(r);
      }
    }
    return found;
  }

  private static Set<String> listed(Table table, String prefix) {
    Set<String> paths = new HashSet<>();
    for (FileInfo f : ((SlipstreamFileIO) table.io()).listPrefix(prefix)) {
      paths.add(f.location());
    }
    return paths;
  }

  private static Table table(String name) throws Exception {
    return Spark3Util.loadIcebergTable(spark, name);
  }

  /** Registers the current metadata of {@code ss.db.<name>} in the S3FileIO catalog; returns the name there. */
  private static String registered(String name) throws Exception {
    return registered(name, "s3");
  }

  /** Registers the current metadata of {@code ss.db.<name>} in {@code catalog}; returns the name there. */
  private static String registered(String name, String catalog) throws Exception {
    String metadata = ((HasTableOperations) table("ss.db." + name)).operations().current().metadataFileLocation();
    String registered = name + "_" + Math.abs(metadata.hashCode());
    spark.sql("CALL " + catalog + ".system.register_table(table => 'db." + registered + "', metadata_file => '"
        + metadata + "')");
    return catalog + ".db." + registered;
  }

  private static List<Row> rows(String sql) {
    return new ArrayList<>(spark.sql(sql).collectAsList());
  }
}
