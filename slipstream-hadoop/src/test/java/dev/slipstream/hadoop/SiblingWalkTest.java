/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.hadoop;

import static org.assertj.core.api.Assertions.assertThat;

import dev.slipstream.testkit.FaultKind;
import dev.slipstream.testkit.ForkedS3Server;
import dev.slipstream.testkit.LinkProfile;
import dev.slipstream.testkit.LinkShaper;
import dev.slipstream.testkit.RequestInfo;
import java.io.IOException;
import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.s3a.S3AFileSystem;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * Walks over sibling directories ({@link SiblingWalks}) where the parent's flat listing cannot help:
 * refused by the bucket's policy, or reaching directories too large to keep. S3A's own listing of the
 * child answers then, and the walk never lists a key flat twice. Checked against stock S3A on one
 * s3proxy bucket; LIST requests are seen at the link shaper.
 */
@Timeout(300)
class SiblingWalkTest {
  static final String BUCKET = "walk-test";
  static final int DIRS = 40;
  /** Directories with more keys than one LIST page: a walk's flat listing never keeps them. */
  static final List<Integer> LARGE = List.of(10, 20);
  static final int LARGE_FILES = 1100;
  static ForkedS3Server server;
  static FileSystem stock;

  @BeforeAll
  static void setUp() throws Exception {
    server = ForkedS3Server.start(ForkedS3Server.Storage.TRANSIENT);
    server.createBucket(BUCKET);
    List<String> keys = new ArrayList<>();
    for (int d = 0; d < DIRS; d++) {
      int files = LARGE.contains(d) ? LARGE_FILES : 3;
      for (int f = 0; f < files; f++) {
        keys.add(String.format("w/d=%02d/f-%04d.csv", d, f));
      }
    }
    try (S3Client s3 = ListingTest.uploadClient(server.endpoint())) {
      ExecutorService pool = Executors.newFixedThreadPool(8);
      try {
        List<Future<?>> done = new ArrayList<>();
        for (String k : keys) {
          done.add(pool.submit(() -> s3.putObject(r -> r.bucket(BUCKET).key(k), RequestBody.fromString(k))));
        }
        for (Future<?> f : done) {
          f.get();
        }
      } finally {
        pool.shutdown();
      }
    }
    stock = FileSystem.newInstance(URI.create("s3a://" + BUCKET + "/"),
        ListingTest.conf(server.endpoint(), S3AFileSystem.class.getName()));
  }

  @AfterAll
  static void tearDown() {
    for (AutoCloseable c : new AutoCloseable[] {stock, server}) {
      if (c != null) {
        try {
          c.close();
        } catch (Exception e) {
          // best effort
        }
      }
    }
  }

  static Path dir(int d) {
    return new Path(String.format("s3a://%s/w/d=%02d", BUCKET, d));
  }

  static SlipstreamS3AFileSystem slipstreamThrough(LinkShaper shaper) throws IOException {
    return (SlipstreamS3AFileSystem) FileSystem.newInstance(URI.create("s3a://" + BUCKET + "/"),
        ListingTest.conf(shaper.endpoint(), SlipstreamS3AFileSystem.class.getName()));
  }

  /** The query parameters of a request, decoded. */
  static Map<String, String> params(RequestInfo r) {
    Map<String, String> out = new HashMap<>();
    if (r.query() != null) {
      for (String p : r.query().split("&")) {
        int eq = p.indexOf('=');
        String name = eq < 0 ? p : p.substring(0, eq);
        out.put(URLDecoder.decode(name, StandardCharsets.UTF_8),
            eq < 0 ? "" : URLDecoder.decode(p.substring(eq + 1), StandardCharsets.UTF_8));
      }
    }
    return out;
  }

  /** A LIST of everything under {@code w/}, no delimiter: a walk's flat listing of the parent. */
  static boolean flatListOfParent(RequestInfo r) {
    Map<String, String> p = params(r);
    return r.isGet() && "2".equals(p.get("list-type")) && "w/".equals(p.get("prefix"))
        && !p.containsKey("delimiter");
  }

  static void walkAlikeS3A(FileSystem fs) throws IOException {
    for (int d = 0; d < DIRS; d++) {
      assertThat(GlobListingTest.describe(fs.listStatus(dir(d)))).as(dir(d).toString())
          .isEqualTo(GlobListingTest.describe(stock.listStatus(dir(d))));
    }
  }

  @Test
  void aRefusedListingOfTheParentLeavesEachChildToS3A() throws Exception {
    // A policy granting s3:ListBucket only with s3:prefix under w/d=*/ refuses the walk's LIST of w/.
    try (LinkShaper shaper = LinkShaper.start(server.endpoint(), LinkProfile.LOOPBACK, 11);
        SlipstreamS3AFileSystem fs = slipstreamThrough(shaper)) {
      for (int i = 0; i < 10; i++) {
        shaper.injectNext(FaultKind.STATUS_403, SiblingWalkTest::flatListOfParent);
      }
      walkAlikeS3A(fs);
      assertThat(shaper.faultsInjected(FaultKind.STATUS_403)).as("refused, then not asked again in this walk")
          .isEqualTo(1);
    }
  }

  /** A LIST under {@code w/} with no delimiter: a flat listing, of the parent or of a glob's prefix. */
  static boolean flatListUnderW(RequestInfo r) {
    Map<String, String> p = params(r);
    String prefix = p.get("prefix");
    return r.isGet() && "2".equals(p.get("list-type")) && prefix != null && prefix.startsWith("w/")
        && !p.containsKey("delimiter");
  }

  @Test
  void aRefusedFlatListingLeavesListStatusOfManyPathsToS3A() throws Exception {
    Path[] dirs = new Path[9];
    for (int d = 0; d < dirs.length; d++) {
      dirs[d] = dir(d + 1);
    }
    try (LinkShaper shaper = LinkShaper.start(server.endpoint(), LinkProfile.LOOPBACK, 13);
        SlipstreamS3AFileSystem fs = slipstreamThrough(shaper)) {
      for (int i = 0; i < 10; i++) {
        shaper.injectNext(FaultKind.STATUS_403, SiblingWalkTest::flatListUnderW);
      }
      assertThat(GlobListingTest.describe(fs.listStatus(dirs)))
          .isEqualTo(GlobListingTest.describe(stock.listStatus(dirs)));
      assertThat(shaper.faultsInjected(FaultKind.STATUS_403)).as("the flat listing was refused").isPositive();
    }
  }

  @Test
  void aRefusedFlatListingLeavesTheGlobToS3A() throws Exception {
    Path pattern = new Path("s3a://" + BUCKET + "/w/d=0*");
    try (LinkShaper shaper = LinkShaper.start(server.endpoint(), LinkProfile.LOOPBACK, 14);
        SlipstreamS3AFileSystem fs = slipstreamThrough(shaper)) {
      for (int i = 0; i < 10; i++) {
        shaper.injectNext(FaultKind.STATUS_403, SiblingWalkTest::flatListUnderW);
      }
      assertThat(GlobListingTest.describe(fs.globStatus(pattern)))
          .isEqualTo(GlobListingTest.describe(stock.globStatus(pattern)));
      assertThat(shaper.faultsInjected(FaultKind.STATUS_403)).as("the flat listing was refused").isPositive();
    }
  }

  @Test
  void aWalkListsEachKeyFlatAtMostOnce() throws Exception {
    try (LinkShaper shaper = LinkShaper.start(server.endpoint(), LinkProfile.LOOPBACK, 12);
        SlipstreamS3AFileSystem fs = slipstreamThrough(shaper)) {
      walkAlikeS3A(fs);
      List<String> startedAt = new ArrayList<>();
      for (RequestInfo r : shaper.requestLog()) {
        String from = params(r).get("start-after");
        if (flatListOfParent(r) && from != null && from.matches("w/d=\\d\\d")) {
          startedAt.add(from);
        }
      }
      // From d=01, the walk's second call: 1,000 keys, into d=10. d=10, too large to keep, is S3A's, not
      // listed flat again at twice the keys; then from d=11 to the end (in two key ranges), where d=20 is
      // S3A's as well.
      assertThat(startedAt).as("flat listings of w/ by the key they start after")
          .contains("w/d=01", "w/d=11").doesNotContain("w/d=10", "w/d=20").doesNotHaveDuplicates();
    }
  }
}
