/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.block;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.slipstream.Counter;
import dev.slipstream.ReadStatistics;
import dev.slipstream.spi.HeapAllowance;
import org.junit.jupiter.api.Test;

/**
 * Heap a shared tier's client takes outside the pool's buffers, counted in the pool while it lasts: at what
 * its arrays cost the heap, as memory in use; taken only where the budget has room, kept bytes giving way as
 * for a buffer, and none given up for room that cannot be had.
 */
class CountedHeapTest {
  private static final int MIB = 1 << 20;
  /** A chunk's value as the memcached client reads it: 512 KiB and a header, humongous in regions of 1 MiB. */
  private static final int CHUNK_VALUE = 512 * 1024 + 85;
  private static final HeapRegions ONE_MIB_REGIONS = new HeapRegions(MIB);

  /** Bytes of {@code size}, filled, kept under {@code name} and let go by their owner. */
  private static void kept(BufferPool pool, ReadStatistics stats, String name, int size) {
    byte[] buffer = pool.tryAcquire(size);
    assertThat(buffer).as("memory for %s", name).isNotNull();
    Block b = new Block(0, 0, buffer, size, false, pool, stats, 0);
    b.complete();
    b.keepInMemory(name);
    b.releaseOwner();
  }

  private static BufferPool pool(long budget) {
    return new BufferPool(budget, byte[]::new, System::nanoTime, ONE_MIB_REGIONS);
  }

  @Test
  void aLeaseCountsWhatItsArraysCostTheHeapAsInUseUntilReleasedOnce() {
    BufferPool pool = pool(8L * MIB);
    HeapAllowance heap = new CountedHeap(pool, ONE_MIB_REGIONS);
    HeapAllowance.Lease lease = heap.tryTake(2, CHUNK_VALUE);
    assertThat(lease).isNotNull();
    assertThat(pool.reservedBytes()).as("two humongous arrays, a region each").isEqualTo(2L * MIB);
    assertThat(pool.inUseBytes()).isEqualTo(2L * MIB);
    assertThat(heap.tryTake(6, CHUNK_VALUE)).isNotNull();
    assertThat(heap.tryTake(1, 1)).as("the budget spent").isNull();
    lease.release();
    lease.release(); // a second release gives nothing back twice
    assertThat(pool.inUseBytes()).isEqualTo(6L * MIB);
    assertThatThrownBy(() -> heap.tryTake(0, CHUNK_VALUE)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("0 arrays");
  }

  @Test
  void roomIsMadeFromKeptBytesAndNoneIsGivenUpForRoomThatCannotBeHad() {
    ReadStatistics stats = ReadStatistics.global().child();
    BufferPool pool = pool(4L * MIB);
    HeapAllowance heap = new CountedHeap(pool, ONE_MIB_REGIONS);
    byte[] inUse = pool.tryAcquire(MIB); // humongous: two regions
    kept(pool, stats, "a", MIB / 4);
    kept(pool, stats, "b", MIB / 4);
    assertThat(heap.tryTake(3, CHUNK_VALUE)).as("in use plus the arrays exceed the budget").isNull();
    assertThat(pool.keptBytes()).as("kept bytes after a refused lease").isEqualTo(MIB / 2);
    assertThat(stats.get(Counter.MEMORY_CACHE_EVICTIONS)).isZero();
    HeapAllowance.Lease lease = heap.tryTake(2, CHUNK_VALUE);
    assertThat(lease).as("room made by giving up kept bytes").isNotNull();
    assertThat(pool.keptBytes()).isZero();
    assertThat(stats.get(Counter.MEMORY_CACHE_EVICTIONS)).isEqualTo(2);
    lease.release();
    pool.release(inUse);
    assertThat(pool.inUseBytes()).isZero();
  }
}
