/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.slipstream.testkit.FaultKind;
import dev.slipstream.testkit.LinkProfile;
import dev.slipstream.testkit.LinkShaper;
import dev.slipstream.testkit.S3ServerExtension;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.util.ArrayList;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.TreeSet;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@link Lister#listLevel} against s3proxy: one level's objects and common prefixes, exactly those a
 * delimiter listing of the keys gives, page by page, one LIST per page; errors keep their types.
 */
@Timeout(120)
class LevelListingTest {
  @RegisterExtension static final S3ServerExtension S3 = new S3ServerExtension();
  static final String BUCKET = "level";
  /** More children than one page holds (1,000): objects directly in many/ and ten "subdirectories". */
  static final int MANY = 1_200;
  static final int SUBDIRS = 10;

  static final TreeSet<String> KEYS = new TreeSet<>(S3KeyOrder.COMPARATOR);
  static Slipstream client;

  @BeforeAll
  static void setUp() throws Exception {
    S3.server().createBucket(BUCKET);
    KEYS.addAll(List.of("logs/a.csv", "logs.csv", "logs2/x", "logs/2024/x", "logs/2025/y", "logs/2025/z/w"));
    for (int i = 0; i < MANY; i++) {
      KEYS.add(String.format("many/k%04d", i));
    }
    for (int i = 0; i < SUBDIRS; i++) {
      KEYS.add(String.format("many/k%04d-sub/f", i * 100));
    }
    ExecutorService pool = Executors.newFixedThreadPool(8);
    try {
      List<Future<?>> done = new ArrayList<>();
      for (String k : KEYS) {
        done.add(pool.submit(() -> S3.server().putObject(BUCKET, k, new byte[k.length()])));
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

  /** The children of {@code prefix} that a delimiter listing gives: keys, and prefixes up to the next "/". */
  static List<String> expected(String prefix) {
    TreeSet<String> out = new TreeSet<>(S3KeyOrder.COMPARATOR);
    for (String k : KEYS) {
      if (k.startsWith(prefix)) {
        int slash = k.indexOf('/', prefix.length());
        out.add(slash < 0 ? k : k.substring(0, slash + 1));
      }
    }
    return List.copyOf(out);
  }

  /**
   * Every child listed, each page merged in key order, pages concatenated. The embedded server lists its
   * directories as marker keys ending in "/" (ListerTest says more); those directly under the prefix are
   * objects of the level, and not compared.
   */
  static List<String> children(List<LevelPage> pages) {
    List<String> out = new ArrayList<>();
    for (LevelPage p : pages) {
      TreeSet<String> page = new TreeSet<>(S3KeyOrder.COMPARATOR);
      p.objects().stream().filter(e -> !e.isDirectoryMarker()).forEach(e -> page.add(e.key()));
      page.addAll(p.prefixes());
      out.addAll(page);
    }
    return out;
  }

  static List<LevelPage> drain(LevelListing l) throws IOException {
    List<LevelPage> pages = new ArrayList<>();
    while (l.hasNextPage()) {
      pages.add(l.nextPage());
    }
    return pages;
  }

  @Test
  void aLevelHasItsObjectsAndCommonPrefixesInOneRequest() throws IOException {
    LevelListing l = client.lister().listLevel(BUCKET, "logs/");
    List<LevelPage> pages = drain(l);
    assertThat(pages).hasSize(1);
    assertThat(children(pages)).containsExactly("logs/2024/", "logs/2025/", "logs/a.csv");
    assertThat(pages.get(0).objects()).filteredOn(e -> e.key().equals("logs/a.csv"))
        .singleElement().satisfies(e -> {
          assertThat(e.size()).isEqualTo("logs/a.csv".length());
          assertThat(e.etag()).isNotBlank();
          assertThat(e.lastModified()).isNotNull();
        });
    assertThat(l.statistics().get(Counter.LIST_REQUESTS)).isEqualTo(1);
  }

  @Test
  void aPrefixWithoutSlashRollsUpAsS3Does() throws IOException {
    assertThat(children(drain(client.lister().listLevel(BUCKET, "logs")))).isEqualTo(expected("logs"))
        .containsExactly("logs.csv", "logs/", "logs2/");
    assertThat(children(drain(client.lister().listLevel(BUCKET, "")))).containsExactly("logs.csv", "logs/",
        "logs2/", "many/");
  }

  @Test
  void moreChildrenThanAPageComeInPagesOneRequestEach() throws IOException {
    LevelListing l = client.lister().listLevel(BUCKET, "many/");
    List<LevelPage> pages = drain(l);
    assertThat(pages.size()).isGreaterThanOrEqualTo(2);
    assertThat(pages).allSatisfy(p -> assertThat(p.size()).isLessThanOrEqualTo(1000));
    assertThat(children(pages)).isEqualTo(expected("many/")).hasSize(MANY + SUBDIRS);
    assertThat(l.statistics().get(Counter.LIST_REQUESTS)).isEqualTo(pages.size());
    assertThat(l.hasNextPage()).isFalse();
    assertThatThrownBy(l::nextPage).isInstanceOf(NoSuchElementException.class).hasMessageContaining("many/");
  }

  @Test
  void aMissingPrefixIsOneEmptyPage() throws IOException {
    List<LevelPage> pages = drain(client.lister().listLevel(BUCKET, "no/such/"));
    assertThat(pages).hasSize(1);
    assertThat(pages.get(0).size()).isZero();
  }

  @Test
  void aMissingBucketIsFileNotFoundAndARefusalIsAccessDenied() {
    assertThatThrownBy(() -> client.lister().listLevel("no-such-bucket", "x/").nextPage())
        .isInstanceOf(FileNotFoundException.class).hasMessageContaining("no-such-bucket");
    SlipstreamConfig bad = TestClients.config(S3.server()).set("secret.key", "wrong-secret-for-this-test").build();
    try (Slipstream denied = Slipstream.builder().config(bad).isolatedResources().build()) {
      assertThatThrownBy(() -> denied.lister().listLevel(BUCKET, "logs/").nextPage())
          .isInstanceOf(AccessDeniedException.class)
          .hasMessageContaining(BUCKET)
          .hasMessageNotContaining("wrong-secret-for-this-test");
    }
  }

  @Test
  void aTransientFailureIsRetriedAndCounted() throws IOException {
    try (LinkShaper shaper = LinkShaper.start(S3.server().endpoint(), LinkProfile.LOOPBACK, 3)) {
      SlipstreamConfig config = TestClients.config(shaper.endpoint()).set("retry.interval", "5ms").build();
      try (Slipstream c = Slipstream.builder().config(config).isolatedResources().build()) {
        shaper.injectNext(FaultKind.STATUS_503, r -> r.isGet() && r.query() != null && r.query().contains("delimiter"));
        LevelListing l = c.lister().listLevel(BUCKET, "logs/");
        assertThat(children(drain(l))).isEqualTo(expected("logs/"));
        assertThat(l.statistics().retries(RetryCause.THROTTLED)).isEqualTo(1);
        assertThat(l.statistics().get(Counter.LIST_REQUESTS)).isEqualTo(2);
        assertThat(shaper.faultsInjected()).isEqualTo(1);
      }
    }
  }
}
