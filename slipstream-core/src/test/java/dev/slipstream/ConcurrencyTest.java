/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.slipstream.testkit.S3ServerExtension;
import dev.slipstream.testkit.TestData;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Many threads on one stream, many streams under a small budget. The timeouts are deadlines that turn
 * a deadlock into a failure; nothing here measures speed.
 */
@Timeout(300)
class ConcurrencyTest {
  @RegisterExtension static final S3ServerExtension S3 = new S3ServerExtension();
  static final String BUCKET = "conc";

  @BeforeAll
  static void setUp() {
    S3.server().createBucket(BUCKET);
  }

  @Test
  void thirtyTwoThreadsOfPositionalReadsOnOneStream() throws Exception {
    long size = 16L << 20;
    S3.server().putGenerated(BUCKET, "shared", 11, size);
    SlipstreamConfig config = TestClients.config(S3.server()).set("cache.memory", "true")
        .set("block.size", "256K").set("memory.max", "4M").build();
    try (Slipstream client = Slipstream.builder().config(config).isolatedResources().build();
         SlipstreamInputStream in = client.open("s3://" + BUCKET + "/shared")) {
      ExecutorService pool = Executors.newFixedThreadPool(32);
      List<Future<Long>> results = new ArrayList<>();
      for (int t = 0; t < 32; t++) {
        final int thread = t;
        results.add(pool.submit(() -> {
          Random r = new Random(thread);
          long checked = 0;
          for (int i = 0; i < 60; i++) {
            // small random reads, block-sized reads and multi-block reads, some in order
            int len = switch (i % 3) {
              case 0 -> 1 + r.nextInt(8192);
              case 1 -> 256 * 1024;
              default -> 1 + r.nextInt(700 * 1024);
            };
            long at = (long) (r.nextDouble() * (size - len));
            byte[] buf = new byte[len];
            in.readFully(at, buf, 0, len);
            long bad = TestData.firstMismatch(11, at, buf, 0, len);
            if (bad >= 0) {
              throw new AssertionError("thread " + thread + ": wrong byte at " + bad);
            }
            checked += len;
          }
          return checked;
        }));
      }
      // Meanwhile the stream position reads sequentially and must be unaffected.
      byte[] seq = new byte[1 << 20];
      in.seek(3 << 20);
      int n = 0;
      while (n < seq.length) {
        n += in.read(seq, n, seq.length - n);
      }
      assertThat(TestData.firstMismatch(11, 3 << 20, seq, 0, seq.length)).isEqualTo(-1);
      long total = 0;
      for (Future<Long> f : results) {
        total += f.get(240, TimeUnit.SECONDS);
      }
      pool.shutdown();
      assertThat(total).isPositive();
      assertThat(in.getPos()).isEqualTo((3 << 20) + seq.length);
    }
  }

  @Test
  void twoHundredStreamsAtOnceUnderA64MiBBudget() throws Exception {
    int streams = 200;
    long size = (7L << 20) / 2; // 3.5 blocks of 1 MiB
    for (int i = 0; i < 10; i++) {
      S3.server().putGenerated(BUCKET, "many-" + i, 100 + i, size);
    }
    SlipstreamConfig config = TestClients.config(S3.server()).set("cache.memory", "true")
        .set("block.size", "1M").set("memory.max", "64M").set("prefetch.blocks", "8").build();
    try (Slipstream client = Slipstream.builder().config(config).isolatedResources().build()) {
      List<SlipstreamInputStream> opened = new ArrayList<>();
      for (int i = 0; i < streams; i++) {
        opened.add(client.open("s3://" + BUCKET + "/many-" + (i % 10)));
      }
      ExecutorService pool = Executors.newFixedThreadPool(streams);
      List<Future<?>> done = new ArrayList<>();
      for (int i = 0; i < streams; i++) {
        final int s = i;
        done.add(pool.submit(() -> {
          SlipstreamInputStream in = opened.get(s);
          byte[] all = in.readAllBytes();
          assertThat(all.length).isEqualTo((int) size);
          assertThat(TestData.firstMismatch(100 + (s % 10), 0, all, 0, all.length)).isEqualTo(-1);
          in.close();
          return null;
        }));
      }
      for (Future<?> f : done) {
        f.get(240, TimeUnit.SECONDS);
      }
      pool.shutdown();
      assertThat(client.memoryInUse()).isZero();
      assertThat(client.memoryBudget()).isEqualTo(64L << 20);
    }
  }

  @Test
  void oneThreadInterleavingTwoHundredStreamsNeverDeadlocks() throws Exception {
    // Every stream keeps blocks between calls; the budget holds 16 blocks for 200 streams, so the pool
    // must take idle blocks back from streams that are not reading at the moment.
    long size = 3L << 20;
    S3.server().putGenerated(BUCKET, "interleaved", 7, size);
    SlipstreamConfig config = TestClients.config(S3.server()).set("cache.memory", "true")
        .set("block.size", "1M").set("memory.max", "16M").build();
    try (Slipstream client = Slipstream.builder().config(config).isolatedResources().build()) {
      List<SlipstreamInputStream> opened = new ArrayList<>();
      for (int i = 0; i < 200; i++) {
        opened.add(client.open(S3Location.parse("s3://" + BUCKET + "/interleaved"), OpenOptions.length(size)));
      }
      byte[] chunk = new byte[300 * 1024];
      long[] positions = new long[200];
      boolean progress = true;
      while (progress) {
        progress = false;
        for (int i = 0; i < 200; i++) {
          int n = opened.get(i).read(chunk, 0, chunk.length);
          if (n > 0) {
            assertThat(TestData.firstMismatch(7, positions[i], chunk, 0, n)).isEqualTo(-1);
            positions[i] += n;
            progress = true;
          }
        }
      }
      for (int i = 0; i < 200; i++) {
        assertThat(positions[i]).isEqualTo(size);
        opened.get(i).close();
      }
      assertThat(client.memoryInUse()).isZero();
      assertThat(client.statistics().get(Counter.BLOCKS_EVICTED)).isPositive();
    }
  }

  @Test
  void closeFromAnotherThreadWhileReading() throws Exception {
    long size = 32L << 20;
    S3.server().putGenerated(BUCKET, "closing", 9, size);
    SlipstreamConfig config = TestClients.config(S3.server()).set("cache.memory", "true").set("block.size", "1M").set("memory.max", "16M").build();
    try (Slipstream client = Slipstream.builder().config(config).isolatedResources().build()) {
      for (int round = 0; round < 20; round++) {
        SlipstreamInputStream in = client.open("s3://" + BUCKET + "/closing");
        ExecutorService reader = Executors.newSingleThreadExecutor();
        Future<Throwable> f = reader.submit(() -> {
          byte[] buf = new byte[64 * 1024];
          long pos = 0;
          try {
            int n;
            while ((n = in.read(buf)) > 0) {
              if (TestData.firstMismatch(9, pos, buf, 0, n) >= 0) {
                return new AssertionError("wrong bytes at " + pos);
              }
              pos += n;
            }
            return null;
          } catch (IOException e) {
            return e;
          }
        });
        Thread.sleep(round % 5);
        in.close();
        Throwable t = f.get(60, TimeUnit.SECONDS);
        reader.shutdown();
        if (t != null) {
          assertThat(t).isInstanceOf(IOException.class).hasMessageContaining("closed");
        }
        assertThat(client.memoryInUse()).isZero();
      }
    }
  }

  @Test
  void positionalReadBehindASequentialReaderIsNotStarved() throws Exception {
    long size = 8L << 20;
    S3.server().putGenerated(BUCKET, "behind", 13, size);
    SlipstreamConfig config = TestClients.config(S3.server()).set("cache.memory", "true").set("block.size", "64K").set("memory.max", "8M").build();
    try (Slipstream client = Slipstream.builder().config(config).isolatedResources().build();
         SlipstreamInputStream in = client.open("s3://" + BUCKET + "/behind")) {
      in.seek(1 << 20); // the sequential reader works ahead of block 0 and drops what is behind it
      ExecutorService reader = Executors.newSingleThreadExecutor();
      Future<?> sequential = reader.submit(() -> {
        byte[] small = new byte[4096];
        while (in.read(small) > 0) {
          // keep the sequential path busy dropping blocks behind it
        }
        return null;
      });
      byte[] buf = new byte[64 * 1024];
      for (int i = 0; i < 20; i++) {
        in.readFully(0, buf);
        assertThat(TestData.firstMismatch(13, 0, buf, 0, buf.length)).isEqualTo(-1);
      }
      sequential.get(120, TimeUnit.SECONDS);
      reader.shutdown();
      // 112 blocks for the sequential reader, block 0 for the positional one (refetched at most once per
      // read): a positional reader whose block keeps being cancelled would show hundreds more.
      assertThat(in.statistics().get(Counter.GET_REQUESTS)).isLessThanOrEqualTo(112 + 20 + 8);
    }
  }

  @Test
  void largePositionalReadsDoNotMakeAStreamHoardMemory() throws Exception {
    long size = 32L << 20;
    S3.server().putGenerated(BUCKET, "hoard", 14, size);
    SlipstreamConfig config = TestClients.config(S3.server()).set("cache.memory", "true")
        .set("block.size", "256K").set("memory.max", "32M").set("prefetch.blocks", "4").build();
    try (Slipstream client = Slipstream.builder().config(config).isolatedResources().build();
         SlipstreamInputStream in = client.open("s3://" + BUCKET + "/hoard")) {
      Random r = new Random(5);
      byte[] buf = new byte[140 * 1024]; // over half a block: fetched as blocks, not directly
      for (int i = 0; i < 200; i++) {
        long at = (long) (r.nextDouble() * (size - buf.length));
        in.readFully(at, buf);
        assertThat(TestData.firstMismatch(14, at, buf, 0, buf.length)).isEqualTo(-1);
        // The stream keeps at most 8 blocks (prefetch depth 4 + 4); a dropped block whose cancelled fetch
        // is still ending holds its buffer a moment longer. Without the cap this grows to the whole budget
        // (128 blocks).
        assertThat(client.memoryInUse()).isLessThanOrEqualTo(12L * 256 * 1024);
      }
    }
  }

  @Test
  void aStreamOfAClosedClientFailsClearlyInsteadOfHanging() throws Exception {
    S3.server().putGenerated(BUCKET, "orphan", 15, 4L << 20);
    SlipstreamConfig config = TestClients.config(S3.server()).set("cache.memory", "true").set("block.size", "256K").set("memory.max", "8M").build();
    Slipstream client = Slipstream.builder().config(config).isolatedResources().build();
    SlipstreamInputStream in = client.open("s3://" + BUCKET + "/orphan");
    in.read();
    client.close();
    byte[] buf = new byte[1 << 20];
    try {
      while (in.read(buf) > 0) {
        // blocks already fetched may still be read; what is not must fail, not hang
      }
    } catch (IOException e) {
      assertThat(e).hasMessageContaining("closed");
    }
    in.close();
    assertThat(client.memoryInUse()).isZero();
  }

  @Test
  void eachCallOnAClosedS3ClientIsAnIOExceptionNamingTheCall() throws Exception {
    // The race behind a stream outliving its client: a fetch that passed the "closed" check just before
    // the S3 client closed. The HTTP client's unchecked "Connection pool shut down" must come out as an
    // IOException the read path knows, never as an IllegalStateException in the caller's read().
    S3.server().putGenerated(BUCKET, "closed-store", 16, 1024);
    var store = dev.slipstream.internal.store.S3ObjectStore.create(TestClients.config(S3.server()).build());
    S3Location where = S3Location.parse("s3://" + BUCKET + "/closed-store");
    store.close();
    assertThatThrownBy(() -> store.head(where)).isInstanceOf(IOException.class)
        .hasMessageContaining("HEAD s3://" + BUCKET + "/closed-store");
    assertThatThrownBy(() -> store.get(where, 0, 10, dev.slipstream.internal.store.ObjectStore.Version.ANY)).isInstanceOf(IOException.class)
        .hasMessageContaining("GET bytes 0-9 s3://" + BUCKET + "/closed-store");
    assertThatThrownBy(() -> store.list(new dev.slipstream.internal.store.ObjectStore.ListRequest(
        BUCKET, "closed", null, null, 1000, null))).isInstanceOf(IOException.class)
        .hasMessageContaining("s3://" + BUCKET + "/closed");
  }
}
