/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.slipstream.testkit.EmbeddedS3Server;
import dev.slipstream.testkit.RequestInfo;
import dev.slipstream.testkit.ScriptedS3Server;
import java.io.IOException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * The {@link Lister} keeps a store's listing rules and the page size it is given. No server that runs here
 * lists as a directory bucket does, so the scripted store enforces its rules as AWS documents them: keys
 * in no particular order, {@code StartAfter} and prefixes not ending in {@code /} refused with 400.
 */
@Timeout(120)
class StoreListingRulesTest {
  static final String EXPRESS = "logs--usw2-az1--x-s3";
  static final String PLAIN = "logs";
  /** A directory bucket with more keys than a page of 1,000. */
  static final String BIG = "flat--usw2-az1--x-s3";
  static final int BIG_KEYS = 2500;
  static final int DIRS = 30;
  static final int FILES = 10;
  static ScriptedS3Server server;
  static S3Client s3;
  static Slipstream client;
  static final TreeSet<String> KEYS = new TreeSet<>(S3KeyOrder.COMPARATOR);

  @BeforeAll
  static void start() {
    server = ScriptedS3Server.start();
    for (int d = 0; d < DIRS; d++) {
      for (int f = 0; f < FILES; f++) {
        KEYS.add(String.format("t/d=%02d/f-%d", d, f));
      }
    }
    for (String k : KEYS) {
      server.put(EXPRESS, k, k.getBytes(StandardCharsets.UTF_8));
      server.put(PLAIN, k, k.getBytes(StandardCharsets.UTF_8));
    }
    for (int i = 0; i < BIG_KEYS; i++) {
      server.put(BIG, String.format("f/%05d", i), new byte[1]);
    }
    // The plain-Java way to a directory bucket: a client of the caller's. This store has no S3 Express
    // sessions, so each request is signed as any other.
    s3 = S3Client.builder().endpointOverride(server.endpoint()).region(Region.of(EmbeddedS3Server.REGION))
        .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("k", "s")))
        .forcePathStyle(true).disableS3ExpressSessionAuth(true).build();
    client = Slipstream.builder().config(TestClients.config(server.endpoint()).build()).s3Client(s3)
        .isolatedResources().build();
  }

  @AfterAll
  static void stop() {
    client.close();
    s3.close();
    server.close();
  }

  @BeforeEach
  void clean() {
    server.reset();
  }

  static List<String> keys(Listing l) throws IOException {
    List<String> out = new ArrayList<>();
    try (l) {
      while (l.hasNext()) {
        out.add(l.next().key());
      }
    }
    return out;
  }

  static String param(RequestInfo r, String name) {
    for (String p : r.query() == null ? new String[0] : r.query().split("&")) {
      if (p.startsWith(name + "=")) {
        return URLDecoder.decode(p.substring(name.length() + 1), StandardCharsets.UTF_8);
      }
    }
    return null;
  }

  @Test
  void aDirectoryBucketIsOneSequentialListingInTheBucketsOrder() throws IOException {
    Lister lister = client.lister().withPageKeys(40);
    Listing l = lister.list(EXPRESS, "t/", 8);
    List<String> got = keys(l);
    // Before: the second page was cut into key ranges, and the probe's StartAfter was refused (400).
    assertThat(got).hasSize(KEYS.size()).containsExactlyInAnyOrderElementsOf(KEYS).isNotEqualTo(List.copyOf(KEYS));
    assertThat(l.ranges()).isEqualTo(1);
    assertThat(l.statistics().get(Counter.LIST_REQUESTS)).isEqualTo((KEYS.size() + 39) / 40);
    assertThat(server.requests()).allSatisfy(r -> {
      assertThat(param(r, "start-after")).isNull();
      assertThat(param(r, "max-keys")).isEqualTo("40");
    });
    assertThat(keys(client.lister().list(EXPRESS, ""))).containsExactlyInAnyOrderElementsOf(KEYS);
  }

  @Test
  void aDirectoryBucketLongerThanAPageIsNotCutIntoKeyRanges() throws IOException {
    Listing l = client.lister().list(BIG, "f/", 8);
    // Before: the first page came back truncated, and the probe for key ranges sent StartAfter: 400.
    assertThat(keys(l)).hasSize(BIG_KEYS).doesNotHaveDuplicates();
    assertThat(l.ranges()).isEqualTo(1);
    assertThat(l.statistics().get(Counter.LIST_REQUESTS)).isEqualTo(3);
  }

  @Test
  void whatADirectoryBucketCannotDoIsRefusedNamingTheBucketAndWhy() {
    Lister lister = client.lister();
    assertThatThrownBy(() -> lister.listAfter(EXPRESS, "t/", "t/d=05/", 1))
        .isInstanceOf(UnsupportedOperationException.class)
        .hasMessageContaining("s3://" + EXPRESS + "/").hasMessageContaining("StartAfter");
    assertThatThrownBy(() -> lister.list(EXPRESS, "t/d=0"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("s3://" + EXPRESS + "/").hasMessageContaining("end in '/'");
    assertThatThrownBy(() -> lister.listDirectories(EXPRESS, List.of("t/d=01/", "t/d=02/"), false))
        .isInstanceOf(UnsupportedOperationException.class)
        .hasMessageContaining("s3://" + EXPRESS + "/").hasMessageContaining("no order");
    assertThatThrownBy(() -> lister.listLevel(EXPRESS, "t/d"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("s3://" + EXPRESS + "/");
    assertThat(server.requests()).isEmpty();
  }

  @Test
  void aDirectoryBucketListsOneLevel() throws IOException {
    LevelListing level = client.lister().withPageKeys(7).listLevel(EXPRESS, "t/");
    List<String> prefixes = new ArrayList<>();
    while (level.hasNextPage()) {
      prefixes.addAll(level.nextPage().prefixes());
    }
    assertThat(prefixes).hasSize(DIRS).allSatisfy(p -> assertThat(p).startsWith("t/d=").endsWith("/"));
    assertThat(server.requests()).allSatisfy(r -> assertThat(param(r, "max-keys")).isEqualTo("7"));
  }

  @Test
  void everyRequestOfAListingAsksForThePageKeysGiven() throws IOException {
    Listing l = client.lister().withPageKeys(25).list(PLAIN, "t/", 4);
    assertThat(keys(l)).containsExactlyElementsOf(KEYS);
    assertThat(l.ranges()).isGreaterThan(1);
    // the probe for the ranges' boundaries (a delimiter listing) too
    assertThat(server.requests()).hasSizeGreaterThan(KEYS.size() / 25)
        .allSatisfy(r -> assertThat(param(r, "max-keys")).isEqualTo("25"));
    server.reset();
    Listing merged = client.lister().withPageKeys(25).listDirectories(PLAIN, List.of("t/d=03/", "t/d=20/"), false);
    assertThat(keys(merged)).hasSize(2 * FILES);
    assertThat(server.requests()).allSatisfy(r -> assertThat(param(r, "max-keys")).isEqualTo("25"));
  }

  @Test
  void pageKeysOutsideS3sRangeAreRefused() {
    assertThat(client.lister().pageKeys()).isEqualTo(1000);
    assertThat(client.lister().withPageKeys(1000)).isSameAs(client.lister());
    assertThatThrownBy(() -> client.lister().withPageKeys(0)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("0");
    assertThatThrownBy(() -> client.lister().withPageKeys(1001)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("1001");
  }
}
