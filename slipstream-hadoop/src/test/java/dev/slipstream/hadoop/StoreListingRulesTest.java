/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.hadoop;

import static org.assertj.core.api.Assertions.assertThat;

import dev.slipstream.ReadPolicy;
import dev.slipstream.testkit.RequestInfo;
import dev.slipstream.testkit.ScriptedS3Server;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.function.Consumer;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.s3a.S3AFileSystem;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A store's listing rules, and S3A's settings of how listings are made, hold for Slipstream's own
 * requests (DESIGN §4 rule 9): {@code listFiles(recursive)}, {@code listStatus(Path[])} and
 * {@code globStatus} through {@link SlipstreamS3AFileSystem} give exactly what stock {@link S3AFileSystem}
 * gives on the same store, and the store sees only requests it takes.
 *
 * <p>No server that runs here enforces these rules (s3proxy lists a bucket named {@code --x-s3} as any
 * other, and knows ListObjectsV2), so the scripted store does, as AWS documents them: a directory bucket
 * (S3 Express One Zone) lists in no key order, refuses {@code StartAfter} and prefixes not ending in
 * {@code /} with 400, and knows no ListObjects v1; an old store
 * ({@link ScriptedS3Server#withoutListObjectsV2()}) refuses {@code list-type=2} with 400.
 */
@Timeout(180)
class StoreListingRulesTest {
  static final String PLAIN = "plain";
  static final String EXPRESS = "tables--use1-az4--x-s3";
  static final int PARTITIONS = 40;
  static final int FILES = 4;
  static ScriptedS3Server server;
  /** An old store: ListObjects v1 only. */
  static ScriptedS3Server old;
  static byte[] data;

  @BeforeAll
  static void start() {
    server = ScriptedS3Server.start();
    old = ScriptedS3Server.start().withoutListObjectsV2();
    data = new byte[3 * 1024 * 1024 + 5];
    new Random(5).nextBytes(data);
    for (ScriptedS3Server s : new ScriptedS3Server[] {server, old}) {
      for (String bucket : new String[] {PLAIN, EXPRESS}) {
        for (int d = 0; d < PARTITIONS; d++) {
          for (int f = 0; f < FILES; f++) {
            String key = String.format("table/date=%03d/part-%d.csv", d, f);
            s.put(bucket, key, key.getBytes(StandardCharsets.UTF_8));
          }
        }
        s.put(bucket, "table/date=007/nested/deeper.csv", new byte[7]);
        s.put(bucket, "table/_SUCCESS", new byte[0]);
        s.put(bucket, "data.bin", data);
      }
    }
  }

  @AfterAll
  static void stop() {
    server.close();
    old.close();
  }

  @BeforeEach
  void clean() {
    server.reset();
    old.reset();
  }

  static Configuration conf(ScriptedS3Server at, Class<?> impl) {
    return SlipstreamS3AFileSystemTest.scriptedConf(at, impl);
  }

  static FileSystem fs(String bucket, Configuration conf) throws IOException {
    return FileSystem.newInstance(URI.create("s3a://" + bucket + "/"), conf);
  }

  /** The three listings of split computation, described as ListingTest compares them, in the order given. */
  static List<String> listings(FileSystem fs, String bucket) throws IOException {
    List<String> out = new ArrayList<>();
    Path table = new Path("s3a://" + bucket + "/table");
    out.add("listFiles");
    out.addAll(ListingTest.drain(fs.listFiles(table, true)));
    Path[] dirs = new Path[PARTITIONS];
    for (int d = 0; d < PARTITIONS; d++) {
      dirs[d] = new Path(table, String.format("date=%03d", d));
    }
    out.add("listStatus(Path[])");
    out.addAll(ListingTest.describe(fs.listStatus(dirs)));
    out.add("globStatus");
    out.addAll(ListingTest.describe(fs.globStatus(new Path(table, "date=01*/part-*.csv"))));
    return out;
  }

  /** What stock S3A lists on {@code at} with {@code settings}, and then what Slipstream lists, side by side. */
  static void sameAsS3A(ScriptedS3Server at, String bucket, Consumer<Configuration> settings) throws IOException {
    Configuration stockConf = conf(at, S3AFileSystem.class);
    settings.accept(stockConf);
    List<String> want;
    try (FileSystem stock = fs(bucket, stockConf)) {
      want = listings(stock, bucket);
    }
    at.reset();
    Configuration slipConf = conf(at, SlipstreamS3AFileSystem.class);
    settings.accept(slipConf);
    try (FileSystem slip = fs(bucket, slipConf)) {
      assertThat(listings(slip, bucket)).containsExactlyElementsOf(want);
    }
    assertThat(want).hasSizeGreaterThan(PARTITIONS * FILES);
  }

  static List<RequestInfo> lists(ScriptedS3Server at) {
    return at.requests().stream().filter(r -> {
      String p = r.path().substring(1);
      int slash = p.indexOf('/');
      return r.isGet() && (slash < 0 || slash == p.length() - 1);
    }).toList();
  }

  static String param(RequestInfo r, String name) {
    if (r.query() == null) {
      return null;
    }
    for (String p : r.query().split("&")) {
      if (p.startsWith(name + "=")) {
        return java.net.URLDecoder.decode(p.substring(name.length() + 1), StandardCharsets.UTF_8);
      }
    }
    return null;
  }

  @Test
  void aDirectoryBucketIsListedAsS3AListsItWithOnlyRequestsItTakes() throws IOException {
    sameAsS3A(server, EXPRESS, c -> c.setInt("fs.s3a.paging.maximum", 50));
    // Before: the flat listings' StartAfter was refused with 400 (listStatus(Path[]) failed), or the
    // merge of key ranges of an unordered listing went wrong.
    assertThat(lists(server)).isNotEmpty().allSatisfy(r -> {
      assertThat(param(r, "start-after")).isNull();
      String prefix = param(r, "prefix");
      assertThat(prefix == null || prefix.isEmpty() || prefix.endsWith("/")).as(r.query()).isTrue();
    });
  }

  @Test
  void aDirectoryBucketGetsNoFlatListing() throws IOException {
    try (SlipstreamS3AFileSystem slip = (SlipstreamS3AFileSystem) fs(EXPRESS,
        conf(server, SlipstreamS3AFileSystem.class))) {
      assertThat(slip.listings().flatListings()).isFalse();
      assertThat(slip.listings().flatGlob()).isNull();
    }
    try (SlipstreamS3AFileSystem slip = (SlipstreamS3AFileSystem) fs(PLAIN,
        conf(server, SlipstreamS3AFileSystem.class))) {
      assertThat(slip.listings().flatListings()).isTrue();
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"fs.s3a.list.version", "fs.s3a.bucket." + PLAIN + ".list.version"})
  void withListVersion1TheStoreSeesOnlyListObjectsV1(String key) throws IOException {
    sameAsS3A(old, PLAIN, c -> c.setInt(key, 1));
    // Before: Slipstream's flat listings sent ListObjectsV2, which this store refuses with 400.
    assertThat(lists(old)).isNotEmpty().allSatisfy(r -> assertThat(param(r, "list-type")).as(r.query()).isNull());
  }

  @ParameterizedTest
  @ValueSource(strings = {"fs.s3a.paging.maximum", "fs.s3a.bucket." + PLAIN + ".paging.maximum"})
  void pagingMaximumIsThePageSizeOfEveryListRequest(String key) throws IOException {
    sameAsS3A(server, PLAIN, c -> c.setInt(key, 50));
    // Before: Slipstream's flat listings asked for 1,000 keys a page.
    List<RequestInfo> lists = lists(server);
    assertThat(lists).hasSizeGreaterThan(3).allSatisfy(r -> assertThat(param(r, "max-keys")).isEqualTo("50"));
  }

  @Test
  void aWalkOverSiblingDirectoriesListsOnePageOfPagingMaximumFirst() throws IOException {
    Path table = new Path("s3a://" + PLAIN + "/table");
    List<String> want = new ArrayList<>();
    Configuration stockConf = conf(server, S3AFileSystem.class);
    stockConf.setInt("fs.s3a.paging.maximum", 50);
    try (FileSystem stock = fs(PLAIN, stockConf)) {
      want.addAll(ListingTest.describe(stock.listStatus(new Path(table, "date=000"))));
      want.addAll(ListingTest.describe(stock.listStatus(new Path(table, "date=001"))));
    }
    Configuration conf = conf(server, SlipstreamS3AFileSystem.class);
    conf.setInt("fs.s3a.paging.maximum", 50);
    try (FileSystem slip = fs(PLAIN, conf)) {
      List<String> got = new ArrayList<>(ListingTest.describe(slip.listStatus(new Path(table, "date=000"))));
      server.reset();
      got.addAll(ListingTest.describe(slip.listStatus(new Path(table, "date=001"))));
      assertThat(got).containsExactlyElementsOf(want);
    }
    // The second sibling shows the walk: its parent is listed flat from it, one page of 50 keys, the cost of
    // the call it answers, and the listing's read-ahead of one more. Before: 1,000 keys, here the whole
    // rest of the parent, 4 requests of 50.
    List<RequestInfo> lists = lists(server);
    assertThat(lists).hasSizeBetween(1, 2).allSatisfy(r -> assertThat(param(r, "max-keys")).isEqualTo("50"));
    assertThat(param(lists.get(0), "start-after")).isEqualTo("table/date=001");
  }

  @Test
  void pagingMaximumAbove1000AsksFor1000() throws IOException {
    Configuration conf = conf(server, SlipstreamS3AFileSystem.class);
    conf.setInt("fs.s3a.paging.maximum", 5000);
    try (FileSystem slip = fs(PLAIN, conf)) {
      ListingTest.drain(slip.listFiles(new Path("s3a://" + PLAIN + "/table"), true));
    }
    assertThat(lists(server)).isNotEmpty().allSatisfy(r -> assertThat(param(r, "max-keys")).isEqualTo("1000"));
  }

  @Test
  void perBucketRequesterPaysLeavesEveryListingToS3A() throws IOException {
    Configuration conf = conf(server, SlipstreamS3AFileSystem.class);
    conf.setBoolean("fs.s3a.bucket." + PLAIN + ".requester.pays.enabled", true);
    try (SlipstreamS3AFileSystem slip = (SlipstreamS3AFileSystem) fs(PLAIN, conf)) {
      // Before: the raw configuration was read, without the bucket's setting: flat listings on.
      assertThat(slip.listings().flatListings()).isFalse();
      assertThat(slip.listings().flatGlob()).isNull();
    }
    sameAsS3A(server, PLAIN, c -> c.setBoolean("fs.s3a.bucket." + PLAIN + ".requester.pays.enabled", true));
    assertThat(lists(server)).isNotEmpty()
        .allSatisfy(r -> assertThat(r.header("x-amz-request-payer")).isEqualTo("requester"));
  }

  @Test
  void perBucketFadviseIsTheDefaultReadPolicy() throws IOException {
    Configuration conf = conf(server, SlipstreamS3AFileSystem.class);
    conf.set("fs.s3a.bucket." + PLAIN + ".experimental.input.fadvise", "random");
    try (SlipstreamS3AFileSystem slip = (SlipstreamS3AFileSystem) fs(PLAIN, conf)) {
      // Before: the raw configuration was read: adaptive.
      assertThat(slip.defaultPolicy()).isEqualTo(ReadPolicy.RANDOM);
      byte[] some = new byte[100];
      try (FSDataInputStream in = slip.open(new Path("s3a://" + PLAIN + "/data.bin"))) {
        in.readFully(0, some);
      }
      assertThat(some).isEqualTo(java.util.Arrays.copyOf(data, 100));
    }
    // A random read fetches what it needs, not the two blocks (1 MiB each here) a plain open ramps from.
    assertThat(server.requests().stream().filter(RequestInfo::isGet).filter(r -> r.range() != null))
        .isNotEmpty().allSatisfy(r -> assertThat(rangeLength(r.range())).isLessThan(1024 * 1024));
  }

  private static long rangeLength(String range) {
    String[] ends = range.substring("bytes=".length()).split("-");
    return Long.parseLong(ends[1]) - Long.parseLong(ends[0]) + 1;
  }

  @Test
  void readsOfADirectoryBucketMakeNoSessionWhenS3AIsToldNotTo() throws IOException {
    try (SlipstreamS3AFileSystem slip = (SlipstreamS3AFileSystem) fs(EXPRESS,
        conf(server, SlipstreamS3AFileSystem.class))) {
      assertThat(slip.readsThroughOwnClient()).isTrue();
      byte[] all = new byte[data.length];
      try (FSDataInputStream in = slip.open(new Path("s3a://" + EXPRESS + "/data.bin"))) {
        in.readFully(0, all);
      }
      assertThat(all).isEqualTo(data);
    }
    // Before: the reads client made S3 Express sessions regardless (CreateSession, which this store refuses).
    assertThat(server.requests()).noneMatch(r -> r.query() != null && r.query().startsWith("session"));
    assertThat(server.requests().stream().filter(RequestInfo::isGet)).isNotEmpty();
  }
}
