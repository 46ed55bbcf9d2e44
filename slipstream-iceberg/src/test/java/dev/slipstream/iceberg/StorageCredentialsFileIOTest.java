/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.iceberg;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.slipstream.Counter;
import dev.slipstream.ReadStatistics;
import dev.slipstream.Slipstream;
import dev.slipstream.testkit.RequestInfo;
import dev.slipstream.testkit.S3Wire;
import dev.slipstream.testkit.ScriptedS3Server;
import dev.slipstream.testkit.TestData;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.nio.file.AccessDeniedException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.iceberg.CatalogUtil;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.io.PositionOutputStream;
import org.apache.iceberg.io.SeekableInputStream;
import org.apache.iceberg.io.StorageCredential;
import org.apache.iceberg.io.SupportsStorageCredentials;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Per-prefix storage credentials (a REST catalog's {@code SupportsStorageCredentials}) reach both the reads
 * and the S3FileIO below: a path is read, written, deleted and listed as the principal of the credential
 * of the longest prefix it is under, and as the catalog properties' principal under none.
 *
 * <p>The FileIO is made as Iceberg's REST catalog makes it ({@code CatalogUtil.loadFileIO} with the
 * credentials, which hands them over before {@code initialize}). The scripted store tells principals
 * apart by the access key of each request's signature and enforces who may read what, as a KMS key policy
 * would: every object is under a KMS key, and a GET is refused ({@code 403 AccessDenied}) unless the
 * principal may read that object's prefix ({@link #RIGHTS}: {@code alice} table A, {@code bob} table B,
 * {@code carol}, the catalog properties' principal, only {@code other/}). It checks no signature: it shows who a
 * request claims to be, which is what the client chose.
 */
@Timeout(120)
class StorageCredentialsFileIOTest {
  static final String BUCKET = "lake";
  static final String TABLE_A = "s3://" + BUCKET + "/db/a/";
  static final String TABLE_B = "s3://" + BUCKET + "/db/b/";
  static final int BLOCK = 256 * 1024;
  static final int SIZE = 2 * BLOCK + 777;
  /** Principal to the keys (bucket/key) of the objects it may read. */
  static final Map<String, String> RIGHTS = Map.of("alice", BUCKET + "/db/a/", "bob", BUCKET + "/db/b/",
      "carol", BUCKET + "/other/");
  static ScriptedS3Server server;
  @TempDir Path tmp;

  @BeforeAll
  static void start() {
    server = ScriptedS3Server.start();
    server.denyKmsDecrypt(r -> {
      String allowed = RIGHTS.get(String.valueOf(S3Wire.accessKeyOf(r)));
      return allowed == null || !S3Wire.objectOf(r).startsWith(allowed);
    });
    System.setProperty("aws.accessKeyId", "carol");
    System.setProperty("aws.secretAccessKey", "carol-secret");
    server.putUnderKmsKey(BUCKET, "db/a/data.parquet", TestData.bytes(1, SIZE));
    server.putUnderKmsKey(BUCKET, "db/a/v1.metadata.json", TestData.bytes(2, 4000));
    server.putUnderKmsKey(BUCKET, "db/b/data.parquet", TestData.bytes(3, SIZE));
    server.putUnderKmsKey(BUCKET, "other/data.parquet", TestData.bytes(4, SIZE));
  }

  @AfterAll
  static void stop() {
    System.clearProperty("aws.accessKeyId");
    System.clearProperty("aws.secretAccessKey");
    server.close();
  }

  @BeforeEach
  void forget() {
    server.reset();
  }

  /**
   * Catalog properties that set no credentials: their principal is the AWS SDK's default chain's, carol
   * (Java system properties, the first place it looks). Not a {@code client.credentials-provider}: from
   * Iceberg 1.12 on, that one wins over a storage credential's keys.
   */
  private static Map<String, String> properties() {
    Map<String, String> p = new LinkedHashMap<>();
    p.put("s3.endpoint", server.endpoint().toString());
    p.put("s3.path-style-access", "true");
    p.put("client.region", "us-east-1");
    p.put("slipstream.block.size", String.valueOf(BLOCK));
    p.put("slipstream.memory.max", "16M");
    p.put("slipstream.cache.memory", "false");
    p.put("slipstream.cache.disk.mode", "off");
    return p;
  }

  /** A credential for {@code prefix} of static keys of {@code principal}, as a REST catalog vends them. */
  private static StorageCredential credential(String prefix, String principal) {
    return StorageCredential.create(prefix, Map.of("s3.access-key-id", principal,
        "s3.secret-access-key", principal + "-secret", "s3.session-token", principal + "-token"));
  }

  /** As Iceberg's REST catalog loads a table's FileIO: credentials first, then initialize. */
  private static FileIO load(Map<String, String> properties, List<StorageCredential> credentials) {
    return CatalogUtil.loadFileIO(SlipstreamFileIO.class.getName(), properties, null, credentials);
  }

  private static List<StorageCredential> tablesAandB() {
    return List.of(credential(TABLE_A, "alice"), credential(TABLE_B, "bob"));
  }

  private static byte[] read(InputFile file) throws IOException {
    try (SeekableInputStream in = file.newStream()) {
      return in.readAllBytes();
    }
  }

  /** Object (bucket/key) to the principals of its requests of {@code method}. */
  private static Map<String, Set<String>> principals(String method) {
    Map<String, Set<String>> by = new TreeMap<>();
    for (RequestInfo r : server.requests()) {
      if (r.method().equals(method)) {
        by.computeIfAbsent(S3Wire.objectOf(r), k -> new TreeSet<>())
            .add(String.valueOf(S3Wire.accessKeyOf(r)));
      }
    }
    return by;
  }

  /** A read of {@code path} is refused with an AccessDeniedException naming the object, and copies nothing. */
  private static void refused(FileIO io, String path) {
    byte[] b = new byte[1000];
    Throwable t = catchThrowable(() -> {
      try (SeekableInputStream in = io.newInputFile(path, SIZE).newStream()) {
        in.read(b, 0, b.length);
      }
    });
    Throwable denied = t;
    while (denied != null && !(denied instanceof AccessDeniedException)) {
      denied = denied.getCause();
    }
    assertThat(denied).as("%s", t).isInstanceOf(AccessDeniedException.class);
    assertThat(denied.getMessage()).contains(path.substring("s3://".length())).doesNotContain("-secret");
    assertThat(b).as("nothing copied to the caller").containsOnly(0);
  }

  @Test
  void eachTableIsReadAsItsPrefixsPrincipalAndOtherPathsAsTheCatalogs() throws IOException {
    FileIO loaded = load(properties(), tablesAandB());
    try (FileIO io = loaded) {
      byte[] a = read(io.newInputFile(TABLE_A + "data.parquet", SIZE));
      assertThat(TestData.firstMismatch(1, 0, a, 0, a.length)).isEqualTo(-1);
      InputFile metadata = io.newInputFile(TABLE_A + "v1.metadata.json");
      assertThat(metadata.getLength()).isEqualTo(4000);
      assertThat(read(metadata)).hasSize(4000);
      byte[] b = read(io.newInputFile(TABLE_B + "data.parquet"));
      assertThat(TestData.firstMismatch(3, 0, b, 0, b.length)).isEqualTo(-1);
      byte[] other = read(io.newInputFile("s3://" + BUCKET + "/other/data.parquet", SIZE));
      assertThat(TestData.firstMismatch(4, 0, other, 0, other.length)).isEqualTo(-1);
    }
    assertThat(principals("GET")).isEqualTo(Map.of(
        BUCKET + "/db/a/data.parquet", Set.of("alice"),
        BUCKET + "/db/a/v1.metadata.json", Set.of("alice"),
        BUCKET + "/db/b/data.parquet", Set.of("bob"),
        BUCKET + "/other/data.parquet", Set.of("carol")));
    assertThat(principals("HEAD")).as("a length asked for, and a Parquet file opened by path")
        .isEqualTo(Map.of(BUCKET + "/db/a/v1.metadata.json", Set.of("alice"), BUCKET + "/db/b/data.parquet", Set.of("bob")));
    assertThat(((SupportsStorageCredentials) loaded).credentials()).containsExactlyElementsOf(tablesAandB());
  }

  /**
   * Credentials set after {@code initialize} take effect (the clients are built anew, as S3FileIO rebuilds
   * its own); each prefix reads through one Slipstream client of its own, built at its first read.
   */
  @Test
  void credentialsSetAfterInitializeTakeEffectWithOneClientPerPrefix() throws IOException {
    try (SlipstreamFileIO io = new SlipstreamFileIO()) {
      io.initialize(properties());
      refused(io, TABLE_A + "data.parquet");
      io.setCredentials(tablesAandB());
      assertThat(io.credentials()).containsExactlyElementsOf(tablesAandB());
      byte[] a = read(io.newInputFile(TABLE_A + "data.parquet", SIZE));
      assertThat(TestData.firstMismatch(1, 0, a, 0, a.length)).isEqualTo(-1);
      Slipstream tableA = io.slipstream(TABLE_A + "data.parquet");
      assertThat(io.slipstream(TABLE_A + "v1.metadata.json")).isSameAs(tableA);
      assertThat(io.slipstream(TABLE_B + "data.parquet")).isNotSameAs(tableA).isNotSameAs(io.slipstream());
      assertThat(io.slipstream("s3://" + BUCKET + "/other/data.parquet")).isSameAs(io.slipstream());
    }
    assertThat(principals("GET")).isEqualTo(Map.of(BUCKET + "/db/a/data.parquet", Set.of("carol", "alice")));
  }

  /** The longest matching prefix wins, as in S3FileIO: a narrower credential inside table A's prefix. */
  @Test
  void theLongestMatchingPrefixsCredentialReads() {
    List<StorageCredential> credentials = List.of(credential(TABLE_A, "alice"),
        credential(TABLE_A + "data", "bob"));
    try (FileIO io = load(properties(), credentials)) {
      refused(io, TABLE_A + "data.parquet");
    }
    assertThat(principals("GET")).isEqualTo(Map.of(BUCKET + "/db/a/data.parquet", Set.of("bob")));
  }

  /**
   * A principal the store refuses is refused through the FileIO, cold and after another principal's
   * client filled the JVM's disk cache (shared by design) with that object: a catalog handing bob's
   * credential for table A.
   */
  @Test
  void aPrincipalTheStoreRefusesIsRefusedColdAndGetsNothingFromADiskCacheAnotherFilled() throws IOException {
    Map<String, String> p = properties();
    p.put("slipstream.cache.disk.mode", "all");
    p.put("slipstream.cache.disk.dir", tmp.resolve("cache").toString());
    String path = TABLE_A + "data.parquet";
    try (FileIO bob = load(p, List.of(credential(TABLE_A, "bob")))) {
      refused(bob, path);
    }
    try (FileIO alice = load(p, List.of(credential(TABLE_A, "alice")))) {
      byte[] all = read(alice.newInputFile(path, SIZE));
      assertThat(TestData.firstMismatch(1, 0, all, 0, all.length)).isEqualTo(-1);
      assertThat(Slipstream.awaitDiskCacheWrites(Duration.ofSeconds(30))).isTrue();
    }
    long diskHits = ReadStatistics.global().get(Counter.DISK_CACHE_HITS);
    try (FileIO bob = load(p, List.of(credential(TABLE_A, "bob")))) {
      refused(bob, path);
    }
    assertThat(ReadStatistics.global().get(Counter.DISK_CACHE_HITS)).as("no cached block served to bob")
        .isEqualTo(diskHits);
    assertThat(principals("GET")).isEqualTo(Map.of(BUCKET + "/db/a/data.parquet", Set.of("alice", "bob")));
  }

  /**
   * Writes, deletes and listings are S3FileIO's: with the credentials handed to it, they go as the prefix's
   * principal too. The scripted store stores nothing (it answers PUT and DELETE 405): what is checked is
   * who signed them.
   */
  @Test
  void writesDeletesAndListingsGoAsThePrefixsPrincipal() {
    try (FileIO io = load(properties(), tablesAandB())) {
      Throwable put = catchThrowable(() -> {
        try (PositionOutputStream out = io.newOutputFile(TABLE_A + "new.parquet").createOrOverwrite()) {
          out.write(new byte[] {1, 2, 3});
        }
      });
      assertThat(put).as("the store takes no PUT").isNotNull();
      assertThat(catchThrowable(() -> io.deleteFile(TABLE_B + "gone.parquet"))).isNotNull();
      assertThat(((org.apache.iceberg.io.SupportsPrefixOperations) io).listPrefix(TABLE_B)).isNotEmpty();
      assertThat(((org.apache.iceberg.io.SupportsPrefixOperations) io).listPrefix("s3://" + BUCKET + "/other/"))
          .isNotEmpty();
    }
    assertThat(principals("PUT")).isEqualTo(Map.of(BUCKET + "/db/a/new.parquet", Set.of("alice")));
    assertThat(principals("DELETE")).isEqualTo(Map.of(BUCKET + "/db/b/gone.parquet", Set.of("bob")));
    assertThat(server.requests().stream().filter(r -> r.isGet() && r.query() != null && r.query().contains("prefix="))
        .map(r -> r.query().contains("prefix=db%2Fb%2F") + ":" + S3Wire.accessKeyOf(r)).distinct().sorted())
        .containsExactly("false:carol", "true:bob");
  }

  /**
   * Spark gets the table's FileIO by Java serialization: the credentials travel, and a copy reads with
   * them. Copies share the JVM's clients per properties and credentials: a copy handed bob's credential
   * for table A does not read through the clients of a copy handed alice's.
   */
  @Test
  void aDeserializedCopyReadsWithTheCredentials() throws Exception {
    try (FileIO driver = load(properties(), tablesAandB());
         FileIO copy = copy(driver);
         FileIO bobsDriver = load(properties(), List.of(credential(TABLE_A, "bob")));
         FileIO bobsCopy = copy(bobsDriver)) {
      assertThat(((SupportsStorageCredentials) copy).credentials()).containsExactlyElementsOf(tablesAandB());
      byte[] a = read(copy.newInputFile(TABLE_A + "data.parquet", SIZE));
      assertThat(TestData.firstMismatch(1, 0, a, 0, a.length)).isEqualTo(-1);
      byte[] b = read(copy.newInputFile(TABLE_B + "data.parquet", SIZE));
      assertThat(TestData.firstMismatch(3, 0, b, 0, b.length)).isEqualTo(-1);
      byte[] other = read(copy.newInputFile("s3://" + BUCKET + "/other/data.parquet", SIZE));
      assertThat(TestData.firstMismatch(4, 0, other, 0, other.length)).isEqualTo(-1);
      refused(bobsCopy, TABLE_A + "data.parquet");
    }
    assertThat(principals("GET")).isEqualTo(Map.of(
        BUCKET + "/db/a/data.parquet", Set.of("alice", "bob"),
        BUCKET + "/db/b/data.parquet", Set.of("bob"),
        BUCKET + "/other/data.parquet", Set.of("carol")));
  }

  /** A credential S3FileIO cannot build a client from fails the reads under its prefix, naming it; others read. */
  @Test
  void aCredentialS3FileIoCannotBuildAClientFromFailsItsPrefixsReadsNamingIt() throws IOException {
    String broken = "s3://" + BUCKET + "/db/broken/";
    List<StorageCredential> credentials = List.of(credential(TABLE_A, "alice"),
        StorageCredential.create(broken, Map.of("client.credentials-provider", "com.example.NoSuchProvider")));
    try (FileIO io = load(properties(), credentials)) {
      Throwable t = catchThrowable(() -> read(io.newInputFile(broken + "data.parquet", SIZE)));
      assertThat(t).isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("'" + broken + "'").hasMessageContaining("com.example.NoSuchProvider");
      byte[] a = read(io.newInputFile(TABLE_A + "data.parquet", SIZE));
      assertThat(TestData.firstMismatch(1, 0, a, 0, a.length)).isEqualTo(-1);
    }
    assertThat(principals("GET")).isEqualTo(Map.of(BUCKET + "/db/a/data.parquet", Set.of("alice")));
  }

  private static FileIO copy(FileIO io) throws Exception {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
      out.writeObject(io);
    }
    try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(bytes.toByteArray()))) {
      return (FileIO) in.readObject();
    }
  }
}
