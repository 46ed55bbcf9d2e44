/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.memcached;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.slipstream.Counter;
import dev.slipstream.OpenOptions;
import dev.slipstream.S3Location;
import dev.slipstream.Slipstream;
import dev.slipstream.SlipstreamConfig;
import dev.slipstream.SlipstreamInputStream;
import dev.slipstream.spi.SharedBlockStore;
import dev.slipstream.testkit.EmbeddedS3Server;
import dev.slipstream.testkit.MemcachedServer;
import dev.slipstream.testkit.S3ServerExtension;
import dev.slipstream.testkit.TestData;
import java.io.BufferedReader;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The shared tier on three real memcached processes: "host A" (a client with no local cache) reads an
 * object and writes its blocks there; "host B" (a fresh client) reads it from the tier, after S3's answer to
 * its open. Servers killed, garbage under a key, the wrong secret, a new version: every byte is still right.
 */
@Timeout(120)
class SharedTierTest {
  @RegisterExtension static final S3ServerExtension S3 = new S3ServerExtension();
  static final String BUCKET = "shared-tier";
  static final int BLOCK = 1024 * 1024; // two chunks per block
  static final long SIZE = 6L * BLOCK + 777;
  static final String SECRET = "cluster-secret-for-tests";

  private final List<MemcachedServer> servers = new ArrayList<>();

  @BeforeAll
  static void bucket() {
    S3.server().createBucket(BUCKET);
  }

  @BeforeEach
  void startServers() throws IOException {
    for (int i = 0; i < 3; i++) {
      servers.add(MemcachedServer.start(64));
    }
  }

  @AfterEach
  void stopServers() {
    servers.forEach(MemcachedServer::close);
  }

  /** A shared.timeout no lookup of a healthy pool reaches, however busy the machine. */
  private static final String PATIENT = "10s";

  private Slipstream host(String mode, String secret, String... more) {
    SlipstreamConfig.Builder b = SlipstreamConfig.builder()
        .set("endpoint", S3.server().endpoint().toString()).set("region", EmbeddedS3Server.REGION)
        .set("path.style.access", "true").set("access.key", EmbeddedS3Server.ACCESS_KEY)
        .set("secret.key", EmbeddedS3Server.SECRET_KEY)
        .set("block.size", String.valueOf(BLOCK)).set("memory.max", "32M")
        .set("cache.disk.mode", "off").set("cache.memory", "false") // each host's own caches play no part
        .set("shared.mode", mode)
        // counts of hits are asserted: no lookup of a healthy server may miss its deadline on a busy machine,
        // nor the shorter one fitted to its quiet moments
        .set("shared.timeout", PATIENT).set("shared.timeout.adaptive", "false")
        .set("shared.servers", servers.stream().map(MemcachedServer::hostPort).collect(Collectors.joining(",")));
    if (secret != null) {
      b.set("shared.secret", secret);
    }
    for (int i = 0; i < more.length; i += 2) {
      b.set(more[i], more[i + 1]);
    }
    return Slipstream.builder().isolatedResources().config(b.build()).build();
  }

  private static S3Location loc(String key) {
    return S3Location.parse("s3://" + BUCKET + "/" + key);
  }

  /** Host A reads {@code key} whole; its blocks are in the tier once it is closed (writes are waited for). */
  private void hostAReads(String key, long seed) throws IOException {
    Slipstream a = host("read-write", SECRET);
    try (a) {
      readAndCheck(a, key, seed);
    }
    // Closing the client waited for its pending writes.
    assertThat(a.statistics().get(Counter.SHARED_SETS)).as("every block written (dropped %d, errors %d, timeouts %d)",
        a.statistics().get(Counter.SHARED_SETS_DROPPED), a.statistics().get(Counter.SHARED_ERRORS),
        a.statistics().get(Counter.SHARED_TIMEOUTS)).isEqualTo(7);
  }

  private static SlipstreamInputStream readAndCheck(Slipstream client, String key, long seed) throws IOException {
    SlipstreamInputStream in = client.open(loc(key));
    try (in) {
      byte[] all = in.readAllBytes();
      assertThat(all).hasSize((int) SIZE);
      assertThat(TestData.firstMismatch(seed, 0, all, 0, all.length)).as("first wrong byte").isEqualTo(-1);
    }
    return in;
  }

  @Test
  void hostBReadsWhatHostAFetchedFromTheTierWithoutAGet() throws IOException {
    S3.server().putGenerated(BUCKET, "shared", 1, SIZE);
    hostAReads("shared", 1);
    try (Slipstream b = host("read-write", SECRET)) {
      SlipstreamInputStream in = readAndCheck(b, "shared", 1);
      assertThat(in.statistics().get(Counter.HEAD_REQUESTS)).as("S3's answer to the open").isEqualTo(1);
      assertThat(in.statistics().get(Counter.GET_REQUESTS)).isZero();
      assertThat(in.statistics().get(Counter.SHARED_HITS)).isEqualTo(7);
      assertThat(in.statistics().get(Counter.SHARED_BYTES_READ)).isEqualTo(SIZE);
      assertThat(b.statistics().get(Counter.SHARED_SETS)).as("nothing read from the tier is written back").isZero();
    }
  }

  @Test
  void positionalReadsOfAnotherHostAreServedFromTheTier() throws IOException {
    S3.server().putGenerated(BUCKET, "positional", 11, SIZE);
    hostAReads("positional", 11);
    try (Slipstream b = host("read-only", SECRET);
         SlipstreamInputStream in = b.open(loc("positional"), OpenOptions.NONE.withPolicy(dev.slipstream.ReadPolicy.RANDOM))) {
      long[][] reads = {{BLOCK - 100, 300}, {3L * BLOCK + 5, 70_000}, {SIZE - 500, 500}, {Chunks.CHUNK - 10, 20}};
      for (long[] r : reads) {
        byte[] got = new byte[(int) r[1]];
        in.readFully(r[0], got, 0, got.length);
        assertThat(TestData.firstMismatch(11, r[0], got, 0, got.length)).as("read at %d", r[0]).isEqualTo(-1);
      }
      assertThat(in.statistics().get(Counter.SHARED_HITS)).as("each share from the tier").isPositive();
      assertThat(in.statistics().get(Counter.GET_REQUESTS)).as("open(path)'s HEAD was S3's answer").isZero();
      // Only the chunks holding the bytes asked for were fetched: six, not the five whole blocks they are in.
      long fetched = b.sharedTierServers().stream().mapToLong(x -> x.values().get("bytes_read")).sum();
      assertThat(fetched).isLessThanOrEqualTo(6L * (Chunks.CHUNK + 200));
    }
  }

  @Test
  void aKilledServerIsAMissForItsShareAndEveryByteIsRight() throws IOException {
    S3.server().putGenerated(BUCKET, "killed", 2, SIZE);
    hostAReads("killed", 2);
    int dead = holdingMost(servers); // a server that holds blocks of the object, whichever the ring chose
    servers.get(dead).kill();
    try (Slipstream b = host("read-write", SECRET)) {
      SlipstreamInputStream in = readAndCheck(b, "killed", 2);
      long hits = in.statistics().get(Counter.SHARED_HITS);
      long gets = in.statistics().get(Counter.GET_REQUESTS);
      assertThat(hits + gets).as("each block from the tier or S3").isEqualTo(7);
      assertThat(gets).as("blocks with a chunk on the dead server").isPositive();
      assertThat(b.statistics().get(Counter.SHARED_ERRORS) + b.statistics().get(Counter.SHARED_PARTIAL)).isPositive();
      // Per server: the dead one served nothing and failed; the others served chunks.
      var perServer = b.sharedTierServers();
      assertThat(perServer).extracting(SharedBlockStore.ServerStatistics::server)
          .containsExactly(servers.get(0).hostPort(), servers.get(1).hostPort(), servers.get(2).hostPort());
      long aliveHits = 0;
      for (int i = 0; i < 3; i++) {
        var v = perServer.get(i).values();
        if (i == dead) {
          assertThat(v.get("chunk_hits")).isZero();
          assertThat(v.get("errors") + v.get("timeouts")).isPositive();
        } else {
          aliveHits += v.get("chunk_hits");
        }
      }
      assertThat(aliveHits).isPositive();
      // The same numbers through the metrics binder, with a server label and no key or name of an object.
      io.micrometer.core.instrument.simple.SimpleMeterRegistry registry =
          new io.micrometer.core.instrument.simple.SimpleMeterRegistry();
      new dev.slipstream.metrics.SlipstreamMetrics(b).bindTo(registry);
      assertThat(registry.get("slipstream.shared.server.chunk.hits").tag("server", servers.get(0).hostPort())
          .functionCounter().count()).isEqualTo((double) b.sharedTierServers().get(0).values().get("chunk_hits"));
      assertThat(registry.get("slipstream.shared.server.lookup.p99").tag("server", servers.get(0).hostPort())
          .timeGauge()).isNotNull();
    }
  }

  @Test
  void aServerKilledInTheMiddleOfAReadLeavesEveryByteRight() throws IOException {
    S3.server().putGenerated(BUCKET, "mid-read", 10, SIZE);
    hostAReads("mid-read", 10);
    int dead = holdingMost(servers);
    try (Slipstream b = host("read-only", SECRET);
         SlipstreamInputStream in = b.open(loc("mid-read"))) {
      byte[] all = new byte[(int) SIZE];
      int first = in.read(all, 0, 1000); // prefetch has started lookups of the blocks ahead
      servers.get(dead).kill();
      int done = first;
      for (int n; done < all.length && (n = in.read(all, done, all.length - done)) > 0; ) {
        done += n;
      }
      assertThat(done).isEqualTo((int) SIZE);
      assertThat(in.read()).isEqualTo(-1);
      assertThat(TestData.firstMismatch(10, 0, all, 0, all.length)).as("first wrong byte").isEqualTo(-1);
      assertThat(in.statistics().get(Counter.SHARED_HITS) + in.statistics().get(Counter.GET_REQUESTS))
          .as("each block from the tier or S3").isGreaterThanOrEqualTo(7);
    }
  }

  @Test
  void aStoppedServerIsLeftAloneAfterThreeFailuresAndEveryByteIsRight() throws IOException {
    S3.server().putGenerated(BUCKET, "stopped", 3, SIZE);
    hostAReads("stopped", 3);
    int stopped = holdingMost(servers);
    servers.get(stopped).pause();
    try (Slipstream b = host("read-write", SECRET, "shared.timeout", "200ms")) { // the default: a stopped server is late
      for (int round = 0; round < 3; round++) {
        readAndCheck(b, "stopped", 3);
      }
      // Folsom reports a request to a stopped server as late (our deadline) or failed (its own limits).
      assertThat(b.statistics().get(Counter.SHARED_TIMEOUTS) + b.statistics().get(Counter.SHARED_ERRORS))
          .as("%s", b.statistics()).isPositive();
      assertThat(b.statistics().get(Counter.SHARED_SERVERS_DOWN)).as("left alone after 3 timeouts").isPositive();
    } finally {
      servers.get(stopped).resume();
    }
  }

  @Test
  void garbageUnderABlocksKeysAndChunksWithoutTheSecretAreMissesNeverBytes() throws IOException {
    S3.server().putGenerated(BUCKET, "poisoned", 4, SIZE);
    hostAReads("poisoned", 4);
    // A reader with another secret names the blocks otherwise: it finds none of host A's chunks.
    try (Slipstream other = host("read-only", "not-the-cluster-secret")) {
      SlipstreamInputStream in = readAndCheck(other, "poisoned", 4);
      assertThat(in.statistics().get(Counter.SHARED_HITS)).isZero();
      assertThat(other.statistics().get(Counter.SHARED_MISSES)).isEqualTo(7);
    }
    // Garbage written under every key on every server.
    int overwritten = 0;
    for (MemcachedServer s : servers) {
      overwritten += overwriteEveryKey(s);
    }
    assertThat(overwritten).as("two chunks per full block, one for the last").isEqualTo(13);
    try (Slipstream b = host("read-only", SECRET)) {
      SlipstreamInputStream in = readAndCheck(b, "poisoned", 4);
      assertThat(in.statistics().get(Counter.SHARED_HITS)).isZero();
      assertThat(in.statistics().get(Counter.GET_REQUESTS)).isEqualTo(7);
      assertThat(b.statistics().get(Counter.SHARED_CORRUPT)).isEqualTo(7);
    }
  }

  @Test
  void aNewVersionNeverMeetsTheOldOnesBlocks() throws IOException {
    S3.server().putGenerated(BUCKET, "versioned", 5, SIZE);
    hostAReads("versioned", 5);
    S3.server().putGenerated(BUCKET, "versioned", 6, SIZE);
    try (Slipstream b = host("read-only", SECRET)) {
      SlipstreamInputStream in = readAndCheck(b, "versioned", 6);
      assertThat(in.statistics().get(Counter.SHARED_HITS)).isZero();
      assertThat(b.statistics().get(Counter.SHARED_SETS)).as("read-only writes nothing").isZero();
    }
  }

  @Test
  void aDeletedObjectsBlocksAreNeverServed() throws IOException {
    S3.server().putGenerated(BUCKET, "deleted", 7, SIZE);
    String etag;
    try (Slipstream a = host("read-write", SECRET)) {
      etag = readAndCheck(a, "deleted", 7).etag();
    }
    S3.server().deleteObject(BUCKET, "deleted");
    try (Slipstream b = host("read-only", SECRET);
         SlipstreamInputStream in = b.open(loc("deleted"), OpenOptions.known(SIZE, etag))) {
      byte[] buf = new byte[BLOCK];
      assertThatThrownBy(() -> in.read(buf, 0, buf.length)).isInstanceOf(FileNotFoundException.class);
      assertThat(buf).as("no byte of the tier reached the caller").containsOnly(0);
      assertThat(b.statistics().get(Counter.SHARED_BYTES_READ)).isZero();
    }
  }

  /**
   * Someone who reaches memcached and knows a bucket, key and ETag computes the name a block had before
   * names were keyed with the secret, and plants well-formed chunks there: they find none of the cluster's
   * chunks, displace none, and are never served.
   */
  @Test
  void chunksPlantedUnderUnkeyedNamesNeitherFindNorDisplaceTheClustersBlocks() throws IOException {
    S3.server().putGenerated(BUCKET, "planted", 12, SIZE);
    String etag;
    try (Slipstream a = host("read-write", SECRET)) {
      etag = readAndCheck(a, "planted", 12).etag();
    }
    List<String> clusters = new ArrayList<>();
    for (MemcachedServer server : servers) {
      clusters.addAll(keys(server));
    }
    assertThat(clusters).as("two chunks per full block, one for the last").hasSize(13);
    byte[] other = new byte[BLOCK];
    java.util.Arrays.fill(other, (byte) 42);
    for (int i = 0; i < 7; i++) {
      byte[] name = unkeyedName("planted", etag, i);
      int length = (int) Math.min(BLOCK, SIZE - (long) i * BLOCK);
      for (int c = 0; c < Chunks.count(length); c++) {
        assertThat(clusters).as("the pool shows which objects are cached").doesNotContain(Chunks.key(name, c));
        for (MemcachedServer server : servers) {
          set(server, Chunks.key(name, c), new Chunks(null).encode(name, c, other, 0, length));
        }
      }
    }
    try (Slipstream b = host("read-only", SECRET)) {
      SlipstreamInputStream in = readAndCheck(b, "planted", 12);
      assertThat(in.statistics().get(Counter.SHARED_HITS)).as("every block from the cluster's chunks").isEqualTo(7);
      assertThat(b.statistics().get(Counter.SHARED_CORRUPT)).as("no planted chunk met").isZero();
    }
  }

  /** The name block {@code index} of {@code key} had in the tier with no secret: SHA-256 of what anyone knows. */
  private static byte[] unkeyedName(String key, String etag, long index) {
    try {
      java.security.MessageDigest md = java.security.MessageDigest.getInstance("SHA-256");
      for (String s : new String[] {"slipstream-shared-v1", "slipstream", BUCKET, key, etag}) {
        byte[] b = s.getBytes(StandardCharsets.UTF_8);
        md.update(java.nio.ByteBuffer.allocate(4).putInt(b.length).array());
        md.update(b);
      }
      md.update(java.nio.ByteBuffer.allocate(12).putInt(BLOCK).putLong(index).array());
      return md.digest();
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new AssertionError(e);
    }
  }

  /** shared.secret=none runs the tier without a secret, deliberately, and each client says so once. */
  @Test
  void noneRunsWithoutASecretAndEachClientWarnsOnce() throws IOException {
    S3.server().putGenerated(BUCKET, "no-secret", 13, SIZE);
    java.io.PrintStream oldErr = System.err;
    java.io.ByteArrayOutputStream err = new java.io.ByteArrayOutputStream();
    System.setErr(new java.io.PrintStream(err, true, StandardCharsets.UTF_8));
    try {
      try (Slipstream a = host("read-write", "none")) {
        readAndCheck(a, "no-secret", 13);
        readAndCheck(a, "no-secret", 13);
      }
      try (Slipstream b = host("read-only", "none")) {
        SlipstreamInputStream in = readAndCheck(b, "no-secret", 13);
        assertThat(in.statistics().get(Counter.SHARED_HITS)).isEqualTo(7);
      }
    } finally {
      System.setErr(oldErr);
    }
    String log = err.toString(StandardCharsets.UTF_8);
    List<String> warnings = log.lines().filter(l -> l.contains("WARN") && l.contains("shared.secret")).toList();
    assertThat(warnings).as("%s", log).hasSize(2);
    assertThat(warnings.get(0)).contains("plant").contains("memcached");
  }

  /**
   * A read whose chunks are partly in the tier (one evicted), of an object deleted at S3 since it was
   * cached: the chunks found must not reach the caller's array before S3 answers, nor after it refuses.
   */
  @Test
  void aPartialHitOfAnObjectGoneFromS3LeavesTheCallersArrayUntouched() throws Exception {
    S3.server().putGenerated(BUCKET, "partial", 14, SIZE);
    String etag;
    try (Slipstream a = host("read-write", SECRET)) {
      etag = readAndCheck(a, "partial", 14).etag();
    }
    int deleted = 0;
    for (MemcachedServer server : servers) {
      for (String key : keys(server)) {
        if (key.endsWith(":1")) {
          delete(server, key); // the second chunk of each full block: its first chunk is still a hit
          deleted++;
        }
      }
    }
    assertThat(deleted).isEqualTo(6);
    S3.server().deleteObject(BUCKET, "partial");
    OpenOptions known = OpenOptions.known(SIZE, etag).withPolicy(dev.slipstream.ReadPolicy.RANDOM);
    try (Slipstream b = host("read-only", SECRET, "access.ttl", "0")) {
      try (SlipstreamInputStream in = b.open(loc("partial"), known)) {
        byte[] buf = new byte[200];
        assertThatThrownBy(() -> in.read(Chunks.CHUNK - 100, buf, 0, buf.length)).as("positional read")
            .isInstanceOf(FileNotFoundException.class);
        assertThat(buf).as("no byte of the tier reached the caller").containsOnly(0);
      }
      try (SlipstreamInputStream in = b.open(loc("partial"), known)) {
        byte[] buf = new byte[BLOCK];
        assertThatThrownBy(() -> in.readFullyAsync(BLOCK, buf, 0, buf.length).get()).as("vectored read")
            .isInstanceOf(java.util.concurrent.ExecutionException.class).hasCauseInstanceOf(FileNotFoundException.class);
        assertThat(buf).as("no byte of the tier reached the caller").containsOnly(0);
      }
      assertThat(b.statistics().get(Counter.SHARED_BYTES_READ)).isZero();
    }
  }

  /**
   * The shared_* counters of {@code client}, for a failure's message. The shadow tests count lookups, so a
   * lookup cut off by its deadline on a loaded machine would change the count: they wait up to {@link #PATIENT}.
   */
  private static String shared(Slipstream client) {
    return client.statistics().snapshot().entrySet().stream().filter(e -> e.getKey().startsWith("shared_"))
        .map(Object::toString).collect(Collectors.joining(", "));
  }


  @Test
  void shadowModeServesEveryByteFromS3AndCountsWhatTheTierWouldHaveDone() throws Exception {
    S3.server().putGenerated(BUCKET, "shadowed", 8, SIZE);
    // First pass: the tier is empty; the shadow host writes what it fetched, as read-write would.
    Slipstream first = host("shadow", "none");
    try (first) {
      SlipstreamInputStream in = readAndCheck(first, "shadowed", 8);
      assertThat(in.statistics().get(Counter.GET_REQUESTS)).isEqualTo(7);
    }
    assertThat(first.statistics().get(Counter.SHARED_SHADOW_MISSES)).isEqualTo(7);
    assertThat(first.statistics().get(Counter.SHARED_SETS)).isEqualTo(7);
    // A well-formed chunk with other bytes (only a host without the secret can be fooled so): a mismatch.
    forgeOneChunk(servers);
    Slipstream second = host("shadow", "none");
    try (second) {
      SlipstreamInputStream in = readAndCheck(second, "shadowed", 8);
      assertThat(in.statistics().get(Counter.GET_REQUESTS)).as("shadow never serves").isEqualTo(7);
      assertThat(in.statistics().get(Counter.SHARED_HITS)).isZero();
    }
    assertThat(second.statistics().get(Counter.SHARED_SHADOW_HITS)).as(shared(second)).isEqualTo(6);
    assertThat(second.statistics().get(Counter.SHARED_SHADOW_MISMATCHES)).as(shared(second)).isEqualTo(1);
    assertThat(second.statistics().latency(dev.slipstream.Latency.SHARED_GET).count()).isEqualTo(7);
  }

  @Test
  void shadowModeWithAFractionComparesTheSameSampleOnEveryHostAndNothingAtZero() throws Exception {
    S3.server().putGenerated(BUCKET, "sampled", 12, SIZE);
    Slipstream none = host("shadow", SECRET, "shared.shadow.fraction", "0");
    try (none) {
      readAndCheck(none, "sampled", 12);
    }
    for (var server : none.sharedTierServers()) {
      assertThat(server.values().get("lookups")).as("fraction 0 asks %s nothing", server.server()).isZero();
      assertThat(server.values().get("sets")).as("nor writes to it").isZero();
    }
    // Host A: the pool is empty; it writes the sampled blocks it compared, and only those.
    Slipstream a = host("shadow", SECRET, "shared.shadow.fraction", "0.5");
    try (a) {
      readAndCheck(a, "sampled", 12);
    }
    long sampled = a.statistics().get(Counter.SHARED_SHADOW_MISSES);
    assertThat(sampled).as("a sample of the 7 blocks, not all or none: %s", shared(a)).isBetween(1L, 6L);
    assertThat(a.statistics().get(Counter.SHARED_SETS)).isEqualTo(sampled);
    assertThat(a.statistics().get(Counter.SHARED_SHADOW_DROPPED)).isZero();
    // Host B samples the same blocks by name, and finds every one of them as A wrote it.
    Slipstream b = host("shadow", SECRET, "shared.shadow.fraction", "0.5");
    try (b) {
      SlipstreamInputStream in = readAndCheck(b, "sampled", 12);
      assertThat(in.statistics().get(Counter.GET_REQUESTS)).as("shadow never serves").isEqualTo(7);
    }
    assertThat(b.statistics().get(Counter.SHARED_SHADOW_HITS)).as(shared(b)).isEqualTo(sampled);
    assertThat(b.statistics().get(Counter.SHARED_SHADOW_MISSES)).isZero();
    assertThat(b.statistics().get(Counter.SHARED_SHADOW_MISMATCHES)).isZero();
    assertThat(b.statistics().get(Counter.SHARED_SETS)).isZero();
  }

  @Test
  void serversTooSmallForTheBlocksEvictChunksAndEveryByteIsStillRight() throws IOException {
    servers.forEach(MemcachedServer::close);
    servers.clear();
    for (int i = 0; i < 3; i++) {
      servers.add(MemcachedServer.start(2)); // 2 MiB each: far less than the 7 MiB written
    }
    S3.server().putGenerated(BUCKET, "evicted", 9, SIZE);
    hostAReads("evicted", 9);
    try (Slipstream b = host("read-only", SECRET)) {
      SlipstreamInputStream in = readAndCheck(b, "evicted", 9);
      long hits = in.statistics().get(Counter.SHARED_HITS);
      assertThat(hits + in.statistics().get(Counter.GET_REQUESTS)).isEqualTo(7);
      assertThat(hits).as("not every block survived").isLessThan(7);
      assertThat(b.statistics().get(Counter.SHARED_PARTIAL) + b.statistics().get(Counter.SHARED_MISSES))
          .isPositive();
    }
  }

  @Test
  void manyStreamsOnManyThreadsReadRightBytesThroughTheTier() throws Exception {
    int objects = 3;
    for (int i = 0; i < objects; i++) {
      S3.server().putGenerated(BUCKET, "many-" + i, 20 + i, SIZE);
    }
    java.util.concurrent.ExecutorService threads = java.util.concurrent.Executors.newFixedThreadPool(6);
    try (Slipstream a = host("read-write", SECRET); Slipstream b = host("read-write", SECRET)) {
      List<java.util.concurrent.Future<?>> done = new ArrayList<>();
      for (int t = 0; t < 6; t++) {
        Slipstream client = t % 2 == 0 ? a : b;
        int first = t;
        done.add(threads.submit(() -> {
          for (int n = 0; n < 4; n++) {
            int i = (first + n) % objects;
            readAndCheck(client, "many-" + i, 20 + i);
          }
          return null;
        }));
      }
      for (java.util.concurrent.Future<?> f : done) {
        f.get();
      }
      assertThat(a.statistics().get(Counter.SHARED_HITS) + b.statistics().get(Counter.SHARED_HITS)).isPositive();
    } finally {
      threads.shutdownNow();
    }
  }

  /**
   * Replaces the first chunk of a full block (one with a second chunk) with a well-formed, unsigned chunk of
   * the same name holding other bytes.
   */
  private static void forgeOneChunk(List<MemcachedServer> servers) throws IOException {
    java.util.Map<String, MemcachedServer> where = new java.util.HashMap<>();
    for (MemcachedServer server : servers) {
      for (String key : keys(server)) {
        where.put(key, server);
      }
    }
    for (String key : where.keySet()) {
      String[] parts = key.split(":");
      if (parts[2].equals("0") && where.containsKey(parts[0] + ":" + parts[1] + ":1")) {
        byte[] name = java.util.HexFormat.of().parseHex(parts[1]);
        byte[] other = new byte[BLOCK];
        java.util.Arrays.fill(other, (byte) 42);
        set(where.get(key), key, new Chunks(null).encode(name, 0, other, 0, BLOCK));
        return;
      }
    }
    throw new AssertionError("no full block on any server");
  }

  /** The index of the server holding the most chunks. */
  private static int holdingMost(List<MemcachedServer> servers) throws IOException {
    int best = 0;
    int most = -1;
    for (int i = 0; i < servers.size(); i++) {
      int n = keys(servers.get(i)).size();
      if (n > most) {
        most = n;
        best = i;
      }
    }
    return best;
  }

  private static List<String> keys(MemcachedServer server) throws IOException {
    List<String> keys = new ArrayList<>();
    try (Socket s = new Socket("127.0.0.1", server.address().getPort())) {
      OutputStream out = s.getOutputStream();
      BufferedReader in = new BufferedReader(new InputStreamReader(s.getInputStream(), StandardCharsets.US_ASCII));
      out.write("lru_crawler metadump all\r\n".getBytes(StandardCharsets.US_ASCII));
      out.flush();
      for (String line = in.readLine(); line != null && !line.equals("END"); line = in.readLine()) {
        if (line.startsWith("key=")) {
          keys.add(java.net.URLDecoder.decode(line.substring(4, line.indexOf(' ')), StandardCharsets.US_ASCII));
        }
      }
    }
    return keys;
  }

  private static void set(MemcachedServer server, String key, byte[] value) throws IOException {
    try (Socket s = new Socket("127.0.0.1", server.address().getPort())) {
      OutputStream out = s.getOutputStream();
      BufferedReader in = new BufferedReader(new InputStreamReader(s.getInputStream(), StandardCharsets.US_ASCII));
      out.write(("set " + key + " 0 0 " + value.length + "\r\n").getBytes(StandardCharsets.US_ASCII));
      out.write(value);
      out.write("\r\n".getBytes(StandardCharsets.US_ASCII));
      out.flush();
      assertThat(in.readLine()).isEqualTo("STORED");
    }
  }

  private static void delete(MemcachedServer server, String key) throws IOException {
    try (Socket s = new Socket("127.0.0.1", server.address().getPort())) {
      OutputStream out = s.getOutputStream();
      BufferedReader in = new BufferedReader(new InputStreamReader(s.getInputStream(), StandardCharsets.US_ASCII));
      out.write(("delete " + key + "\r\n").getBytes(StandardCharsets.US_ASCII));
      out.flush();
      assertThat(in.readLine()).isEqualTo("DELETED");
    }
  }

  /** Lists the server's keys (lru_crawler metadump) and sets each to garbage; returns how many. */
  private static int overwriteEveryKey(MemcachedServer server) throws IOException {
    List<String> keys = keys(server);
    for (String k : keys) {
      set(server, k, "not a chunk at all".getBytes(StandardCharsets.US_ASCII));
    }
    return keys.size();
  }
}
