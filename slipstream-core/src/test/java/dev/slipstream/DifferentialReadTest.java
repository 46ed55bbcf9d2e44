/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import dev.slipstream.testkit.S3ServerExtension;
import dev.slipstream.testkit.TestData;
import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Random sequences of every kind of read, compared byte for byte with the data the object was made
 * from, over objects whose sizes straddle block edges, and over every chain of sources a stream can
 * have: memory and S3 alone (no disk cache), and memory, the disk cache and S3 (the small objects with
 * every block cached and read once before the sequences, so that most come from disk; the large one
 * with the blocks seeks leave behind). Each case is reproducible from its seed.
 */
@Timeout(600)
class DifferentialReadTest {
  @RegisterExtension static final S3ServerExtension S3 = new S3ServerExtension();
  static final String BUCKET = "diff";
  static final int SMALL_BLOCK = 4096;
  static final int LARGE_BLOCK = 256 * 1024;
  static final long LARGE_SIZE = 64L << 20;
  static final int SEQUENCES_PER_SMALL_OBJECT = 160;
  static final int SEQUENCES_LARGE = 100;

  @org.junit.jupiter.api.io.TempDir static java.nio.file.Path cacheDir;
  static Slipstream smallBlocks;
  static Slipstream largeBlocks;
  static Slipstream smallNoDisk;
  static Slipstream largeNoDisk;

  @BeforeAll
  static void setUp() {
    S3.server().createBucket(BUCKET);
    for (long size : smallSizes()) {
      S3.server().putGenerated(BUCKET, "obj-" + size, size, size);
    }
    S3.server().putGenerated(BUCKET, "large", LARGE_SIZE, LARGE_SIZE);
    // A tight budget (16 blocks) so that eviction and shrinking prefetch are part of every run; the
    // disk cache keeps every block (small blocks) or those seeks leave behind (large ones), so that
    // later sequences read through it too.
    smallBlocks = Slipstream.builder().isolatedResources()
        .config(TestClients.config(S3.server()).set("block.size", String.valueOf(SMALL_BLOCK))
            .set("memory.max", String.valueOf(16 * SMALL_BLOCK)).set("prefetch.blocks", "4")
            .set("cache.disk.mode", "all").set("cache.disk.dir", cacheDir.resolve("small").toString()).build())
        .build();
    largeBlocks = Slipstream.builder().isolatedResources()
        .config(TestClients.config(S3.server()).set("block.size", String.valueOf(LARGE_BLOCK))
            .set("memory.max", "8M").set("prefetch.blocks", "8")
            .set("cache.disk.mode", "seek").set("cache.disk.dir", cacheDir.resolve("large").toString()).build())
        .build();
    smallNoDisk = Slipstream.builder().isolatedResources()
        .config(TestClients.config(S3.server()).set("cache.memory", "true").set("block.size", String.valueOf(SMALL_BLOCK))
            .set("memory.max", String.valueOf(16 * SMALL_BLOCK)).set("prefetch.blocks", "4")
            .set("cache.disk.mode", "off").build())
        .build();
    largeNoDisk = Slipstream.builder().isolatedResources()
        .config(TestClients.config(S3.server()).set("cache.memory", "true").set("block.size", String.valueOf(LARGE_BLOCK))
            .set("memory.max", "8M").set("prefetch.blocks", "8").set("cache.disk.mode", "off").build())
        .build();
  }

  /** Memory is back once the disk cache has written what it was given (pending writes hold their block). */
  private static void assertMemoryReturns(Slipstream client) {
    long deadline = System.nanoTime() + 30_000_000_000L;
    while (client.diskCachePendingWrites() > 0 && System.nanoTime() < deadline) {
      Thread.onSpinWait();
    }
    assertThat(client.memoryInUse()).isZero();
  }

  @AfterAll
  static void tearDown() {
    for (Slipstream c : List.of(smallBlocks, largeBlocks, smallNoDisk, largeNoDisk)) {
      c.close();
      assertMemoryReturns(c);
    }
    assertThat(smallNoDisk.statistics().get(Counter.DISK_CACHE_HITS)).isZero();
    assertThat(largeNoDisk.statistics().get(Counter.DISK_CACHE_HITS)).isZero();
    assertThat(smallBlocks.statistics().get(Counter.DISK_CACHE_HITS)).isPositive();
    assertThat(largeBlocks.statistics().get(Counter.DISK_CACHE_HITS)).isPositive();
  }

  static long[] smallSizes() {
    int b = SMALL_BLOCK;
    return new long[] {0, 1, b - 1, b, b + 1, b * 7 / 2, 10L * b + 17};
  }

  static Stream<Arguments> cases() {
    List<Arguments> out = new ArrayList<>();
    for (boolean disk : new boolean[] {true, false}) {
      for (long size : smallSizes()) {
        out.add(Arguments.of("obj-" + size, size, size, false, disk, SEQUENCES_PER_SMALL_OBJECT));
      }
      out.add(Arguments.of("large", LARGE_SIZE, LARGE_SIZE, true, disk, SEQUENCES_LARGE));
    }
    return out.stream();
  }

  @ParameterizedTest(name = "{0}, disk cache {4}: {5} sequences")
  @MethodSource("cases")
  void randomOperationSequencesReturnTheSourceBytes(String key, long size, long dataSeed, boolean large,
      boolean disk, int sequences) throws IOException {
    Slipstream client = large ? (disk ? largeBlocks : largeNoDisk) : (disk ? smallBlocks : smallNoDisk);
    int block = large ? LARGE_BLOCK : SMALL_BLOCK;
    if (disk && !large) {
      // Every block on disk before the sequences: they read from memory, disk and S3 alike.
      try (SlipstreamInputStream in = client.open(new S3Location(BUCKET, key))) {
        byte[] all = in.readAllBytes();
        assertSame(dataSeed, 0, all, 0, all.length);
      }
      assertThat(Slipstream.awaitDiskCacheWrites(java.time.Duration.ofSeconds(30))).isTrue();
    }
    for (int s = 0; s < sequences; s++) {
      long seed = key.hashCode() * 1000L + s;
      runSequence(client, key, size, dataSeed, block, seed, s % 2 == 0);
    }
    assertMemoryReturns(client);
  }

  private void runSequence(Slipstream client, String key, long size, long dataSeed, int block, long seed,
      boolean knownLength) throws IOException {
    Random r = new Random(seed);
    S3Location loc = new S3Location(BUCKET, key);
    OpenOptions opts = knownLength ? OpenOptions.length(size) : OpenOptions.NONE;
    List<String> trail = new ArrayList<>();
    try (SlipstreamInputStream in = client.open(loc, opts)) {
      long pos = 0;
      int ops = 5 + r.nextInt(30);
      for (int op = 0; op < ops; op++) {
        int kind = r.nextInt(10);
        int len = randomLength(r, block);
        try {
          switch (kind) {
            case 0 -> { // single byte
              trail.add("read() at " + pos);
              int v = in.read();
              if (pos >= size) {
                assertThat(v).isEqualTo(-1);
              } else {
                assertThat(v).isEqualTo(TestData.byteAt(dataSeed, pos) & 0xff);
                pos++;
              }
            }
            case 1, 2 -> { // array read at the stream position
              int off = r.nextInt(8);
              byte[] buf = new byte[off + len + r.nextInt(8)];
              trail.add("read(buf, " + off + ", " + len + ") at " + pos);
              int n = in.read(buf, off, len);
              pos += check(dataSeed, size, pos, len, buf, off, n);
            }
            case 3 -> { // seek, sometimes out of range
              long target = randomPosition(r, size, pos, block);
              trail.add("seek(" + target + ")");
              if (target < 0 || target > size) {
                try {
                  in.seek(target);
                  fail("seek(" + target + ") on " + size + " bytes did not throw");
                } catch (EOFException expected) {
                  // position unchanged
                }
              } else {
                in.seek(target);
                pos = target;
              }
            }
            case 4 -> { // skip
              long n = r.nextInt(3) == 0 ? -r.nextInt(10) : r.nextInt(block * 3);
              trail.add("skip(" + n + ") at " + pos);
              long skipped = in.skip(n);
              assertThat(skipped).isEqualTo(n <= 0 ? 0 : Math.min(n, size - pos));
              pos += skipped;
            }
            case 5 -> { // positional read
              long at = randomPosition(r, size, pos, block);
              if (at < 0) {
                at = 0;
              }
              byte[] buf = new byte[len];
              trail.add("read(" + at + ", buf, 0, " + len + ")");
              int n = in.read(at, buf, 0, len);
              check(dataSeed, size, at, len, buf, 0, n);
            }
            case 6 -> { // positional readFully
              long at = Math.max(0, randomPosition(r, size, pos, block));
              byte[] buf = new byte[len];
              trail.add("readFully(" + at + ", " + len + ")");
              if (at + len > size) {
                try {
                  in.readFully(at, buf, 0, len);
                  fail("readFully past the end did not throw");
                } catch (EOFException expected) {
                  // expected
                }
              } else {
                in.readFully(at, buf, 0, len);
                assertSame(dataSeed, at, buf, 0, len);
              }
            }
            case 7 -> { // ByteBuffer read, heap or direct
              boolean direct = r.nextBoolean();
              ByteBuffer bb = direct ? ByteBuffer.allocateDirect(len + 3) : ByteBuffer.allocate(len + 3);
              bb.position(3);
              trail.add("read(" + (direct ? "direct" : "heap") + " ByteBuffer " + len + ") at " + pos);
              int n = in.read(bb);
              byte[] got = new byte[Math.max(n, 0)];
              bb.position(3);
              bb.get(got);
              pos += check(dataSeed, size, pos, len, got, 0, n);
            }
            case 8 -> { // asynchronous (vectored) range read, sometimes past the end
              long at = Math.max(0, randomPosition(r, size, pos, block));
              byte[] buf = new byte[len + 2];
              trail.add("readFullyAsync(" + at + ", " + len + ")");
              try {
                in.readFullyAsync(at, buf, 2, len).get();
                assertThat(at + len).isLessThanOrEqualTo(size);
                assertSame(dataSeed, at, buf, 2, len);
              } catch (java.util.concurrent.ExecutionException e) {
                assertThat(e.getCause()).isInstanceOf(EOFException.class);
                assertThat(at + len).isGreaterThan(size);
              } catch (InterruptedException e) {
                throw new java.io.InterruptedIOException();
              }
            }
            default -> { // position and available
              trail.add("getPos/available at " + pos);
              assertThat(in.getPos()).isEqualTo(pos);
              assertThat(in.available()).isEqualTo((int) Math.min(Integer.MAX_VALUE, size - pos));
            }
          }
        } catch (AssertionError | IOException | RuntimeException e) {
          throw new AssertionError("sequence seed " + seed + " over " + key + " (" + size + " bytes), ops: "
              + trail, e);
        }
      }
      assertThat(in.getPos()).isEqualTo(pos);
    }
  }

  /** Checks a read of up to {@code len} at {@code pos} that returned {@code n}; returns bytes consumed. */
  private static int check(long dataSeed, long size, long pos, int len, byte[] buf, int off, int n) {
    if (len == 0) {
      assertThat(n).isZero();
      return 0;
    }
    if (pos >= size) {
      assertThat(n).isEqualTo(-1);
      return 0;
    }
    assertThat(n).isBetween(1, (int) Math.min(len, size - pos));
    assertSame(dataSeed, pos, buf, off, n);
    return n;
  }

  private static void assertSame(long dataSeed, long pos, byte[] buf, int off, int n) {
    long mismatch = TestData.firstMismatch(dataSeed, pos, buf, off, n);
    if (mismatch >= 0) {
      fail("wrong byte at object offset " + mismatch + " (read of " + n + " at " + pos + ")");
    }
  }

  private static int randomLength(Random r, int block) {
    return switch (r.nextInt(6)) {
      case 0 -> r.nextInt(2); // 0 or 1
      case 1 -> 1 + r.nextInt(64);
      case 2 -> block - 1 + r.nextInt(3); // around a block
      case 3 -> 1 + r.nextInt(block / 2);
      case 4 -> 1 + r.nextInt(block * 3);
      default -> 1 + r.nextInt(4096);
    };
  }

  private static long randomPosition(Random r, long size, long pos, int block) {
    return switch (r.nextInt(8)) {
      case 0 -> 0;
      case 1 -> size;
      case 2 -> size == 0 ? 0 : Math.max(0, size - 1 - r.nextInt((int) Math.min(size, block)));
      case 3 -> (size / block) == 0 ? 0 : (long) r.nextInt((int) Math.min(Integer.MAX_VALUE, size / block + 1)) * block
          + (r.nextInt(3) - 1);
      case 4 -> pos + r.nextInt(block * 2); // a short forward jump
      case 5 -> r.nextInt(20) == 0 ? -1 - r.nextInt(5) : Math.max(0, pos - r.nextInt(block)); // back, or invalid
      case 6 -> size + 1 + r.nextInt(5); // past the end
      default -> size == 0 ? 0 : (long) (r.nextDouble() * size);
    };
  }
}
