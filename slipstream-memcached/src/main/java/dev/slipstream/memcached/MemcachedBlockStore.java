/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.memcached;

import com.spotify.folsom.MemcacheClient;
import com.spotify.folsom.MemcacheClientBuilder;
import com.spotify.folsom.MemcacheStatus;
import dev.slipstream.Counter;
import dev.slipstream.ReadStatistics;
import dev.slipstream.SlipstreamConfig;
import dev.slipstream.spi.SharedBlockStore;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The shared block tier on memcached servers: blocks placed on the servers by a ketama ring ({@link
 * KetamaRing}), each block's chunks ({@link Chunks}) on the one server its name hashes to, each server reached by one Folsom ASCII client, every request under a
 * deadline of ours (Folsom's own timeout is no request deadline), tuned from the pool's answers
 * ({@link LookupDeadline}). A server that fails or times out 3 times
 * in a row is left alone for a while ({@link ServerHealth}); its chunks are misses meanwhile and the ring
 * stays as it is, so no other server's keys move. Nothing here throws into a read: every problem is a miss
 * or a write not made, counted.
 */
public final class MemcachedBlockStore implements SharedBlockStore {
  /** Connections per server: a block's multi-get does not hold up every other lookup of the host. */
  static final int CONNECTIONS = 4;
  private final List<InetSocketAddress> servers;
  private final List<MemcacheClient<byte[]>> clients = new ArrayList<>();
  private final List<ServerHealth> health = new ArrayList<>();
  private final List<ServerNumbers> numbers = new ArrayList<>();
  private final KetamaRing ring;
  private final Chunks chunks;
  private final LookupDeadline deadline;
  private final long writeTimeoutNanos;
  private final int ttlSeconds;
  private final ReadStatistics stats;

  /** The service that opens this store for {@code shared.mode} (META-INF/services). */
  public static final class Provider implements SharedBlockStore.Provider {
    @Override
    public SharedBlockStore open(SlipstreamConfig config, ReadStatistics stats) {
      return new MemcachedBlockStore(config.sharedServers(), config.sharedSecret().orElse(null),
          config.sharedTimeout().toNanos(), config.sharedTimeoutAdaptive(), (int) config.sharedTtl().toSeconds(),
          stats);
    }
  }

  MemcachedBlockStore(List<InetSocketAddress> servers, String secret, long timeoutNanos, boolean adaptiveTimeout,
      int ttlSeconds, ReadStatistics stats) {
    this.servers = List.copyOf(servers);
    List<KetamaRing.Server> onRing = new ArrayList<>();
    for (InetSocketAddress a : servers) {
      onRing.add(new KetamaRing.Server(a.getHostString(), a.getPort(), 1));
      clients.add(MemcacheClientBuilder.newByteArrayClient()
          .withAddress(a.getHostString(), a.getPort())
          .withConnections(CONNECTIONS)
          .withRetry(false)
          .withRequestTimeoutMillis(Math.max(1000, TimeUnit.NANOSECONDS.toMillis(timeoutNanos) * 10))
          .withMaxSetLength(2 * Chunks.CHUNK)
          .connectAscii());
      ServerNumbers n = new ServerNumbers();
      numbers.add(n);
      health.add(new ServerHealth(stats, n));
    }
    this.ring = new KetamaRing(onRing);
    this.chunks = new Chunks(secret);
    this.deadline = new LookupDeadline(timeoutNanos, adaptiveTimeout);
    this.writeTimeoutNanos = Math.max(TimeUnit.SECONDS.toNanos(2), timeoutNanos * 10);
    this.ttlSeconds = ttlSeconds;
    this.stats = stats;
  }

  /**
   * Which server (index in the list) holds block {@code name}: all its chunks on one server, so that losing
   * a server loses only its share of blocks (and a block is one multi-get).
   */
  int serverOf(byte[] name) {
    return ring.serverOf(Chunks.blockKey(name).getBytes(StandardCharsets.US_ASCII));
  }

  @Override
  public boolean get(byte[] name, int length, int from, byte[] dst, int off, int n) {
    try {
      return lookup(name, length, from, dst, off, n);
    } catch (RuntimeException e) { // a client call that threw rather than failing its future: a miss
      stats.increment(Counter.SHARED_ERRORS);
      return false;
    }
  }

  private boolean lookup(byte[] name, int length, int from, byte[] dst, int off, int n) {
    if (from < 0 || n <= 0 || (long) from + n > length) {
      return false;
    }
    int s = serverOf(name);
    if (!health.get(s).usable()) {
      stats.increment(Counter.SHARED_PARTIAL);
      return false; // its server is left alone: the block's chunks are missing
    }
    // The chunks that hold [from, from + n), in one multi-get.
    int first = from / Chunks.CHUNK;
    List<String> keys = new ArrayList<>();
    for (int c = first; c <= (from + n - 1) / Chunks.CHUNK; c++) {
      keys.add(Chunks.key(name, c));
    }
    ServerNumbers counted = numbers.get(s);
    counted.lookups.increment();
    long start = System.nanoTime();
    long wait = deadline.nanos();
    CompletableFuture<List<byte[]>> asked = clients.get(s).get(keys).toCompletableFuture();
    List<byte[]> values;
    try {
      values = asked.get(Math.max(0, start + wait - System.nanoTime()), TimeUnit.NANOSECONDS);
    } catch (TimeoutException t) {
      deadline.timedOut(wait);
      failed(s, Counter.SHARED_TIMEOUTS, counted.timeouts);
      asked.cancel(false);
      return false;
    } catch (ExecutionException failure) {
      failed(s, Counter.SHARED_ERRORS, counted.errors);
      return false;
    } catch (InterruptedException i) {
      Thread.currentThread().interrupt();
      asked.cancel(false);
      return false;
    }
    long took = System.nanoTime() - start;
    health.get(s).answered();
    counted.answered(took);
    deadline.answered(took);
    int found = 0;
    for (int i = 0; i < values.size(); i++) {
      byte[] v = values.get(i);
      if (v == null) {
        counted.chunkMisses.increment();
        continue;
      }
      found++;
      counted.chunkHits.increment();
      counted.bytesRead.add(v.length);
      if (chunks.decode(v, name, first + i, length, from, n, dst, off) != Chunks.Verdict.OK) {
        stats.increment(Counter.SHARED_CORRUPT);
        return false;
      }
    }
    if (found > 0 && found < values.size()) {
      stats.increment(Counter.SHARED_PARTIAL);
    }
    return found == values.size();
  }

  /** A request to server {@code s} failed or timed out: counted, and the server's health told. */
  private void failed(int s, Counter total, java.util.concurrent.atomic.LongAdder perServer) {
    stats.increment(total);
    perServer.increment();
    health.get(s).failed();
  }

  @Override
  public boolean put(byte[] name, byte[] src, int off, int length) {
    try {
      return store(name, src, off, length);
    } catch (RuntimeException e) { // a client call that threw rather than failing its future: not stored
      stats.increment(Counter.SHARED_ERRORS);
      return false;
    }
  }

  private boolean store(byte[] name, byte[] src, int off, int length) {
    int s = serverOf(name);
    if (!health.get(s).usable()) {
      return false;
    }
    ServerNumbers counted = numbers.get(s);
    List<CompletableFuture<MemcacheStatus>> sets = new ArrayList<>();
    for (int c = 0; c < Chunks.count(length); c++) {
      sets.add(clients.get(s).set(Chunks.key(name, c), chunks.encode(name, c, src, off, length), ttlSeconds)
          .toCompletableFuture());
    }
    long until = System.nanoTime() + writeTimeoutNanos;
    boolean all = true;
    for (CompletableFuture<MemcacheStatus> set : sets) {
      try {
        boolean stored = set.get(Math.max(0, until - System.nanoTime()), TimeUnit.NANOSECONDS) == MemcacheStatus.OK;
        health.get(s).answered();
        (stored ? counted.sets : counted.setFailures).increment();
        all &= stored;
      } catch (TimeoutException t) {
        failed(s, Counter.SHARED_TIMEOUTS, counted.timeouts);
        counted.setFailures.increment();
        all = false;
      } catch (ExecutionException failure) {
        failed(s, Counter.SHARED_ERRORS, counted.errors);
        counted.setFailures.increment();
        all = false;
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return false;
      }
    }
    return all;
  }

  @Override
  public List<ServerStatistics> servers() {
    List<ServerStatistics> all = new ArrayList<>();
    for (int i = 0; i < servers.size(); i++) {
      InetSocketAddress a = servers.get(i);
      all.add(new ServerStatistics(a.getHostString() + ":" + a.getPort(), numbers.get(i).values()));
    }
    return all;
  }

  @Override
  public void close() {
    for (MemcacheClient<byte[]> c : clients) {
      c.shutdown();
    }
  }

  @Override
  public String toString() {
    return "memcached " + servers; // addresses only: no secret, no key
  }
}
