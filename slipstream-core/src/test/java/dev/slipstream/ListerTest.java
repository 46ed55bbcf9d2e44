/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.slipstream.internal.list.KeyOrder;
import dev.slipstream.testkit.FaultKind;
import dev.slipstream.testkit.LinkProfile;
import dev.slipstream.testkit.LinkShaper;
import dev.slipstream.testkit.S3ServerExtension;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The Lister against s3proxy: flat and merge-join listings give exactly the keys, sizes and ETags the
 * server holds, in key order; parallel key ranges give exactly the sequential result; LIST requests
 * stay within {@code ceil(keys / 1000) + ranges}; errors keep their types; transient ones are retried.
 */
@Timeout(180)
class ListerTest {
  @RegisterExtension static final S3ServerExtension S3 = new S3ServerExtension();
  static final String BUCKET = "listing";
  static final int DIRS = 300;
  static final int FILES_PER_DIR = 6;
  static final int FLAT = 2500;

  /** Every key of the bucket with its size, in S3's order. */
  static final Map<String, Integer> ALL = new TreeMap<>(KeyOrder.S3);
  static Slipstream client;

  @BeforeAll
  static void setUp() throws Exception {
    S3.server().createBucket(BUCKET);
    for (int d = 0; d < DIRS; d++) {
      for (int f = 0; f < FILES_PER_DIR; f++) {
        ALL.put(String.format("table/date=%04d/part-%d.csv", d, f), 10 + (d * 7 + f) % 50);
      }
    }
    // a subdirectory inside some partitions, and a file next to the partitions
    ALL.put("table/date=0010/sub/nested.csv", 5);
    ALL.put("table/date=0011/sub/deeper/x.csv", 6);
    ALL.put("table/_SUCCESS", 0);
    ALL.put("table/date=0012-old/part-0.csv", 3); // sorts between date=0012/ and date=0013/? no: '-' < '/'
    for (int i = 0; i < FLAT; i++) {
      ALL.put(String.format("flat/%05d", i * 40), i % 13);
    }
    ALL.put("other/a b/100%/é-日本.txt", 4);
    ExecutorService pool = Executors.newFixedThreadPool(8);
    try {
      List<Future<?>> done = new ArrayList<>();
      for (Map.Entry<String, Integer> e : ALL.entrySet()) {
        done.add(pool.submit(() -> S3.server().putObject(BUCKET, e.getKey(), body(e.getKey(), e.getValue()))));
      }
      for (Future<?> f : done) {
        f.get();
      }
    } finally {
      pool.shutdown();
    }
    client = Slipstream.builder().config(TestClients.config(S3.server()).build()).isolatedResources().build();
  }

  @AfterAll
  static void tearDown() {
    if (client != null) {
      client.close();
    }
  }

  static byte[] body(String key, int size) {
    byte[] b = new byte[size];
    byte[] k = key.getBytes(StandardCharsets.UTF_8);
    for (int i = 0; i < size; i++) {
      b[i] = k[i % k.length];
    }
    return b;
  }

  static List<String> expected(Predicate<String> keep) {
    return ALL.keySet().stream().filter(keep).toList();
  }

  static List<ListEntry> drain(Listing l) throws IOException {
    List<ListEntry> out = new ArrayList<>();
    try (l) {
      while (l.hasNext()) {
        out.add(l.next());
      }
    }
    return out;
  }

  /**
   * The keys of the objects listed. The embedded server keeps objects as files, and lists each directory
   * of its file system as a marker key ending in "/" (S3 itself has none unless someone made them): those
   * are not compared, but they are listed and counted like any key.
   */
  static List<String> keys(List<ListEntry> entries) {
    return entries.stream().filter(e -> !e.isDirectoryMarker()).map(ListEntry::key).toList();
  }

  static List<ListEntry> files(List<ListEntry> entries) {
    return entries.stream().filter(e -> !e.isDirectoryMarker()).toList();
  }

  static long maxLists(long keysListed, int ranges) {
    return (keysListed + 999) / 1000 + ranges;
  }

  @Test
  void smallPrefixIsOneRequestWithSizesAndEtags() throws IOException {
    Listing l = client.lister().list(BUCKET, "other/");
    List<ListEntry> got = files(drain(l));
    assertThat(keys(got)).containsExactly("other/a b/100%/é-日本.txt");
    ListEntry e = got.get(0);
    assertThat(e.size()).isEqualTo(4);
    assertThat(e.etag()).isNotBlank();
    assertThat(e.etag().replace("\"", "")).isEqualTo(S3.server().etag(BUCKET, e.key()).replace("\"", ""));
    assertThat(e.lastModified()).isNotNull();
    assertThat(l.statistics().get(Counter.LIST_REQUESTS)).isEqualTo(1);
    assertThat(l.ranges()).isEqualTo(1);
  }

  @Test
  void partitionedTreeInParallelRangesEqualsTheSequentialListing() throws IOException {
    List<String> want = expected(k -> k.startsWith("table/"));
    Listing seq = client.lister().list(BUCKET, "table/", 1);
    List<ListEntry> sequential = drain(seq);
    assertThat(keys(sequential)).isEqualTo(want);
    for (ListEntry e : files(sequential)) {
      assertThat(e.size()).as(e.key()).isEqualTo((long) ALL.get(e.key()));
    }
    Listing par = client.lister().list(BUCKET, "table/", 4);
    List<ListEntry> parallel = drain(par);
    assertThat(parallel).isEqualTo(sequential);
    assertThat(par.ranges()).isEqualTo(4);
    assertThat(par.statistics().get(Counter.LIST_REQUESTS)).isLessThanOrEqualTo(maxLists(sequential.size(), 4));
    assertThat(seq.statistics().get(Counter.LIST_REQUESTS)).isEqualTo((sequential.size() + 999) / 1000);
  }

  @Test
  void aListingAfterAKeyHasExactlyTheKeysThatSortAfterIt() throws IOException {
    String after = "table/date=0012";
    List<String> want = expected(k -> k.startsWith("table/") && KeyOrder.S3.compare(k, after) > 0);
    assertThat(want).first().as("date=0012-old sorts before date=0012/").isEqualTo("table/date=0012-old/part-0.csv");
    Listing seq = client.lister().listAfter(BUCKET, "table/", after, 1);
    assertThat(keys(drain(seq))).isEqualTo(want);
    // s3proxy ends a listing begun after a key with one more (empty) page: its truncation flag, not ours.
    assertThat(seq.statistics().get(Counter.LIST_REQUESTS)).as("keys " + want.size())
        .isBetween((long) (want.size() + 999) / 1000, (long) (want.size() + 999) / 1000 + 1);
    assertThat(keys(drain(client.lister().listAfter(BUCKET, "table/", after, 4)))).isEqualTo(want);
    assertThat(keys(drain(client.lister().listAfter(BUCKET, "table/", "table/zzz", 4)))).isEmpty();
    assertThatThrownBy(() -> client.lister().listAfter(BUCKET, "table/", "other/x", 1))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("other/x");
  }

  @Test
  void flatKeySpaceIsCutByItsCounterDigits() throws IOException {
    List<String> want = expected(k -> k.startsWith("flat/"));
    List<ListEntry> sequential = drain(client.lister().list(BUCKET, "flat/", 1));
    assertThat(keys(sequential)).isEqualTo(want);
    Listing par = client.lister().list(BUCKET, "flat/", 4);
    assertThat(drain(par)).isEqualTo(sequential);
    assertThat(par.ranges()).isGreaterThan(1);
    assertThat(par.statistics().get(Counter.LIST_REQUESTS)).isLessThanOrEqualTo(
        maxLists(sequential.size(), par.ranges()));
  }

  @Test
  void wholeBucketInParallelEqualsSequential() throws IOException {
    List<ListEntry> sequential = drain(client.lister().list(BUCKET, "", 1));
    assertThat(keys(sequential)).isEqualTo(List.copyOf(ALL.keySet()));
    for (int ranges : new int[] {2, 3, 7}) {
      Listing par = client.lister().list(BUCKET, "", ranges);
      assertThat(drain(par)).as("%d ranges", ranges).isEqualTo(sequential);
      assertThat(par.statistics().get(Counter.LIST_REQUESTS)).isLessThanOrEqualTo(
          maxLists(sequential.size(), ranges));
    }
  }

  @Test
  void mergeJoinReturnsOnlyTheDirectoriesOfInterest() throws IOException {
    List<String> dirs = new ArrayList<>();
    for (int d = 0; d < DIRS; d += 3) {
      dirs.add(String.format("table/date=%04d/", d));
    }
    dirs.add("table/date=0011/"); // has a subtree
    dirs.add("table/date=9999/"); // does not exist
    java.util.Collections.reverse(dirs); // order does not matter
    Predicate<String> direct = k -> dirs.contains(k.substring(0, k.lastIndexOf('/') + 1));
    Predicate<String> under = k -> dirs.stream().anyMatch(k::startsWith);
    long firstToLast = drain(client.lister().list(BUCKET, "table/date=", 1)).size();

    Listing seq = client.lister().listDirectories(BUCKET, dirs, false, 1);
    List<ListEntry> sequential = drain(seq);
    assertThat(keys(sequential)).isEqualTo(expected(direct));
    assertThat(keys(sequential)).doesNotContain("table/date=0011/sub/deeper/x.csv", "table/date=0012-old/part-0.csv");
    Listing par = client.lister().listDirectories(BUCKET, dirs, false, 4);
    assertThat(drain(par)).isEqualTo(sequential);
    assertThat(par.ranges()).isEqualTo(4);
    assertThat(par.statistics().get(Counter.LIST_REQUESTS)).isLessThanOrEqualTo(maxLists(firstToLast, 4));

    Listing rec = client.lister().listDirectories(BUCKET, dirs, true, 3);
    assertThat(keys(drain(rec))).isEqualTo(expected(under)).contains("table/date=0011/sub/deeper/x.csv");
  }

  @Test
  void mergeJoinStopsAfterTheLastDirectory() throws IOException {
    Listing l = client.lister().listDirectories(BUCKET, List.of("table/date=0001/", "table/date=0003/"), false);
    assertThat(keys(drain(l))).isEqualTo(expected(k -> k.startsWith("table/date=0001/") || k.startsWith("table/date=0003/")));
    assertThat(l.statistics().get(Counter.LIST_REQUESTS)).isEqualTo(1);
  }

  @Test
  void listedEntriesOpenWithoutHead() throws IOException {
    String key = "other/a b/100%/é-日本.txt";
    List<ListEntry> got = files(drain(client.lister().list(BUCKET, "other/")));
    long heads = client.statistics().get(Counter.HEAD_REQUESTS);
    try (SlipstreamInputStream in = client.open(new S3Location(BUCKET, key), got.get(0).openOptions())) {
      assertThat(in.readAllBytes()).isEqualTo(body(key, 4));
    }
    assertThat(client.statistics().get(Counter.HEAD_REQUESTS)).isEqualTo(heads);
  }

  @Test
  void missingPrefixIsEmptyAndMissingBucketIsFileNotFound() throws IOException {
    assertThat(drain(client.lister().list(BUCKET, "no/such/prefix/"))).isEmpty();
    assertThatThrownBy(() -> drain(client.lister().list("no-such-bucket", "x/")))
        .isInstanceOf(FileNotFoundException.class).hasMessageContaining("no-such-bucket");
  }

  @Test
  void forbiddenIsAccessDeniedWithoutTheSecret() {
    SlipstreamConfig bad = TestClients.config(S3.server()).set("secret.key", "wrong-secret-for-this-test").build();
    try (Slipstream denied = Slipstream.builder().config(bad).isolatedResources().build()) {
      assertThatThrownBy(() -> drain(denied.lister().list(BUCKET, "table/")))
          .isInstanceOf(AccessDeniedException.class)
          .hasMessageContaining(BUCKET)
          .hasMessageNotContaining("wrong-secret-for-this-test");
    }
  }

  @Test
  void transientErrorsAreRetriedAndCounted() throws IOException {
    try (LinkShaper shaper = LinkShaper.start(S3.server().endpoint(), LinkProfile.LOOPBACK, 11)) {
      SlipstreamConfig config = TestClients.config(shaper.endpoint()).set("retry.interval", "5ms").build();
      try (Slipstream c = Slipstream.builder().config(config).isolatedResources().build()) {
        Predicate<dev.slipstream.testkit.RequestInfo> list = r -> r.isGet() && r.query() != null
            && r.query().contains("list-type=2");
        shaper.injectNext(FaultKind.STATUS_503, list);
        shaper.injectNext(FaultKind.STATUS_500, list);
        Listing l = c.lister().list(BUCKET, "table/", 2);
        assertThat(keys(drain(l))).isEqualTo(expected(k -> k.startsWith("table/")));
        assertThat(l.statistics().get(Counter.RETRIES)).isEqualTo(2);
        assertThat(l.statistics().retries(RetryCause.THROTTLED)).isEqualTo(1);
        assertThat(l.statistics().retries(RetryCause.SERVER_ERROR)).isEqualTo(1);
        assertThat(shaper.faultsInjected()).isEqualTo(2);
      }
    }
  }

  @Test
  void closingEarlyStopsTheListingAndItsThreadsEnd() throws Exception {
    SlipstreamConfig config = TestClients.config(S3.server()).build();
    try (Slipstream c = Slipstream.builder().config(config).isolatedResources().build()) {
      Listing l = c.lister().list(BUCKET, "", 4);
      assertThat(l.hasNext()).isTrue();
      l.next();
      l.close();
      assertThatThrownBy(l::hasNext).isInstanceOf(IOException.class).hasMessageContaining("closed");
      long after = l.statistics().get(Counter.LIST_REQUESTS);
      // bounded read-ahead: nowhere near the whole bucket was listed
      assertThat(after).isLessThanOrEqualTo(4 * 3 + 2);
    }
    // listing threads end when their client closes, or after a few idle seconds (the shared test client's)
    LeakTest.eventually("listing threads ended", () -> Thread.getAllStackTraces().keySet().stream()
        .noneMatch(t -> t.getName().startsWith("slipstream-list-") && t.isAlive()));
  }

  @Test
  void invalidArgumentsAreRejectedNamingThem() {
    assertThatThrownBy(() -> client.lister().listDirectories(BUCKET, List.of("table/date=0001"), false))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("table/date=0001");
    assertThatThrownBy(() -> client.lister().listDirectories(BUCKET, List.of(), false))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> client.lister().list(BUCKET, "x", 0)).hasMessageContaining("0");
  }

  @Test
  void keyOrderIsCodePointOrder() {
    String bmpHigh = "\uFF5E"; // U+FF5E, above the surrogates in UTF-16
    String astral = new String(Character.toChars(0x1F600)); // a surrogate pair in UTF-16
    assertThat(bmpHigh.compareTo(astral)).isPositive(); // Java's order
    assertThat(KeyOrder.compare(bmpHigh, astral)).isNegative(); // S3's (UTF-8 bytes) order
    assertThat(KeyOrder.commonPrefix("a" + astral, "a" + new String(Character.toChars(0x1F601)))).isEqualTo("a");
  }
}
