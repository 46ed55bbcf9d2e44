/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.memcached;

import static org.assertj.core.api.Assertions.assertThat;

import dev.slipstream.Counter;
import dev.slipstream.ReadStatistics;
import dev.slipstream.S3Location;
import dev.slipstream.Slipstream;
import dev.slipstream.SlipstreamConfig;
import dev.slipstream.SlipstreamInputStream;
import dev.slipstream.spi.HeapAllowance;
import dev.slipstream.spi.SharedBlockStore;
import dev.slipstream.testkit.EmbeddedS3Server;
import dev.slipstream.testkit.MemcachedServer;
import dev.slipstream.testkit.S3ServerExtension;
import dev.slipstream.testkit.TestData;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The heap the shared tier's client takes outside Slipstream's buffers, on a real memcached: Folsom reads
 * each chunk into an array of its own and sends each from one, so every lookup and write takes room for
 * them in {@code memory.max} first, and a bounded number of chunks is in flight at once. Without room, no
 * request reaches the server; a request the store stopped waiting for stays counted until the server
 * has answered it, since its answer is still read into new arrays.
 */
@Timeout(120)
class SharedTierHeapTest {
  @RegisterExtension static final S3ServerExtension S3 = new S3ServerExtension();
  static final String BUCKET = "shared-heap";
  static final int BLOCK = 1024 * 1024; // two chunks per block
  static final long SIZE = 3L * BLOCK + 777;
  static final int BLOCKS = 4;
  static final String SECRET = "cluster-secret-for-heap-tests";
  /** A budget that holds one block's buffer (under G1's regions of 1 MiB, it is the whole of it) and no more. */
  static final String ONE_BLOCK = "2M";

  private MemcachedServer server;

  @BeforeAll
  static void bucket() {
    S3.server().createBucket(BUCKET);
  }

  @BeforeEach
  void startServer() throws IOException {
    server = MemcachedServer.start(64);
  }

  @AfterEach
  void stopServer() throws IOException {
    server.resume();
    server.close();
  }

  private SlipstreamConfig config(String mode, String memoryMax, String timeout) {
    return SlipstreamConfig.builder()
        .set("endpoint", S3.server().endpoint().toString()).set("region", EmbeddedS3Server.REGION)
        .set("path.style.access", "true").set("access.key", EmbeddedS3Server.ACCESS_KEY)
        .set("secret.key", EmbeddedS3Server.SECRET_KEY)
        .set("block.size", String.valueOf(BLOCK)).set("memory.max", memoryMax)
        .set("cache.disk.mode", "off").set("cache.memory", "false")
        .set("shared.mode", mode).set("shared.secret", SECRET)
        .set("shared.timeout", timeout).set("shared.timeout.adaptive", "false")
        .set("shared.servers", server.hostPort())
        .build();
  }

  private Slipstream host(String mode, String memoryMax, String timeout) {
    return Slipstream.builder().isolatedResources().config(config(mode, memoryMax, timeout)).build();
  }

  private static S3Location loc(String key) {
    return S3Location.parse("s3://" + BUCKET + "/" + key);
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

  /** The heap one block's chunks take as Folsom's arrays, at least: each chunk's payload with its header. */
  private static long blockChunksHeap() {
    return 2L * Chunks.valueLength(Chunks.CHUNK); // signed: each value holds its HMAC
  }

  @Test
  void aHostWhoseBudgetHasNoRoomForTheChunksNeitherWritesNorLooksUpAndReadsEveryByteFromS3() throws IOException {
    S3.server().putGenerated(BUCKET, "tight", 1, SIZE);
    try (Slipstream a = host("read-write", ONE_BLOCK, "10s")) {
      readAndCheck(a, "tight", 1);
      a.close(); // waits for the writes pending
      assertThat(a.statistics().get(Counter.SHARED_SETS)).as("blocks written beside a full budget").isZero();
      assertThat(a.statistics().get(Counter.SHARED_SETS_DROPPED)).isEqualTo(BLOCKS);
      assertThat(a.sharedTierServers().get(0).values().get("no_memory")).as("lookups and writes not made")
          .isGreaterThanOrEqualTo(BLOCKS);
    }
    assertThat(stats(server)).as("memcached's stats").containsEntry("cmd_set", 0L);

    try (Slipstream a = host("read-write", "32M", "10s")) { // with room: every block written
      readAndCheck(a, "tight", 1);
      a.close();
      assertThat(a.statistics().get(Counter.SHARED_SETS)).isEqualTo(BLOCKS);
    }
    long hits = stats(server).get("get_hits"); // not cmd_get: Folsom checks each new connection with a get
    try (Slipstream b = host("read-write", ONE_BLOCK, "10s")) {
      SlipstreamInputStream in = readAndCheck(b, "tight", 1);
      assertThat(in.statistics().get(Counter.SHARED_HITS)).as("blocks looked up beside a full budget").isZero();
      assertThat(in.statistics().get(Counter.GET_REQUESTS)).as("every block from S3").isEqualTo(BLOCKS);
      assertThat(b.sharedTierServers().get(0).values()).containsEntry("lookups", 0L);
      assertThat(b.sharedTierServers().get(0).values().get("no_memory")).isGreaterThanOrEqualTo(BLOCKS);
    }
    assertThat(stats(server).get("get_hits")).as("no chunk read from memcached").isEqualTo(hits);
  }

  @Test
  void aLookupCutOffByItsDeadlineStaysCountedUntilTheServerHasAnswered() throws Exception {
    S3.server().putGenerated(BUCKET, "late", 2, SIZE);
    try (Slipstream a = host("read-write", "32M", "10s")) {
      readAndCheck(a, "late", 2);
    }
    // A deadline of 1 s, so Folsom's own limit on the request is 10 s: the request outlives the read.
    try (Slipstream b = host("read-only", "32M", "1s")) {
      byte[] first = new byte[BLOCK];
      // The block after it from the tier, until its connections are up (a request before fails at once).
      for (int i = 0; i < 100 && b.statistics().get(Counter.SHARED_HITS) < 4; i++) {
        try (SlipstreamInputStream in = b.open(loc("late"))) {
          in.readFully(BLOCK, first, 0, first.length);
        }
      }
      assertThat(b.statistics().get(Counter.SHARED_HITS)).isEqualTo(4);
      server.pause();
      try (SlipstreamInputStream in = b.open(loc("late"))) {
        in.readFully(0, first, 0, first.length);
        assertThat(b.statistics().get(Counter.SHARED_TIMEOUTS)).as("lookups cut off by their deadline").isPositive();
      }
      assertThat(TestData.firstMismatch(2, 0, first, 0, first.length)).isEqualTo(-1);
      assertThat(b.memoryInUse()).as("the heap of the lookup's arrays, the stream closed, the request still open")
          .isGreaterThanOrEqualTo(blockChunksHeap());
      server.resume(); // the server answers the request: Folsom reads the chunks into new arrays, then lets go
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (b.memoryInUse() > 0 && System.nanoTime() < deadline) {
        Thread.sleep(10);
      }
      assertThat(b.memoryInUse()).as("once the request has ended").isZero();
    }
  }

  /** An allowance that counts the chunks' arrays out and back, and the most out at once. */
  private static final class Recording implements HeapAllowance {
    final AtomicInteger out = new AtomicInteger();
    final AtomicInteger most = new AtomicInteger();
    final AtomicInteger taken = new AtomicInteger();
    volatile int shortest = Integer.MAX_VALUE;

    @Override
    public Lease tryTake(int count, int length) {
      most.accumulateAndGet(out.addAndGet(count), Math::max);
      taken.incrementAndGet();
      shortest = Math.min(shortest, length);
      AtomicBoolean given = new AtomicBoolean();
      return () -> {
        if (given.compareAndSet(false, true)) {
          out.addAndGet(-count);
        }
      };
    }
  }

  @Test
  void chunksInFlightAreBoundedWhateverTheThreadsAndCountedWhileTheServerIsStopped() throws Exception {
    Recording heap = new Recording();
    SlipstreamConfig config = config("read-write", "32M", "1s");
    SharedBlockStore store = new MemcachedBlockStore.Provider().open(config, ReadStatistics.global().child(), heap);
    ExecutorService threads = Executors.newFixedThreadPool(12);
    try {
      byte[] block = TestData.bytes(3, BLOCK);
      byte[] stored = name(0);
      // Until every connection is up (a request on one not yet connected fails at once) and the path is warm
      // (a first lookup on a busy machine can outlive the 1 s deadline): writes and lookups that succeed,
      // twice as many in a row as the server has connections, within 30 s. A failure is retried after 10 ms:
      // failing at once, 200 tries in a row once took less time than a loaded machine took to connect.
      int inARow = 0;
      long warmBy = System.nanoTime() + 30_000_000_000L;
      while (inARow < 2 * MemcachedBlockStore.CONNECTIONS && System.nanoTime() < warmBy) {
        boolean ok = store.put(stored, block, 0, BLOCK) && store.get(stored, BLOCK, 0, new byte[BLOCK], 0, BLOCK);
        inARow = ok ? inARow + 1 : 0;
        if (!ok) {
          Thread.sleep(10);
        }
      }
      assertThat(inARow).as("writes and lookups that succeeded in a row").isEqualTo(2 * MemcachedBlockStore.CONNECTIONS);
      assertThat(store.put(stored, block, 0, BLOCK)).isTrue();
      int writes = heap.taken.get();
      byte[] back = new byte[BLOCK];
      assertThat(store.get(stored, BLOCK, 0, back, 0, BLOCK)).isTrue();
      assertThat(back).isEqualTo(block);
      assertThat(heap.taken.get()).as("the lookup took room, as each write did").isEqualTo(writes + 1);
      assertThat(heap.shortest).as("room for a chunk's value").isGreaterThanOrEqualTo(Chunks.valueLength(Chunks.CHUNK));
      assertThat(heap.out.get()).as("given back once they ended").isZero();

      server.pause();
      List<Future<Boolean>> lookups = new ArrayList<>();
      for (int i = 0; i < 12; i++) {
        byte[] name = name(i);
        lookups.add(threads.submit(() -> store.get(name, BLOCK, 0, new byte[BLOCK], 0, BLOCK)));
      }
      for (Future<Boolean> f : lookups) {
        assertThat(f.get(60, TimeUnit.SECONDS)).as("a stopped server is a miss").isFalse();
      }
      int bound = MemcachedBlockStore.IN_FLIGHT_BLOCKS * Chunks.count(BLOCK);
      assertThat(heap.most.get()).as("chunks in flight at once, of 12 lookups of 2").isLessThanOrEqualTo(bound);
      assertThat(heap.out.get()).as("the lookups cut off by their deadline, still open").isPositive();
      assertThat(store.servers().get(0).values().get("no_memory")).as("lookups that found no room in time")
          .isPositive();
      server.resume();
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (heap.out.get() > 0 && System.nanoTime() < deadline) {
        Thread.sleep(10);
      }
      assertThat(heap.out.get()).as("every room given back once the requests ended").isZero();
    } finally {
      threads.shutdownNow();
      store.close();
    }
  }

  private static byte[] name(int i) {
    byte[] name = new byte[32];
    name[0] = (byte) 0x5a;
    name[31] = (byte) i;
    return name;
  }

  /** memcached's {@code stats}, the numeric ones. */
  private static Map<String, Long> stats(MemcachedServer server) throws IOException {
    Map<String, Long> stats = new HashMap<>();
    try (Socket s = new Socket("127.0.0.1", server.address().getPort())) {
      OutputStream out = s.getOutputStream();
      BufferedReader in = new BufferedReader(new InputStreamReader(s.getInputStream(), StandardCharsets.US_ASCII));
      out.write("stats\r\n".getBytes(StandardCharsets.US_ASCII));
      out.flush();
      for (String line = in.readLine(); line != null && !line.equals("END"); line = in.readLine()) {
        String[] f = line.split(" ");
        if (f.length == 3 && f[2].matches("\\d+")) {
          stats.put(f[1], Long.parseLong(f[2]));
        }
      }
    }
    return stats;
  }
}
