/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.bench;

import dev.slipstream.testkit.MemcachedServer;
import java.io.IOException;
import java.io.PrintStream;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * The shared tier across hosts, on request: three real memcached servers (started once for the benchmark,
 * see {@link Fixture#memcached}) and an object a quarter of the sequential one, read start to end. Every run
 * starts from an empty pool. Host A and host B are Slipstream clients with no local cache (no disk cache,
 * no memory cache) in separate processes, as two hosts of a cluster would be:
 * <ul>
 *   <li>{@code cluster-first}: a host reads (timed) into a local file and fills the pool as it goes: the
 *       baseline, in the benchmark's JVM.</li>
 *   <li>{@code cluster-reread}: host A, a child JVM ({@link FillingHostProcess}), reads the object (untimed,
 *       its CRC32C checked) and fills the pool, and ends; then host B, the benchmark's JVM, reads it (timed)
 *       into a local file, served by the pool.</li>
 *   <li>{@code cluster-reread-killed}: the same, with one of the three servers killed after A ended and
 *       before B reads (and started again, empty, before the next run).</li>
 * </ul>
 * Host A opens the same reader as host B, with the same settings ({@link #slipstreamSettings}): the same
 * secret, namespace and block size, which the blocks' names in the pool derive from. For the {@code
 * slipstream} reader it is Slipstream's Hadoop FileSystem on both hosts; the core API would do as well, as
 * what B finds is the pool's content, but the Hadoop FileSystem's defaults (its memory budget, so its
 * prefetch and how many writes to the pool it keeps waiting) are those of a Hadoop task. Host A's requests
 * go through the link shaper before B's run starts, and its CPU is another process's: neither counts in B's
 * row. Host A is a fresh JVM every run, as a task's often is: while its code compiles its writes to the pool
 * are slower, and its writer drops the blocks beyond those it keeps waiting; the progress log says how many
 * it wrote and dropped, which is what B can find. Peers have no shared tier: only Slipstream's readers run
 * them.
 */
final class ClusterWorkload implements Workload.TwoHosts {
  static final String FIRST = "cluster-first";
  static final String REREAD = "cluster-reread";
  static final String KILLED = "cluster-reread-killed";
  static final String KEY = "cluster/object.bin";
  /** A secret for the benchmark's pool only. */
  private static final String SECRET = "slipstream-bench-" + Long.toHexString(new java.util.Random().nextLong());

  private final String name;
  private long length;
  private long crc;
  private List<MemcachedServer> servers;

  ClusterWorkload(String name) {
    this.name = name;
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public String description() {
    String what = "a " + Report.binary(length) + " object start to end into a local file, hosts without local caches"
        + " and a pool of three memcached servers";
    return switch (name) {
      case FIRST -> "a host reads " + what + ", the pool empty: the baseline of cluster-reread";
      case REREAD -> "host B reads " + what + " after host A, another JVM, read it (untimed) and filled the pool";
      default -> "host B reads " + what + " after host A, another JVM, filled the pool, one of the three servers"
          + " killed";
    };
  }

  @Override
  public void upload(Fixture fixture) throws IOException {
    length = Math.max(1, fixture.sizes().sequentialBytes() / 4);
    crc = fixture.putGenerated(KEY, fixture.seed() + 13, length);
    servers = fixture.memcached((int) Math.max(64, (length >> 20) / 2 + 64));
  }

  @Override
  public Map<String, String> slipstreamSettings() {
    return Map.of("cache.disk.mode", "off", "cache.memory", "false", "shared.mode", "read-write",
        "shared.secret", SECRET,
        "shared.servers", servers.stream().map(MemcachedServer::hostPort).collect(Collectors.joining(",")));
  }

  @Override
  public String notApplicable(String reader) {
    return reader.equals(Readers.SLIPSTREAM) || reader.equals(Readers.SLIPSTREAM_CORE) ? null
        : "no shared tier: a new host reads from S3";
  }

  @Override
  public Run prepare(ReadSession session, Fixture fixture) throws IOException {
    emptyPool();
    return SequentialWorkload.copyRun(session, session.stat(KEY), fixture.scratch().resolve(name + "-copy.bin"),
        length, crc, false);
  }

  @Override
  public Run prepare(String reader, Target target, ReadSession hostB, Fixture fixture, PrintStream log)
      throws IOException {
    if (name.equals(FIRST)) {
      return prepare(hostB, fixture);
    }
    emptyPool();
    FillingHost.Filled a = FillingHostProcess.run(hostA(reader, target), FillingHostProcess.timeoutFor(length),
        fixture.scratch());
    // What B can find: the blocks A wrote. A's writer drops blocks beyond those it keeps waiting.
    log.printf("    host A (a child JVM): %s read, CRC32C right; %d blocks written to the pool, %d dropped%n",
        Report.binary(a.bytes()), a.shared().getOrDefault("shared_sets", -1L),
        a.shared().getOrDefault("shared_sets_dropped", -1L));
    if (name.equals(KILLED)) {
      servers.get(1).kill();
    }
    return SequentialWorkload.copyRun(hostB, hostB.stat(KEY), fixture.scratch().resolve(name + "-b.bin"),
        length, crc, false);
  }

  /** What host A does: read this workload's object with {@code reader} on {@code target}, with its settings. */
  FillingHost.Request hostA(String reader, Target target) {
    return new FillingHost.Request(reader, target.endpoint(), target.bucket(), KEY, length, crc, slipstreamSettings());
  }

  /** Every server running and empty. */
  private void emptyPool() throws IOException {
    for (MemcachedServer s : servers) {
      if (!s.isAlive()) {
        s.restart();
      }
      s.flushAll();
    }
  }
}
