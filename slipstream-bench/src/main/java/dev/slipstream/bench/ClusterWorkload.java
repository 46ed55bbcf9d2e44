/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.bench;

import dev.slipstream.testkit.MemcachedServer;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * The shared tier across hosts, on request: three real memcached servers (started once for the benchmark,
 * see {@link Fixture#memcached}) and an object a quarter of the sequential one, read start to end into a
 * local file. Every run starts from an empty pool. Host A and host B are two Slipstream clients with no
 * local cache (no disk cache, no memory cache), as two hosts of a cluster would be:
 * <ul>
 *   <li>{@code cluster-first}: host A reads (timed) and fills the pool as it goes: the baseline.</li>
 *   <li>{@code cluster-reread}: host A reads (untimed), then host B reads (timed), served by the pool.</li>
 *   <li>{@code cluster-reread-killed}: the same, with one of the three servers killed before B reads (and
 *       started again, empty, before the next run).</li>
 * </ul>
 * Peers have no shared tier: only Slipstream's readers run them.
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
      case FIRST -> "host A reads " + what + ", the pool empty: the baseline of cluster-reread";
      case REREAD -> "host B reads " + what + " after host A read it (untimed) and filled the pool";
      default -> "host B reads " + what + " after host A filled the pool, one of the three servers killed";
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
  public Run prepare(ReadSession hostA, ReadSession hostB, Fixture fixture) throws IOException {
    String wrong;
    try (hostA) { // closing waits for host A's writes to the pool
      if (name.equals(FIRST)) {
        return prepare(hostB, fixture);
      }
      emptyPool();
      Run first = SequentialWorkload.copyRun(hostA, hostA.stat(KEY), fixture.scratch().resolve(name + "-a.bin"),
          length, crc, false);
      first.execute();
      wrong = first.verify();
    }
    if (wrong != null) {
      throw new IOException("host A read wrong bytes: " + wrong);
    }
    if (name.equals(KILLED)) {
      servers.get(1).kill();
    }
    return SequentialWorkload.copyRun(hostB, hostB.stat(KEY), fixture.scratch().resolve(name + "-b.bin"),
        length, crc, false);
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
