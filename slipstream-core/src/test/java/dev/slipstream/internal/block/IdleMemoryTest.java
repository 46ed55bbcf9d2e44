/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.block;

import static org.assertj.core.api.Assertions.assertThat;

import dev.slipstream.ReadStatistics;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Memory the pool holds idle (free buffers, kept bytes) yields to the heap: when the collector takes it
 * the pool counts it gone and its budget is whole again; free buffers no stream reuses go back after
 * {@link FreeBuffers#IDLE_NANOS}; memory handed out, or kept bytes being read, stays. (That the real
 * collector takes them before an OutOfMemoryError is {@code EnginePressureTest}'s; here the collector's
 * clearing is played by {@link BufferPool#clearIdleAsTheCollectorWould()}.)
 */
@Timeout(30)
class IdleMemoryTest {
  private static final int SIZE = 64 * 1024;

  private static void keep(BufferPool pool, String name, byte fill) {
    byte[] buffer = pool.tryAcquire(SIZE);
    assertThat(buffer).as("memory for %s", name).isNotNull();
    java.util.Arrays.fill(buffer, fill);
    Block b = new Block(0, 0, buffer, SIZE, false, pool, ReadStatistics.global().child(), 0);
    b.complete();
    b.keepInMemory(name);
    b.releaseOwner();
  }

  @Test
  void idleBuffersTheCollectorTookAreCountedGoneAndTheBudgetIsWholeAgain() {
    BufferPool pool = new BufferPool(4L * SIZE);
    keep(pool, "a", (byte) 1);
    keep(pool, "b", (byte) 2);
    byte[] held = pool.tryAcquire(SIZE); // in use
    pool.release(pool.tryAcquire(SIZE)); // a free buffer
    assertThat(pool.allocatedBytes()).isEqualTo(4L * SIZE);

    pool.clearIdleAsTheCollectorWould();

    assertThat(pool.collectedBytes()).isEqualTo(3L * SIZE);
    assertThat(pool.keptBytes()).isZero();
    assertThat(pool.inUseBytes()).isEqualTo(SIZE);
    assertThat(pool.allocatedBytes()).as("only the buffer in use").isEqualTo(SIZE);
    assertThat(pool.pinKept("a")).isNull();
    assertThat(pool.takeKept("b", SIZE)).isNull();
    for (int i = 0; i < 3; i++) {
      assertThat(pool.tryAcquire(SIZE)).as("buffer %s of the budget's room", i).isNotNull();
    }
    assertThat(pool.tryAcquire(SIZE)).isNull();
    pool.release(held);
  }

  @Test
  void keptBytesBeingReadAreNotIdle() {
    BufferPool pool = new BufferPool(2L * SIZE);
    keep(pool, "read", (byte) 5);
    keep(pool, "idle", (byte) 6);
    KeptBuffers.Kept reading = pool.pinKept("read");

    pool.clearIdleAsTheCollectorWould();

    assertThat(reading.buffer()).as("held for its reader").containsOnly((byte) 5);
    assertThat(pool.keptBytes()).isEqualTo(SIZE);
    pool.unpinKept(reading);
    KeptBuffers.Kept again = pool.pinKept("read");
    assertThat(again).as("still kept once its reader is done").isNotNull();
    assertThat(again.buffer()).containsOnly((byte) 5);
    pool.unpinKept(again);
    assertThat(pool.pinKept("idle")).isNull();
  }

  @Test
  void aFreeBufferOfTheRightSizeIsReusedAsItIs() throws Exception {
    BufferPool pool = new BufferPool(4L * SIZE);
    byte[] first = pool.acquire(SIZE);
    pool.release(first);
    assertThat(pool.acquire(SIZE)).as("the same array: nothing allocated per block").isSameAs(first);
  }

  /** A sequential read's steady state: blocks given back and taken again, the same buffers, no garbage. */
  @Test
  void buffersCycledAsASequentialReadCyclesThemAllocateNothing() throws Exception {
    com.sun.management.ThreadMXBean threads =
        (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
    BufferPool pool = new BufferPool(8L * SIZE);
    byte[][] window = new byte[4][];
    for (int i = 0; i < window.length; i++) {
      window[i] = pool.acquire(SIZE); // the first buffers are made once
    }
    pool.release(window[0]); // the first free buffer schedules a look at free buffers, once per 2 s
    window[0] = pool.acquire(SIZE);
    long before = threads.getCurrentThreadAllocatedBytes();
    for (int i = 0; i < 10_000; i++) {
      int slot = i & 3;
      pool.release(window[slot]);
      window[slot] = pool.acquire(SIZE);
    }
    assertThat(threads.getCurrentThreadAllocatedBytes() - before).as("bytes allocated by 10,000 cycles").isZero();
    for (byte[] b : window) {
      pool.release(b);
    }
  }

  /** Once the reads end nobody calls the pool: its free buffers go back all the same. */
  @Test
  void freeBuffersGoBackToTheHeapAfterTheLastRead() throws Exception {
    BufferPool pool = new BufferPool(4L * SIZE);
    byte[] a = pool.acquire(SIZE);
    byte[] b = pool.acquire(SIZE);
    pool.release(a);
    pool.release(b);
    assertThat(pool.allocatedBytes()).isEqualTo(2L * SIZE);
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (pool.allocatedBytes() > 0 && System.nanoTime() < deadline) {
      Thread.sleep(100); // allocatedBytes() only reads: the pool's own scheduled look drops them
    }
    assertThat(pool.allocatedBytes()).isZero();
  }

  @Test
  void freeBuffersNoStreamReusesGoBackToTheHeap() throws Exception {
    AtomicLong now = new AtomicLong();
    BufferPool pool = new BufferPool(4L * SIZE, byte[]::new, now::get);
    byte[] a = pool.acquire(SIZE);
    byte[] b = pool.acquire(SIZE);
    pool.release(a);
    pool.release(b);
    assertThat(pool.allocatedBytes()).isEqualTo(2L * SIZE);

    now.addAndGet(FreeBuffers.IDLE_NANOS / 2);
    byte[] again = pool.acquire(SIZE);
    assertThat(again).as("reused while fresh").isSameAs(b);
    assertThat(pool.allocatedBytes()).isEqualTo(2L * SIZE);

    now.addAndGet(FreeBuffers.IDLE_NANOS / 2 + TimeUnit.MILLISECONDS.toNanos(1));
    pool.release(again); // any call looks; "a" has waited longer than the limit, "b" has just come back
    assertThat(pool.allocatedBytes()).isEqualTo(SIZE);
    assertThat(pool.acquire(SIZE)).isSameAs(b);
  }
}
