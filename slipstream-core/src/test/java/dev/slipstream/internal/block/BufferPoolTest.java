/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.block;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The budget counts only buffers that exist. */
@Timeout(30)
class BufferPoolTest {
  private static final int SIZE = 64 * 1024;

  @Test
  void anAllocationThatFailsCountsNothing() throws Exception {
    AtomicInteger failuresLeft = new AtomicInteger(3);
    BufferPool pool = new BufferPool(2L * SIZE, size -> {
      if (failuresLeft.getAndDecrement() > 0) {
        throw new OutOfMemoryError("injected: Java heap space");
      }
      return new byte[size];
    });

    for (int i = 0; i < 3; i++) {
      assertThatThrownBy(() -> pool.acquire(SIZE)).isInstanceOf(OutOfMemoryError.class);
      assertThat(pool.allocatedBytes()).isZero();
      assertThat(pool.inUseBytes()).isZero();
    }

    // The whole budget is still there: two buffers, without waiting.
    byte[] a = pool.tryAcquire(SIZE);
    byte[] b = pool.acquire(SIZE);
    assertThat(a).hasSize(SIZE);
    assertThat(b).hasSize(SIZE);
    assertThat(pool.tryAcquire(SIZE)).isNull();
    pool.release(a);
    pool.release(b);
    assertThat(pool.inUseBytes()).isZero();
  }

  @Test
  void aFailedTryAcquireLeavesTheBudgetWhole() {
    AtomicInteger calls = new AtomicInteger();
    BufferPool pool = new BufferPool(SIZE, size -> {
      if (calls.getAndIncrement() == 0) {
        throw new OutOfMemoryError("injected");
      }
      return new byte[size];
    });
    assertThatThrownBy(() -> pool.tryAcquire(SIZE)).isInstanceOf(OutOfMemoryError.class);
    assertThat(pool.allocatedBytes()).isZero();
    assertThat(pool.tryAcquire(SIZE)).hasSize(SIZE);
    assertThat(pool.inUseBytes()).isEqualTo(SIZE);
  }
}
