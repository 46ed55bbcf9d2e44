/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.hadoop;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.slipstream.testkit.EmbeddedS3Server;
import dev.slipstream.testkit.ForkedS3Server;
import dev.slipstream.testkit.LinkProfile;
import dev.slipstream.testkit.LinkShaper;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.EtagSource;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.LocatedFileStatus;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.PathFilter;
import org.apache.hadoop.fs.RemoteIterator;
import org.apache.hadoop.fs.s3a.S3AFileSystem;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * Listing through {@link SlipstreamS3AFileSystem} against stock {@link S3AFileSystem}, side by side on
 * the same bucket of s3proxy (in-memory storage, exact S3 key semantics): the same paths, lengths,
 * kinds, ETags, owners, block sizes and dates, in the same order, and the same exceptions.
 */
@Timeout(300)
class ListingTest {
  static final String BUCKET = "listing-test";
  static final int PARTITIONS = 60;
  static ForkedS3Server server;
  static LinkShaper shaper;
  static FileSystem stock;
  static FileSystem slip;
  static final Map<String, Integer> KEYS = new LinkedHashMap<>();

  /**
   * A plain AWS SDK client of the embedded server, to put test data with: checksums only where required
   * (s3proxy does not take the newer SDKs' default ones).
   */
  static S3Client uploadClient(java.net.URI endpoint) {
    return S3Client.builder()
        .endpointOverride(endpoint)
        .region(Region.of(EmbeddedS3Server.REGION))
        .credentialsProvider(StaticCredentialsProvider.create(
            AwsBasicCredentials.create(EmbeddedS3Server.ACCESS_KEY, EmbeddedS3Server.SECRET_KEY)))
        .forcePathStyle(true)
        .requestChecksumCalculation(software.amazon.awssdk.core.checksums.RequestChecksumCalculation.WHEN_REQUIRED)
        .responseChecksumValidation(software.amazon.awssdk.core.checksums.ResponseChecksumValidation.WHEN_REQUIRED)
        .build();
  }

  static Configuration conf(URI endpoint, String impl) {
    Configuration conf = SlipstreamS3AFileSystemTest.confAt(endpoint);
    conf.set("fs.s3a.impl", impl);
    conf.setInt("fs.s3a.attempts.maximum", 1);
    conf.setInt("fs.s3a.retry.limit", 1);
    conf.set("fs.slipstream.retry.max", "1");
    return conf;
  }

  @BeforeAll
  static void setUp() throws Exception {
    server = ForkedS3Server.start(ForkedS3Server.Storage.TRANSIENT);
    server.createBucket(BUCKET);
    shaper = LinkShaper.start(server.endpoint(), LinkProfile.LOOPBACK, 5);
    key("file.txt", 11);
    key("deep/a/b/c/d/e/f.txt", 3);
    key("deep/a/b/x.txt", 4);
    key("deep/a/y.txt", 5);
    key("deep/a!sibling.txt", 2);
    key("shallow/one.txt", 7);
    key("markers/empty/", 0);
    key("markers/full/", 0);
    key("markers/full/f.txt", 9);
    key("markers/full/sub/", 0);
    key("special/a b/c d.txt", 1);
    key("special/100%/x%20y.txt", 2);
    key("special/é/日本語.txt", 3);
    key("special/plus+sign=1.txt", 4);
    key("s3n/old_$folder$", 0);
    key("s3n/real.txt", 6);
    for (int n : new int[] {999, 1000, 1001}) {
      for (int i = 0; i < n; i++) {
        key(String.format("p%d/f-%04d", n, i), i % 5);
      }
    }
    for (int d = 0; d < PARTITIONS; d++) {
      for (int f = 0; f < 6; f++) {
        key(String.format("parts/date=%03d/part-%d.csv", d, f), 1 + (d + f) % 9);
      }
    }
    key("parts/date=005/nested/x.csv", 8);
    key("parts/date=007/", 0);
    key("parts/_SUCCESS", 0);
    upload();
    stock = FileSystem.newInstance(URI.create("s3a://" + BUCKET + "/"),
        conf(server.endpoint(), S3AFileSystem.class.getName()));
    slip = FileSystem.newInstance(URI.create("s3a://" + BUCKET + "/"),
        conf(shaper.endpoint(), SlipstreamS3AFileSystem.class.getName()));
    assertThat(slip).isInstanceOf(SlipstreamS3AFileSystem.class);
    assertThat(stock.getClass()).isEqualTo(S3AFileSystem.class);
  }

  static void key(String key, int size) {
    KEYS.put(key, size);
  }

  static void upload() throws Exception {
    try (S3Client s3 = ListingTest.uploadClient(server.endpoint())) {
      ExecutorService pool = Executors.newFixedThreadPool(8);
      try {
        List<Future<?>> done = new ArrayList<>();
        for (Map.Entry<String, Integer> e : KEYS.entrySet()) {
          byte[] body = new byte[e.getValue()];
          Arrays.fill(body, (byte) e.getKey().hashCode());
          done.add(pool.submit(() -> s3.putObject(r -> r.bucket(BUCKET).key(e.getKey()), RequestBody.fromBytes(body))));
        }
        for (Future<?> f : done) {
          f.get();
        }
      } finally {
        pool.shutdown();
      }
    }
  }

  @AfterAll
  static void tearDown() throws IOException {
    for (AutoCloseable c : new AutoCloseable[] {stock, slip, shaper, server}) {
      if (c != null) {
        try {
          c.close();
        } catch (Exception e) {
          // best effort
        }
      }
    }
  }

  static Path path(String p) {
    return new Path("s3a://" + BUCKET + "/" + p);
  }

  /** What must be equal: path, kind, length, ETag, owner, block size and date of files. */
  static String describe(FileStatus s) {
    if (s.isDirectory()) {
      return "dir " + s.getPath();
    }
    String etag = s instanceof EtagSource e ? e.getEtag() : "no-etag-source";
    return "file " + s.getPath() + " len=" + s.getLen() + " etag=" + etag + " owner=" + s.getOwner()
        + " block=" + s.getBlockSize() + " mtime=" + s.getModificationTime() + " type=" + s.getClass().getSimpleName()
        + " located=" + (s instanceof LocatedFileStatus l ? l.getBlockLocations().length : -1);
  }

  static List<String> describe(FileStatus[] all) {
    return Arrays.stream(all).map(ListingTest::describe).toList();
  }

  static List<String> drain(RemoteIterator<LocatedFileStatus> it) throws IOException {
    List<String> out = new ArrayList<>();
    while (it.hasNext()) {
      out.add(describe(it.next()));
    }
    return out;
  }

  @ParameterizedTest
  @ValueSource(strings = {"", "deep", "deep/a", "shallow", "markers", "markers/full", "markers/empty", "special",
      "special/a b", "special/100%", "special/é", "s3n", "p999", "p1000", "p1001", "parts", "parts/date=007",
      "file.txt", "deep/a/y.txt"})
  void listFilesRecursiveEqualsS3As(String p) throws IOException {
    List<String> want = drain(stock.listFiles(path(p), true));
    List<String> got = drain(slip.listFiles(path(p), true));
    assertThat(got).isEqualTo(want);
    if (p.startsWith("p1") || p.isEmpty()) {
      assertThat(got).hasSizeGreaterThanOrEqualTo(999);
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"no/such/dir", "deep/a/b/c/d/e/f.txt/child", "parts/date=999"})
  void missingPathsAreFileNotFoundLikeS3A(String p) {
    assertThatThrownBy(() -> drain(stock.listFiles(path(p), true))).isInstanceOf(FileNotFoundException.class);
    assertThatThrownBy(() -> drain(slip.listFiles(path(p), true))).isInstanceOf(FileNotFoundException.class);
    Path[] paths = {path("parts/date=001"), path(p)};
    assertThatThrownBy(() -> stock.listStatus(paths)).isInstanceOf(FileNotFoundException.class);
    assertThatThrownBy(() -> slip.listStatus(paths)).isInstanceOf(FileNotFoundException.class);
  }

  @Test
  void listStatusOverManyPartitionsEqualsS3AsLoop() throws IOException {
    List<Path> dirs = new ArrayList<>();
    for (int d = PARTITIONS - 1; d >= 0; d -= 2) { // every other partition, in no particular order
      dirs.add(path(String.format("parts/date=%03d", d)));
    }
    dirs.add(path("parts/date=005")); // holds a subdirectory
    dirs.add(path("parts/date=007")); // has a marker too
    Path[] all = dirs.toArray(new Path[0]);
    assertThat(describe(slip.listStatus(all))).isEqualTo(describe(stock.listStatus(all)));
    PathFilter noFour = p -> !p.getName().contains("4");
    assertThat(describe(slip.listStatus(all, noFour))).isEqualTo(describe(stock.listStatus(all, noFour)));
  }

  @Test
  void listStatusOfMixedPathsEqualsS3As() throws IOException {
    Path[] mixed = {path("markers/empty"), path("file.txt"), path("special/a b"), path("special/100%"),
        path("special/é"), path("markers/full"), path("deep/a"), path("s3n"), path("p999"), path("p1001")};
    assertThat(describe(slip.listStatus(mixed))).isEqualTo(describe(stock.listStatus(mixed)));
    Path[] pages = {path("p1001"), path("p1000"), path("p999")};
    assertThat(describe(slip.listStatus(pages))).isEqualTo(describe(stock.listStatus(pages)));
    Path[] nested = {path("deep"), path("deep/a")}; // served by S3A's own loop
    assertThat(describe(slip.listStatus(nested))).isEqualTo(describe(stock.listStatus(nested)));
  }

  @Test
  void callsLeftToS3AStillAgree() throws IOException {
    for (String p : new String[] {"parts", "markers", "special", "file.txt"}) {
      assertThat(sorted(slip.listStatus(path(p)))).isEqualTo(sorted(stock.listStatus(path(p))));
      assertThat(drain(slip.listLocatedStatus(path(p)))).isEqualTo(drain(stock.listLocatedStatus(path(p))));
      assertThat(drain(slip.listFiles(path(p), false))).isEqualTo(drain(stock.listFiles(path(p), false)));
    }
    for (String glob : new String[] {"parts/date=00*", "parts/date=0[0-1]?/part-1.csv", "special/*/*", "no/*"}) {
      assertThat(sorted(slip.globStatus(path(glob)))).as(glob).isEqualTo(sorted(stock.globStatus(path(glob))));
    }
  }

  static List<String> sorted(FileStatus[] all) {
    return all == null ? null : describe(all).stream().sorted(Comparator.naturalOrder()).toList();
  }

  @Test
  void listedStatusesOpenWithoutAnyHead() throws Exception {
    long heads = shaper.requests("HEAD");
    long lists = shaper.requests("GET");
    List<LocatedFileStatus> files = new ArrayList<>();
    RemoteIterator<LocatedFileStatus> it = slip.listFiles(path("parts"), true);
    while (it.hasNext()) {
      files.add(it.next());
    }
    FileStatus[] statuses = slip.listStatus(new Path[] {path("parts/date=001"), path("parts/date=002")});
    assertThat(shaper.requests("HEAD")).isEqualTo(heads);
    assertThat(shaper.requests("GET") - lists).as("LIST requests").isLessThanOrEqualTo(1 + 4 + 1);
    List<FileStatus> toOpen = new ArrayList<>(files.subList(0, 5));
    toOpen.addAll(Arrays.asList(statuses));
    for (FileStatus st : toOpen) {
      try (FSDataInputStream in = slip.openFile(st.getPath()).withFileStatus(st).build().get()) {
        byte[] b = in.readAllBytes();
        assertThat(b.length).isEqualTo((int) st.getLen());
        String key = st.getPath().toUri().getPath().substring(1);
        if (b.length > 0) {
          assertThat(b[0]).isEqualTo((byte) key.hashCode());
        }
      }
    }
    assertThat(shaper.requests("HEAD")).as("HEAD requests at the server side").isEqualTo(heads);
  }

  @Test
  void forbiddenIsAccessDeniedLikeS3A() throws IOException {
    for (String impl : new String[] {S3AFileSystem.class.getName(), SlipstreamS3AFileSystem.class.getName()}) {
      Configuration bad = conf(server.endpoint(), impl);
      bad.set("fs.s3a.secret.key", "not-the-secret-of-this-server");
      try (FileSystem denied = FileSystem.newInstance(URI.create("s3a://" + BUCKET + "/"), bad)) {
        assertThatThrownBy(() -> drain(denied.listFiles(path("parts"), true))).as(impl)
            .isInstanceOf(AccessDeniedException.class)
            .hasMessageNotContaining("not-the-secret-of-this-server");
        assertThatThrownBy(() -> denied.listStatus(new Path[] {path("parts/date=001"), path("parts/date=002")}))
            .as(impl).isInstanceOf(AccessDeniedException.class);
      }
    }
  }

  @Test
  void partitionListingIsOneFlatStream() throws IOException {
    Path[] dirs = new Path[PARTITIONS];
    for (int d = 0; d < PARTITIONS; d++) {
      dirs[d] = path(String.format("parts/date=%03d", d));
    }
    long before = shaper.requests("GET");
    FileStatus[] got = slip.listStatus(dirs);
    assertThat(got).hasSize(PARTITIONS * 6 + 1);
    assertThat(shaper.requests("GET") - before).as("LIST requests for %d directories", PARTITIONS).isEqualTo(1);
    assertThat(new String(got[0].getPath().getName().getBytes(StandardCharsets.UTF_8), StandardCharsets.UTF_8))
        .isEqualTo("part-0.csv");
  }
}
