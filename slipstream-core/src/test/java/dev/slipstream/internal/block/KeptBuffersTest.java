/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.block;

import static org.assertj.core.api.Assertions.assertThat;

import dev.slipstream.Counter;
import dev.slipstream.ReadStatistics;
import java.lang.ref.WeakReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The memory cache inside the pool: bytes kept by name are free memory, read again under a pin, taken over
 * whole, and the first memory any request for it takes, least recently used first; only filled bytes are
 * kept, one copy per name, never a block evicted for a waiting reader.
 */
@Timeout(30)
class KeptBuffersTest {
  private static final int SIZE = 64 * 1024;

  /** A block of {@code fill} bytes, filled, labelled to be kept as {@code name}, and dropped by its owner. */
  private static Block keptBlock(BufferPool pool, ReadStatistics stats, String name, byte fill) {
    byte[] buffer = pool.tryAcquire(SIZE);
    assertThat(buffer).as("memory for %s", name).isNotNull();
    java.util.Arrays.fill(buffer, fill);
    Block b = new Block(0, 0, buffer, SIZE, false, pool, stats, 0);
    b.complete();
    b.keepInMemory(name);
    b.releaseOwner();
    return b;
  }

  /** A block of {@code fill} bytes in {@code buffer}, filled, kept as passed under {@code name}, dropped by its owner. */
  private static void passedBlock(BufferPool pool, byte[] buffer, ReadStatistics stats, String name, byte fill) {
    java.util.Arrays.fill(buffer, fill);
    Block b = new Block(0, 0, buffer, SIZE, false, pool, stats, 0);
    b.complete();
    b.passed();
    b.keepInMemory(name);
    b.releaseOwner();
  }

  @Test
  void aNewBufferReusesTheEldestPassedBufferOfItsSizeWhileTheBudgetHasRoom() {
    ReadStatistics stats = ReadStatistics.global().child();
    int[] allocated = {0};
    BufferPool pool = new BufferPool(16L * SIZE, size -> {
      allocated[0]++;
      return new byte[size];
    });
    byte[] first = pool.tryAcquire(SIZE);
    byte[] second = pool.tryAcquire(SIZE);
    keptBlock(pool, stats, "kept", (byte) 1);
    passedBlock(pool, first, stats, "passed-1", (byte) 2);
    passedBlock(pool, second, stats, "passed-2", (byte) 3);
    assertThat(allocated[0]).isEqualTo(3);
    byte[] buffer = pool.tryAcquire(SIZE);
    assertThat(allocated[0]).as("a passed buffer reused, none allocated").isEqualTo(3);
    assertThat(buffer).containsOnly(2);
    assertThat(pool.pinKept("passed-1")).as("the eldest passed one gave up its bytes").isNull();
    assertThat(stats.get(Counter.MEMORY_CACHE_EVICTIONS)).isEqualTo(1);
    KeptBuffers.Kept kept = pool.pinKept("kept");
    assertThat(kept.buffer()).as("bytes kept as any other stay while the budget has room").containsOnly(1);
    pool.unpinKept(kept);
    pool.release(buffer);
    assertThat(pool.tryAcquire(2 * SIZE)).as("another size: new memory").isNotNull();
    assertThat(allocated[0]).isEqualTo(4);
    assertThat(pool.pinKept("passed-2")).as("kept while no buffer of its size is wanted").isNotNull();
  }

  @Test
  void passedBytesReadAgainAreKeptAsAnyOther() {
    ReadStatistics stats = ReadStatistics.global().child();
    BufferPool pool = new BufferPool(16L * SIZE);
    passedBlock(pool, pool.tryAcquire(SIZE), stats, "passed", (byte) 2);
    pool.unpinKept(pool.pinKept("passed"));
    byte[] buffer = pool.tryAcquire(SIZE);
    assertThat(buffer).as("new memory").containsOnly(0);
    KeptBuffers.Kept k = pool.pinKept("passed");
    assertThat(k).as("read again, so kept while the budget has room").isNotNull();
    assertThat(k.buffer()).containsOnly(2);
    pool.unpinKept(k);
  }

  @Test
  void keptBytesAreFreeMemoryAndAreReadAgainByName() {
    BufferPool pool = new BufferPool(2L * SIZE);
    keptBlock(pool, ReadStatistics.global().child(), "a", (byte) 7);
    assertThat(pool.inUseBytes()).isZero();
    assertThat(pool.keptBytes()).isEqualTo(SIZE);
    KeptBuffers.Kept k = pool.pinKept("a");
    assertThat(k.length()).isEqualTo(SIZE);
    assertThat(k.buffer()).containsOnly(7);
    pool.unpinKept(k);
    assertThat(pool.pinKept("b")).isNull();
  }

  @Test
  void aRequestForMemoryTakesKeptBytesLeastRecentlyUsedFirstAndCountsIt() {
    ReadStatistics stats = ReadStatistics.global().child();
    BufferPool pool = new BufferPool(2L * SIZE);
    keptBlock(pool, stats, "a", (byte) 1);
    keptBlock(pool, stats, "b", (byte) 2);
    pool.unpinKept(pool.pinKept("a")); // read again: "b" is now the least recently used
    byte[] buffer = pool.tryAcquire(SIZE);
    assertThat(buffer).as("prefetch gets kept memory").isNotNull();
    assertThat(pool.pinKept("b")).isNull();
    KeptBuffers.Kept a = pool.pinKept("a");
    assertThat(a.buffer()).containsOnly(1);
    pool.unpinKept(a);
    assertThat(stats.get(dev.slipstream.Counter.MEMORY_CACHE_EVICTIONS)).isEqualTo(1);
    assertThat(pool.evictions()).as("no block a stream held").isZero();
    pool.release(buffer);
  }

  /**
   * A request that giving up every kept buffer could not meet gives none up: the memory cache stays as
   * it was, and the request is simply refused.
   */
  @Test
  void aRequestThatCannotBeMetLeavesKeptBytesKept() {
    ReadStatistics stats = ReadStatistics.global().child();
    BufferPool pool = new BufferPool(4L * SIZE);
    byte[] inUse = pool.tryAcquire(2 * SIZE);
    keptBlock(pool, stats, "a", (byte) 1);
    keptBlock(pool, stats, "b", (byte) 2);
    assertThat(pool.tryAcquire(3 * SIZE)).as("in use plus the request exceed the budget").isNull();
    assertThat(pool.keptBytes()).as("kept bytes after a refused request").isEqualTo(2L * SIZE);
    assertThat(stats.get(Counter.MEMORY_CACHE_EVICTIONS)).isZero();
    KeptBuffers.Kept a = pool.pinKept("a");
    assertThat(a.buffer()).containsOnly(1);
    // "a" is being read, so only "b" could give way: not enough for two units either.
    assertThat(pool.tryAcquire(3 * SIZE - 1)).isNull();
    assertThat(pool.tryAcquire(2 * SIZE)).as("a pinned kept buffer is no room").isNull();
    assertThat(pool.keptBytes()).isEqualTo(2L * SIZE);
    pool.unpinKept(a);
    byte[] two = pool.tryAcquire(2 * SIZE);
    assertThat(two).as("met by giving up both").isNotNull();
    assertThat(pool.keptBytes()).isZero();
    assertThat(stats.get(Counter.MEMORY_CACHE_EVICTIONS)).isEqualTo(2);
    pool.release(two);
    pool.release(inUse);
  }

  @Test
  void keptBytesBeingReadAreNeverHandedOut() {
    BufferPool pool = new BufferPool(SIZE);
    keptBlock(pool, ReadStatistics.global().child(), "a", (byte) 3);
    KeptBuffers.Kept k = pool.pinKept("a");
    assertThat(pool.tryAcquire(SIZE)).isNull();
    assertThat(pool.takeKept("a", SIZE)).as("not even to take over").isNull();
    assertThat(k.buffer()).containsOnly(3);
    pool.unpinKept(k);
    byte[] b = pool.tryAcquire(SIZE);
    assertThat(b).isNotNull();
    assertThat(pool.keptBytes()).isZero();
    pool.release(b);
  }

  @Test
  void takingKeptBytesOverHandsTheBufferAsIfAcquired() {
    BufferPool pool = new BufferPool(2L * SIZE);
    keptBlock(pool, ReadStatistics.global().child(), "a", (byte) 4);
    assertThat(pool.takeKept("a", 2 * SIZE)).as("a buffer of another size").isNull();
    byte[] b = pool.takeKept("a", SIZE);
    assertThat(b).hasSize(SIZE).containsOnly(4);
    assertThat(pool.inUseBytes()).isEqualTo(SIZE);
    assertThat(pool.keptBytes()).isZero();
    assertThat(pool.pinKept("a")).isNull();
    pool.release(b);
    assertThat(pool.inUseBytes()).isZero();
  }

  @Test
  void onlyFilledBytesAreKeptAndOneCopyPerName() {
    BufferPool pool = new BufferPool(4L * SIZE);
    Block failed = new Block(0, 0, pool.tryAcquire(SIZE), SIZE, false, pool, ReadStatistics.global().child(), 0);
    failed.keepInMemory("failed");
    failed.fail(new java.io.IOException("injected"));
    failed.keepInMemory("failed");
    failed.releaseOwner();
    assertThat(pool.pinKept("failed")).isNull();
    keptBlock(pool, ReadStatistics.global().child(), "a", (byte) 5);
    keptBlock(pool, ReadStatistics.global().child(), "a", (byte) 6);
    assertThat(pool.keptBytes()).isEqualTo(SIZE);
    KeptBuffers.Kept k = pool.pinKept("a");
    assertThat(k.buffer()).as("the first copy stays").containsOnly(5);
    pool.unpinKept(k);
  }

  @Test
  void anIdleBlockEvictedForAReaderIsNotKept() throws Exception {
    BufferPool pool = new BufferPool(SIZE);
    Block idle = BufferPoolTest.idleBlock(pool, 0); // of the same 64 KiB
    idle.keepInMemory("idle");
    byte[] b = pool.acquire(SIZE);
    assertThat(pool.evictions()).isEqualTo(1);
    assertThat(pool.keptBytes()).isZero();
    pool.release(b);
  }

  /** A client closing: its kept bytes go back to the heap (not to the pool's free list), the others stay. */
  @Test
  void droppingKeptBytesGivesOnlyTheNamesAskedBackToTheHeap() {
    BufferPool pool = new BufferPool(2L * SIZE);
    keptBlock(pool, ReadStatistics.global().child(), "a", (byte) 1);
    keptBlock(pool, ReadStatistics.global().child(), "b", (byte) 2);
    pool.dropKept("a"::equals);
    assertThat(pool.pinKept("a")).isNull();
    assertThat(pool.keptBytes()).isEqualTo(SIZE);
    assertThat(pool.inUseBytes()).isZero();
    assertThat(pool.allocatedBytes()).isEqualTo(SIZE);
    assertThat(pool.tryAcquire(SIZE)).isNotNull(); // the room is there again, "b" still kept
    KeptBuffers.Kept b = pool.pinKept("b");
    assertThat(b).isNotNull();
    pool.unpinKept(b);
  }

  /**
   * A kept buffer outlives the stream that read it; for small objects they are kept by the thousand, and
   * each used to hold its stream's statistics (about 2.5 KB of counters) for as long as it stayed.
   */
  @Test
  @Timeout(60)
  void aKeptBufferHoldsItsClientsNumbersNotItsStreams() throws Exception {
    BufferPool pool = new BufferPool(1 << 20);
    ReadStatistics client = ReadStatistics.global().childWithLatencies();
    ReadStatistics stream = client.child();
    pool.release(pool.tryAcquire(64 * 1024), "kept", false, 100, stream);
    WeakReference<ReadStatistics> streamStats = new WeakReference<>(stream);
    stream = null;
    for (int i = 0; i < 100 && streamStats.get() != null; i++) {
      System.gc();
      Thread.sleep(10);
    }
    assertThat(streamStats.get()).as("the closed stream's statistics, with its bytes still kept").isNull();

    ReadStatistics another = client.child();
    pool.release(pool.tryAcquire(64 * 1024), "evicted", false, 100, another);
    pool.release(pool.acquire(1 << 20)); // takes every kept buffer
    assertThat(client.get(Counter.MEMORY_CACHE_EVICTIONS)).as("evictions on the client").isGreaterThanOrEqualTo(1);
    assertThat(another.get(Counter.MEMORY_CACHE_EVICTIONS)).as("evictions on the stream").isZero();
  }
}
