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
import dev.slipstream.spi.HeapAllowance;
import dev.slipstream.spi.SharedBlockStore;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Semaphore;
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
 *
 * <p>Heap. Folsom reads every value into an array of its own, and sends every value from one (the chunk
 * with its header, {@link Chunks#encode}): up to a block's worth of arrays per lookup or write, outside the
 * buffers Slipstream hands the store, and no client option reads into or writes from those. So each lookup
 * and write first takes room for its chunks' arrays, within the lookup's deadline or the write's: at most
 * {@value #IN_FLIGHT_BLOCKS} blocks' worth of chunks in flight for the whole store, and that heap counted in
 * {@code memory.max} ({@link HeapAllowance}); the room is given back when Folsom ends the request, answered
 * or failed, not when the store stops waiting for it (a request cut off by our deadline still has its
 * answer read into new arrays). With no room, no request: a miss, or a write not made ({@code no_memory}).
 */
public final class MemcachedBlockStore implements SharedBlockStore {
  /** Connections per server: a block's multi-get does not hold up every other lookup of the host. */
  static final int CONNECTIONS = 4;
  /**
   * Blocks' worth of chunks whose arrays may exist at once, lookups and writes together: a few fetch threads'
   * lookups beside the one writer's block, each of up to {@code 2 * block.size} of heap (a chunk is
   * humongous under G1's regions of 1 MiB), not one per fetch thread.
   */
  static final int IN_FLIGHT_BLOCKS = 4;
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
  /** Where the heap of the chunks' arrays is counted. */
  private final HeapAllowance heap;
  /** Chunks whose arrays may exist at once: a permit a chunk, in order of asking. */
  private final Semaphore inFlight;
  private final int maxInFlight;

  /** The service that opens this store for {@code shared.mode} (META-INF/services). */
  public static final class Provider implements SharedBlockStore.Provider {
    @Override
    public SharedBlockStore open(SlipstreamConfig config, ReadStatistics stats) {
      return open(config, stats, HeapAllowance.UNCOUNTED);
    }

    @Override
    public SharedBlockStore open(SlipstreamConfig config, ReadStatistics stats, HeapAllowance heap) {
      return new MemcachedBlockStore(config.sharedServers(), config.sharedSecret().orElse(null),
          config.sharedTimeout().toNanos(), config.sharedTimeoutAdaptive(), (int) config.sharedTtl().toSeconds(),
          stats, heap, IN_FLIGHT_BLOCKS * Chunks.count(config.blockSize()));
    }
  }

  MemcachedBlockStore(List<InetSocketAddress> servers, String secret, long timeoutNanos, boolean adaptiveTimeout,
      int ttlSeconds, ReadStatistics stats, HeapAllowance heap, int maxChunksInFlight) {
    if (maxChunksInFlight <= 0) {
      throw new IllegalArgumentException("chunks in flight must be positive: " + maxChunksInFlight);
    }
    this.heap = heap;
    this.maxInFlight = maxChunksInFlight;
    this.inFlight = new Semaphore(maxChunksInFlight, true);
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
    long start = System.nanoTime();
    long wait = deadline.nanos();
    // Room for the arrays Folsom reads the chunks into, within the lookup's deadline: else a miss.
    Runnable giveBack = room(keys.size(), Chunks.valueLength(Math.min(Chunks.CHUNK, length)), wait, counted);
    if (giveBack == null) {
      return false;
    }
    counted.lookups.increment();
    long sent = System.nanoTime();
    CompletableFuture<List<byte[]>> asked;
    try {
      asked = clients.get(s).get(keys).toCompletableFuture();
    } catch (RuntimeException e) {
      giveBack.run();
      throw e;
    }
    List<byte[]> values = null;
    try {
      values = asked.get(Math.max(0, start + wait - System.nanoTime()), TimeUnit.NANOSECONDS);
    } catch (TimeoutException t) {
      deadline.timedOut(wait);
      failed(s, Counter.SHARED_TIMEOUTS, counted.timeouts);
      return false;
    } catch (ExecutionException failure) {
      failed(s, Counter.SHARED_ERRORS, counted.errors);
      return false;
    } catch (InterruptedException i) {
      Thread.currentThread().interrupt();
      return false;
    } finally {
      if (values == null) {
        // Not cancelled: that stops no answer, which Folsom still reads into new arrays. The room goes back
        // once the request has ended, answered or failed.
        asked.whenComplete((v, t) -> giveBack.run());
      }
    }
    long took = System.nanoTime() - sent;
    health.get(s).answered();
    counted.answered(took);
    deadline.answered(took);
    try {
      return decodeAll(values, name, first, length, from, n, dst, off, counted);
    } finally {
      giveBack.run(); // the chunks' arrays are garbage from here
    }
  }

  /**
   * Room for {@code count} chunks' arrays of at most {@code length} bytes: permits in flight, waited for at
   * most {@code waitNanos}, and heap in memory.max, never waited for. Returns what gives it back (once, from
   * any thread), or null if there is none, counted.
   */
  private Runnable room(int count, int length, long waitNanos, ServerNumbers counted) {
    int permits = Math.min(count, maxInFlight); // a store sized below one block still makes progress
    try {
      if (!inFlight.tryAcquire(permits, waitNanos, TimeUnit.NANOSECONDS)) {
        counted.noMemory.increment();
        return null;
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return null;
    }
    HeapAllowance.Lease lease;
    try {
      lease = heap.tryTake(count, length);
    } catch (RuntimeException e) {
      inFlight.release(permits);
      throw e;
    }
    if (lease == null) {
      inFlight.release(permits);
      counted.noMemory.increment();
      return null;
    }
    java.util.concurrent.atomic.AtomicBoolean given = new java.util.concurrent.atomic.AtomicBoolean();
    return () -> {
      if (given.compareAndSet(false, true)) {
        lease.release();
        inFlight.release(permits);
      }
    };
  }

  /** Checks and copies the chunks a lookup found; true only if all were there and good. */
  private boolean decodeAll(List<byte[]> values, byte[] name, int first, int length, int from, int n, byte[] dst,
      int off, ServerNumbers counted) {
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
    long until = System.nanoTime() + writeTimeoutNanos;
    // Room for the chunks' arrays, each held by its set until the server answered it: else no write.
    int count = Chunks.count(length);
    Runnable giveBack = room(count, Chunks.valueLength(Math.min(Chunks.CHUNK, length)), writeTimeoutNanos, counted);
    if (giveBack == null) {
      return false;
    }
    List<CompletableFuture<MemcacheStatus>> sets = new ArrayList<>();
    try {
      for (int c = 0; c < count; c++) {
        sets.add(clients.get(s).set(Chunks.key(name, c), chunks.encode(name, c, src, off, length), ttlSeconds)
            .toCompletableFuture());
      }
    } finally {
      CompletableFuture.allOf(sets.toArray(CompletableFuture[]::new)).whenComplete((v, t) -> giveBack.run());
    }
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
