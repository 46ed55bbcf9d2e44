/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.slipstream.testkit.ForkedS3Server;
import dev.slipstream.testkit.MemcachedServer;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Host A of the {@code cluster-*} workloads in a child JVM ({@link FillingHost}, started by {@link
 * FillingHostProcess}) against a real S3 server (s3proxy in a child JVM) and three real memcached servers;
 * host B in this JVM. The object is four blocks of 8 MiB, the last one short; no timings asserted.
 */
class FillingHostProcessTest {
  private static final String BUCKET = "filling-host";

  @TempDir
  static Path scratch;

  private static ForkedS3Server server;
  private static Fixture fixture;
  private static Target target;

  @BeforeAll
  static void setUp() throws IOException {
    S3ProxyJar.configure();
    server = ForkedS3Server.start();
    server.createBucket(BUCKET);
    long object = 3 * 8 * 1024 * 1024 + 4321;
    fixture = new Fixture(new Uploader(server.endpoint(), BUCKET), 7, BenchSizes.smoke().withSequentialBytes(4 * object),
        scratch);
    target = new Target(server.endpoint(), BUCKET);
  }

  @AfterAll
  static void tearDown() {
    if (fixture != null) {
      fixture.close(); // and the memcached servers
    }
    if (server != null) {
      server.close();
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {Readers.SLIPSTREAM_CORE, Readers.SLIPSTREAM})
  void hostBInThisJvmIsServedByThePoolThatHostAInAChildJvmFilled(String reader) throws IOException {
    ClusterWorkload workload = new ClusterWorkload(ClusterWorkload.REREAD);
    workload.upload(fixture);
    FillingHost.Request asked = workload.hostA(reader, target);
    // A lookup slower than shared.timeout (200 ms) is a miss, as it should be; on a loaded machine some are.
    // This test is about what the pool holds: both hosts wait longer. Block names do not depend on it.
    Map<String, String> settings = new HashMap<>(asked.settings());
    settings.put("shared.timeout", "30s");
    settings.put("shared.timeout.adaptive", "false"); // nor a shorter wait fitted to quieter moments
    FillingHost.Request request = new FillingHost.Request(reader, asked.endpoint(), asked.bucket(), asked.key(),
        asked.length(), asked.crc32c(), settings);
    for (MemcachedServer m : fixture.memcached(64)) {
      if (!m.isAlive()) {
        m.restart();
      }
      m.flushAll(); // what B finds, A wrote
    }
    Set<Long> before = children();
    // Opened first, as the benchmark opens it: a client just built may not be connected to the pool yet, and
    // a lookup then fails (a miss).
    ReadSession hostB = Readers.byName(reader).open(target, settings);
    CRC32C crc = new CRC32C();
    try {
      FillingHost.Filled filled = FillingHostProcess.run(request, Duration.ofMinutes(2), scratch);

      assertThat(newJvms(before)).as("host A's JVMs still running").isEmpty();
      assertThat(hostAFiles()).as("host A's output and temporary files, left behind").isEmpty();
      assertThat(filled.bytes()).isEqualTo(request.length());
      assertThat(filled.crc32c()).isEqualTo(request.crc32c());
      assertThat(filled.shared().get("shared_sets")).as("blocks host A wrote to the pool: %s", filled.line())
          .isEqualTo(4);
      read(hostB, request.key(), crc);
    } finally {
      hostB.close();
    }
    long length = request.length();
    assertThat(crc.getValue()).as("host B's bytes").isEqualTo(request.crc32c());
    Map<String, Long> counters = hostB.slipstreamCounters();
    assertThat(counters.get("bytes_read")).isEqualTo(length);
    assertThat(counters.get("shared_bytes_read")).as("bytes host B had from the pool; its counters: %s", counters)
        .isEqualTo(length);
  }

  /** Reads {@code key} start to end, into {@code crc}. */
  private static void read(ReadSession session, String key, CRC32C crc) throws IOException {
    try (ObjectStream in = session.open(session.stat(key))) {
      byte[] buf = new byte[1 << 20];
      int n;
      while ((n = in.read(buf, 0, buf.length)) > 0) {
        crc.update(buf, 0, n);
      }
    }
  }

  @Test
  void theKilledVariantKillsOneServerAfterHostAFilledThePoolAndHostBReadsTheRightBytes() throws IOException {
    ClusterWorkload workload = new ClusterWorkload(ClusterWorkload.KILLED);
    workload.upload(fixture);
    ReadSession hostB = Readers.byName(Readers.SLIPSTREAM_CORE).open(target, workload.slipstreamSettings());
    Workload.Run run;
    try {
      run = workload.prepare(Readers.SLIPSTREAM_CORE, target, hostB, fixture, System.out);
      List<MemcachedServer> pool = fixture.memcached(64);
      assertThat(pool.get(1).isAlive()).as("the second server, killed").isFalse();
      assertThat(pool.stream().filter(MemcachedServer::isAlive).count()).isEqualTo(2);
      assertThat(run.execute()).isEqualTo(fixture.sizes().sequentialBytes() / 4);
    } finally {
      hostB.close();
    }
    assertThat(run.verify()).as("host B's bytes").isNull();
  }

  @Test
  void aChildThatFailsGivesAnIoExceptionNamingTheCauseAndEnds() throws IOException {
    ClusterWorkload workload = new ClusterWorkload(ClusterWorkload.REREAD);
    workload.upload(fixture);
    Set<Long> before = children();

    FillingHost.Request wrongBucket = new FillingHost.Request(Readers.SLIPSTREAM_CORE, server.endpoint(),
        "no-such-bucket", ClusterWorkload.KEY, 1, 0, workload.slipstreamSettings());
    assertThatThrownBy(() -> FillingHostProcess.run(wrongBucket, Duration.ofMinutes(2), scratch))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("host A")
        .hasMessageContaining("exit status 1")
        .hasMessageContaining(FillingHost.FAILED)
        .hasMessageContaining("s3://no-such-bucket/" + ClusterWorkload.KEY);
    assertThat(newJvms(before)).as("host A's JVMs still running").isEmpty();
    assertThat(hostAFiles()).as("host A's output and temporary files, left behind").isEmpty();
  }

  @Test
  void aChildStillRunningAtTheTimeoutIsKilledAndTheErrorSaysSo() throws Exception {
    ClusterWorkload workload = new ClusterWorkload(ClusterWorkload.REREAD);
    workload.upload(fixture);
    Set<Long> before = children();
    // Accepts connections (the backlog does) and never answers: host A's HEAD waits 30 s (read.stall.timeout).
    try (ServerSocket silent = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
      FillingHost.Request request = new FillingHost.Request(Readers.SLIPSTREAM_CORE,
          URI.create("http://127.0.0.1:" + silent.getLocalPort()), BUCKET, ClusterWorkload.KEY, 1, 0,
          workload.slipstreamSettings());
      CompletableFuture<FillingHost.Filled> filled = CompletableFuture.supplyAsync(() -> {
        try {
          return FillingHostProcess.run(request, Duration.ofSeconds(5), scratch);
        } catch (IOException e) {
          throw new CompletionException(e);
        }
      });
      boolean seen = false;
      while (!seen && !filled.isDone()) {
        seen = !newJvms(before).isEmpty();
        Thread.sleep(50);
      }
      assertThat(seen).as("host A's JVM seen running (what the checks of its end look for)").isTrue();
      assertThatThrownBy(() -> filled.get(2, TimeUnit.MINUTES)).cause()
          .isInstanceOf(IOException.class)
          .hasMessageContaining("did not finish reading s3://" + BUCKET + "/" + ClusterWorkload.KEY + " within 5 s")
          .hasMessageContaining("was killed");
    }
    assertThat(newJvms(before)).as("host A's JVMs still running").isEmpty();
    assertThat(hostAFiles()).as("host A's output and temporary files, left behind").isEmpty();
  }

  @Test
  void theRequestGoesThroughItsTextAndItsToStringLeavesOutTheSettingsValues() throws IOException {
    FillingHost.Request r = new FillingHost.Request(Readers.SLIPSTREAM, URI.create("http://127.0.0.1:9"), "b",
        "k/ey=1 x", 12, 0xffff_ffffL, Map.of("shared.secret", "s3cr3t value", "shared.mode", "read-write"));
    FillingHost.Request back = FillingHost.Request.read(
        new ByteArrayInputStream(r.text().getBytes(StandardCharsets.UTF_8)));
    assertThat(back).isEqualTo(r);
    assertThat(r.toString()).doesNotContain("s3cr3t").contains("shared.secret");
  }

  @Test
  void theResultLineParsesBack() {
    FillingHost.Filled f = new FillingHost.Filled(25_169_969, 0xfedc_ba98L, Map.of("shared_sets", 4L,
        "shared_sets_dropped", 0L));
    assertThat(FillingHost.Filled.parse(f.line())).isEqualTo(f);
    assertThat(FillingHost.Filled.parse("[WARN] something else")).isNull();
  }

  /**
   * This JVM's live descendant processes running {@code java} that {@code before} does not hold (s3proxy's
   * JVM, started before every test, is among {@code before}; memcached is no java).
   */
  private static List<ProcessHandle> newJvms(Set<Long> before) {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    return ProcessHandle.current().descendants().filter(ProcessHandle::isAlive)
        .filter(p -> !before.contains(p.pid()))
        .filter(p -> p.info().command().map(c -> c.equals(java) || c.endsWith("/java")).orElse(false))
        .toList();
  }

  /** What runs of host A left in the scratch directory. */
  private static List<Path> hostAFiles() throws IOException {
    try (java.util.stream.Stream<Path> files = java.nio.file.Files.list(scratch)) {
      return files.filter(f -> f.getFileName().toString().startsWith("host-a-")).toList();
    }
  }

  /** This JVM's live descendant processes. */
  private static Set<Long> children() {
    return ProcessHandle.current().descendants().filter(ProcessHandle::isAlive).map(ProcessHandle::pid)
        .collect(Collectors.toSet());
  }
}
