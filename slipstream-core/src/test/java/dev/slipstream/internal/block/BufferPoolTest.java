/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.block;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.slipstream.ReadStatistics;
import java.io.InterruptedIOException;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The budget counts only buffers that exist; {@code tryAcquire} never waits, {@code acquire} evicts or
 * waits; every buffer handed out comes back once.
 */
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

  // ---- the budget ----------------------------------------------------------------------------

  @Test
  void aBudgetThatIsNotPositiveIsRefused() {
    assertThatThrownBy(() -> new BufferPool(0)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new BufferPool(-1)).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void tryAcquireGivesABufferExactlyWhenItFitsTheBudgetBesideTheBuffersInUse() {
    long budget = 10L * SIZE;
    BufferPool pool = new BufferPool(budget);
    Random random = new Random(18);
    List<byte[]> held = new ArrayList<>();
    long heldBytes = 0;
    for (int i = 0; i < 2_000; i++) {
      if (!held.isEmpty() && random.nextInt(3) == 0) {
        byte[] b = held.remove(random.nextInt(held.size()));
        pool.release(b);
        heldBytes -= b.length;
      } else {
        int size = (1 + random.nextInt(4)) * SIZE;
        byte[] b = pool.tryAcquire(size);
        if (heldBytes + size <= budget) {
          assertThat(b).as("op %d: %d held, %d asked", i, heldBytes, size).isNotNull().hasSize(size);
          held.add(b);
          heldBytes += size;
        } else {
          assertThat(b).as("op %d: %d held, %d asked", i, heldBytes, size).isNull();
        }
      }
      assertThat(pool.inUseBytes()).isEqualTo(heldBytes);
      assertThat(pool.allocatedBytes()).isBetween(heldBytes, budget);
    }
    for (byte[] b : held) {
      pool.release(b);
    }
    assertThat(pool.inUseBytes()).isZero();
  }

  @Test
  void theBudgetBoundsTheHeapBuffersTakeNotTheirLength() {
    int block = 8 << 20;
    // G1 at regions of 1 MiB (a heap under 4 GiB): an 8 MiB buffer takes nine regions.
    BufferPool pool = new BufferPool(32L << 20, byte[]::new, System::nanoTime, new HeapRegions(1 << 20));
    List<byte[]> held = new ArrayList<>();
    for (byte[] b; (b = pool.tryAcquire(block)) != null; ) {
      held.add(b);
    }
    assertThat(held).as("8 MiB buffers in a budget of 32 MiB, at 9 MiB of heap each").hasSize(3);
    assertThat(pool.inUseBytes()).isEqualTo(27L << 20);
    assertThat(pool.tryAcquire(5 << 20)).as("a 5 MiB buffer takes six regions: more than the 5 MiB left").isNull();
    byte[] small = pool.tryAcquire(448 << 10); // below half a region: its length
    assertThat(small).isNotNull();
    assertThat(pool.inUseBytes()).isEqualTo((27L << 20) + (448 << 10));
    pool.release(small);
    held.forEach(pool::release);
    assertThat(pool.inUseBytes()).isZero();
    // Free for reuse, counted as the heap they take.
    assertThat(pool.allocatedBytes()).isEqualTo((27L << 20) + (448 << 10));
  }

  @Test
  void aBudgetOfOneBlockHoldsOneWhateverItsHeapCost() throws Exception {
    int block = 8 << 20;
    BufferPool pool = new BufferPool(block, byte[]::new, System::nanoTime, new HeapRegions(1 << 20));
    byte[] b = pool.acquire(block);
    assertThat(b).hasSize(block);
    assertThat(pool.tryAcquire(SIZE)).isNull();
    pool.release(b);
  }

  @Test
  void noTwoHoldersEverShareABuffer() {
    BufferPool pool = new BufferPool(8L * SIZE);
    Random random = new Random(7);
    IdentityHashMap<byte[], Boolean> held = new IdentityHashMap<>();
    List<byte[]> order = new ArrayList<>();
    for (int i = 0; i < 2_000; i++) {
      if (!order.isEmpty() && random.nextBoolean()) {
        byte[] b = order.remove(random.nextInt(order.size()));
        held.remove(b);
        pool.release(b);
      } else {
        byte[] b = pool.tryAcquire((1 + random.nextInt(2)) * SIZE);
        if (b != null) {
          assertThat(held.put(b, true)).as("op %d: a buffer handed out twice", i).isNull();
          order.add(b);
        }
      }
    }
  }

  @Test
  void aReleasedBufferIsReusedForTheSameSize() {
    BufferPool pool = new BufferPool(4L * SIZE);
    byte[] a = pool.tryAcquire(SIZE);
    pool.release(a);
    assertThat(pool.tryAcquire(SIZE)).isSameAs(a);
    assertThat(pool.allocatedBytes()).isEqualTo(SIZE);
  }

  @Test
  void freeBuffersOfAnotherSizeMakeRoomForANewOne() {
    BufferPool pool = new BufferPool(2L * SIZE);
    byte[] a = pool.tryAcquire(SIZE);
    byte[] b = pool.tryAcquire(SIZE);
    pool.release(a);
    pool.release(b);
    byte[] big = pool.tryAcquire(2 * SIZE);
    assertThat(big).hasSize(2 * SIZE);
    assertThat(pool.allocatedBytes()).isEqualTo(2L * SIZE);
    assertThat(pool.inUseBytes()).isEqualTo(2L * SIZE);
  }

  @Test
  void aBufferLargerThanTheBudgetIsRefused() {
    BufferPool pool = new BufferPool(2L * SIZE);
    assertThatThrownBy(() -> pool.acquire(3 * SIZE)).isInstanceOf(IllegalArgumentException.class);
    assertThat(pool.tryAcquire(3 * SIZE)).isNull();
    assertThat(pool.allocatedBytes()).isZero();
  }

  @Test
  void sizesAreRoundedToTheSizeUnitAndBlockBuffersToTheBlock() {
    assertThat(BufferPool.sizeFor(1)).isEqualTo(BufferPool.SIZE_UNIT);
    assertThat(BufferPool.sizeFor(BufferPool.SIZE_UNIT)).isEqualTo(BufferPool.SIZE_UNIT);
    assertThat(BufferPool.sizeFor(BufferPool.SIZE_UNIT + 1)).isEqualTo(2 * BufferPool.SIZE_UNIT);
    assertThat(BufferPool.sizeFor(Integer.MAX_VALUE - BufferPool.SIZE_UNIT)).isPositive();
    int block = 8 * 1024 * 1024;
    // an object of a block or more: every block gets a whole block's buffer, the last one too
    assertThat(BufferPool.blockBufferSize(3L * block + 10, block, 10)).isEqualTo(block);
    // a smaller object: its length in size units
    assertThat(BufferPool.blockBufferSize(100_000, block, 100_000)).isEqualTo(BufferPool.sizeFor(100_000));
  }

  // ---- tryAcquire: never waits, never evicts ----------------------------------------------------

  @Test
  void tryAcquireReturnsNullWhenTheBudgetIsSpentInsteadOfWaiting() {
    BufferPool pool = new BufferPool(2L * SIZE);
    byte[] a = pool.tryAcquire(SIZE);
    byte[] b = pool.tryAcquire(SIZE);
    // the caller's thread, no one to release anything: waiting would never end (the class timeout)
    assertThat(pool.tryAcquire(SIZE)).isNull();
    assertThat(pool.tryAcquire(2 * SIZE)).isNull();
    assertThat(pool.inUseBytes()).isEqualTo(2L * SIZE);
    pool.release(a);
    pool.release(b);
  }

  @Test
  void tryAcquireDoesNotEvictAnIdleBlock() {
    BufferPool pool = new BufferPool(SIZE);
    Block idle = idleBlock(pool, 0);
    assertThat(pool.tryAcquire(SIZE)).isNull();
    assertThat(pool.evictions()).isZero();
    assertThat(idle.tryPin()).as("the idle block is still there").isTrue();
    idle.unpin();
    idle.releaseOwner();
    assertThat(pool.inUseBytes()).isZero();
  }

  // ---- acquire: evicts, else waits ----------------------------------------------------------------

  @Test
  void acquireEvictsTheNewestIdleBlock() throws Exception {
    BufferPool pool = new BufferPool(2L * SIZE);
    Block older = idleBlock(pool, 0);
    Block newer = idleBlock(pool, 1);
    byte[] b = pool.acquire(SIZE);
    assertThat(b).hasSize(SIZE);
    assertThat(pool.evictions()).isEqualTo(1);
    assertThat(newer.tryPin()).as("the newest idle block was evicted").isFalse();
    assertThat(older.tryPin()).as("the older one stays").isTrue();
    older.unpin();
    older.releaseOwner();
    pool.release(b);
    assertThat(pool.inUseBytes()).isZero();
  }

  @Test
  void acquireWaitsForMemoryAndIsWokenByARelease() throws Exception {
    BufferPool pool = new BufferPool(2L * SIZE);
    byte[] a = pool.acquire(SIZE);
    byte[] b = pool.acquire(SIZE);
    Waiter w = Waiter.start(pool, SIZE);
    w.awaitWaiting();
    assertThat(w.result).as("no memory, nothing to evict: it waits").isNotDone();
    pool.release(a);
    assertThat(w.result.get(10, TimeUnit.SECONDS)).as("the buffer just released").isSameAs(a);
    assertThat(pool.allocatedBytes()).isEqualTo(2L * SIZE);
    pool.release(b);
    pool.release(a);
    assertThat(pool.inUseBytes()).isZero();
  }

  @Test
  void acquireDoesNotEvictAPinnedBlockAndTakesItOnceUnpinned() throws Exception {
    BufferPool pool = new BufferPool(SIZE);
    Block block = idleBlock(pool, 0);
    assertThat(block.tryPin()).isTrue(); // a reader copying from it
    Waiter w = Waiter.start(pool, SIZE);
    w.awaitWaiting();
    assertThat(w.result).isNotDone();
    assertThat(pool.evictions()).isZero();
    block.unpin(); // the reader is done: the block is idle and unpinned
    byte[] b = w.result.get(10, TimeUnit.SECONDS);
    assertThat(b).hasSize(SIZE);
    assertThat(pool.evictions()).isEqualTo(1);
    assertThat(block.tryPin()).isFalse();
    pool.release(b);
    assertThat(pool.inUseBytes()).isZero();
  }

  @Test
  void aWaitingAcquireIsWokenByABlockBecomingIdle() throws Exception {
    BufferPool pool = new BufferPool(SIZE);
    byte[] buffer = pool.acquire(SIZE);
    Block fetching = new Block(0, 0, buffer, SIZE, true, pool, ReadStatistics.global().child(), 0);
    Waiter w = Waiter.start(pool, SIZE);
    w.awaitWaiting();
    assertThat(w.result).as("a block being fetched is not evicted").isNotDone();
    fetching.complete();
    assertThat(w.result.get(10, TimeUnit.SECONDS)).isSameAs(buffer);
    pool.release(buffer);
    assertThat(pool.inUseBytes()).isZero();
  }

  @Test
  void aWaitingAcquireCanBeInterrupted() throws Exception {
    BufferPool pool = new BufferPool(SIZE);
    byte[] a = pool.acquire(SIZE);
    Waiter w = Waiter.start(pool, SIZE);
    w.awaitWaiting();
    w.thread.interrupt();
    assertThatThrownBy(() -> w.result.get(10, TimeUnit.SECONDS))
        .isInstanceOf(ExecutionException.class).cause().isInstanceOf(InterruptedIOException.class);
    assertThat(w.interruptedAfter.get(10, TimeUnit.SECONDS)).as("the interrupt is kept").isTrue();
    pool.release(a);
    assertThat(pool.inUseBytes()).isZero();
  }

  @Test
  void manyThreadsAcquiringMoreThanTheBudgetAllFinishAndReturnEverything() throws Exception {
    BufferPool pool = new BufferPool(3L * SIZE);
    List<Thread> threads = new ArrayList<>();
    List<Throwable> failures = java.util.Collections.synchronizedList(new ArrayList<>());
    for (int t = 0; t < 6; t++) {
      Thread thread = new Thread(() -> {
        try {
          for (int i = 0; i < 200; i++) {
            byte[] b = pool.acquire(SIZE);
            assertThat(pool.inUseBytes()).isLessThanOrEqualTo(pool.budget());
            b[0]++;
            pool.release(b);
          }
        } catch (Throwable e) {
          failures.add(e);
        }
      });
      threads.add(thread);
      thread.start();
    }
    for (Thread thread : threads) {
      thread.join(20_000);
      assertThat(thread.isAlive()).isFalse();
    }
    assertThat(failures).isEmpty();
    assertThat(pool.inUseBytes()).isZero();
    assertThat(pool.allocatedBytes()).isLessThanOrEqualTo(pool.budget());
  }

  // ---- release -----------------------------------------------------------------------------------

  @Test
  void releasingABufferTwiceIsAnError() {
    BufferPool pool = new BufferPool(2L * SIZE);
    byte[] a = pool.tryAcquire(SIZE);
    pool.release(a);
    assertThatThrownBy(() -> pool.release(a)).isInstanceOf(IllegalStateException.class);
    assertThat(pool.inUseBytes()).isZero();
  }

  @Test
  void releasingABufferNotFromThisPoolIsAnError() {
    BufferPool pool = new BufferPool(2L * SIZE);
    assertThatThrownBy(() -> pool.release(new byte[SIZE])).isInstanceOf(IllegalStateException.class);
    byte[] a = pool.tryAcquire(SIZE);
    assertThatThrownBy(() -> pool.release(new byte[2 * SIZE])).isInstanceOf(IllegalStateException.class);
    pool.release(a);
    assertThat(pool.inUseBytes()).isZero();
  }

  @Test
  void releasingABufferTwiceIsAnErrorEvenWhileOthersAreInUse() {
    BufferPool pool = new BufferPool(2L * SIZE);
    byte[] a = pool.tryAcquire(SIZE);
    byte[] b = pool.tryAcquire(SIZE);
    pool.release(a);
    assertThatThrownBy(() -> pool.release(a)).isInstanceOf(IllegalStateException.class);
    // else 'a' is free twice, and two callers get the same buffer:
    assertThat(pool.tryAcquire(SIZE)).isNotSameAs(pool.tryAcquire(SIZE));
    pool.release(b);
  }

  @Test
  void releasingAForeignBufferIsAnErrorEvenWhileOthersAreInUse() {
    BufferPool pool = new BufferPool(2L * SIZE);
    byte[] a = pool.tryAcquire(SIZE);
    assertThatThrownBy(() -> pool.release(new byte[SIZE])).isInstanceOf(IllegalStateException.class);
    assertThat(pool.inUseBytes()).isEqualTo(SIZE);
    pool.release(a);
  }

  @Test
  void inUseBytesComeBackToZeroOnceEveryBlockIsDroppedAndUnpinned() throws Exception {
    BufferPool pool = new BufferPool(4L * SIZE);
    ReadStatistics stats = ReadStatistics.global().child();
    List<Block> blocks = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      // the owner's reference, a fetch's pin and a reader's pin
      blocks.add(new Block(i, (long) i * SIZE, pool.acquire(SIZE), SIZE, false, pool, stats, 2));
    }
    assertThat(pool.inUseBytes()).isEqualTo(4L * SIZE);
    for (Block b : blocks) {
      b.complete();
      b.unpin(); // the fetch's pin
      b.fetchEnded();
      b.releaseOwner(); // dropped while a reader still copies from it
    }
    assertThat(pool.inUseBytes()).as("readers still hold them").isEqualTo(4L * SIZE);
    for (Block b : blocks) {
      b.unpin(); // the readers' pins
    }
    assertThat(pool.inUseBytes()).isZero();
    assertThat(pool.allocatedBytes()).isEqualTo(4L * SIZE);
  }

  /** A fetched block of 64 KiB that only its owner holds: evictable. */
  static Block idleBlock(BufferPool pool, long index) {
    byte[] buffer = pool.tryAcquire(SIZE);
    assertThat(buffer).isNotNull();
    Block b = new Block(index, index * SIZE, buffer, SIZE, false, pool, ReadStatistics.global().child(), 0);
    b.complete();
    return b;
  }

  /** {@code acquire} on a thread of its own. */
  private static final class Waiter {
    final CompletableFuture<byte[]> result = new CompletableFuture<>();
    final CompletableFuture<Boolean> interruptedAfter = new CompletableFuture<>();
    Thread thread;

    static Waiter start(BufferPool pool, int size) {
      Waiter w = new Waiter();
      w.thread = new Thread(() -> {
        try {
          w.result.complete(pool.acquire(size));
        } catch (Throwable e) {
          w.result.completeExceptionally(e);
        } finally {
          w.interruptedAfter.complete(Thread.currentThread().isInterrupted());
        }
      }, "acquire");
      w.thread.setDaemon(true);
      w.thread.start();
      return w;
    }

    /** Until the thread waits in the pool (its only timed wait) or has finished. */
    void awaitWaiting() throws InterruptedException {
      while (thread.getState() != Thread.State.TIMED_WAITING && !result.isDone()) {
        Thread.sleep(1);
      }
    }
  }
}
