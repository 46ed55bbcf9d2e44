/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.block;

import dev.slipstream.ReadStatistics;
import java.io.InterruptedIOException;
import java.lang.ref.Reference;
import java.lang.ref.ReferenceQueue;
import java.util.IdentityHashMap;
import java.util.LinkedHashSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.IntFunction;
import java.util.function.LongSupplier;

/**
 * Block buffers under one memory budget, shared by every stream that uses this pool.
 *
 * <p>Two ways to get memory, and the difference is what keeps every stream moving:
 * <ul>
 *   <li>{@link #tryAcquire} is for prefetch: it never waits and never evicts a block a stream holds
 *       (it may take the memory cache's kept bytes, as any request does). When the budget is
 *       spent it says no, and the stream simply prefetches less. That is how the prefetch depth
 *       shrinks under pressure.</li>
 *   <li>{@link #acquire} is for the block a caller needs now. It may evict an idle block (fetched,
 *       not pinned by any reader, belonging to any stream) and otherwise waits until a buffer comes
 *       back. Buffers not idle are either being fetched (which ends in bounded time, retries being
 *       bounded) or pinned by a reader for one copy (no caller holds a pin while it acquires), so a
 *       waiting caller always gets memory eventually: no deadlock, whatever the number of streams.</li>
 * </ul>
 *
 * <p>Idle blocks are evicted newest first: under pressure the block a stream fetched furthest ahead is
 * the one it will need last. Released buffers are kept for reuse (no garbage per block) while they
 * fit the budget.
 *
 * <p>Free memory is also the memory tier: bytes labelled to be kept ({@link PooledBytes#keepInMemory})
 * stay in their buffer, under their name, once their last holder lets go, and count as free. A stream
 * reads them again ({@link #pinKept}) or takes the buffer over ({@link #takeKept}); any request for
 * memory that free buffers and the budget cannot meet takes them first, least recently used first,
 * before it evicts or waits for anything a stream holds; a request that giving them all up could not
 * meet takes none of them (unless one is a buffer of its very size). Bytes a declared sequential read has read past
 * ({@link PooledBytes#passed}) go first: a request for a buffer of their size takes the eldest of them
 * before it allocates, so that a long read, or a read of one object after another, reuses its buffers
 * instead of zeroing new ones while the budget has room. Read again before that, they are kept as any
 * other.
 *
 * <p>Idle memory yields to the heap: free and kept buffers are held only softly ({@link IdleBuffer}),
 * so the collector takes them back when the JVM needs heap, and always before it would throw an
 * {@link OutOfMemoryError}; the pool then counts them as gone. Free buffers no stream has reused for
 * {@link FreeBuffers#IDLE_NANOS} are dropped, at the pool's next call or by a look it schedules while it
 * holds free buffers (so also after the last read). Memory handed out (a stream's blocks, a
 * reader's pin on kept bytes) is held strongly and is never taken back this way.
 *
 * <p>Heap a read takes outside the pool's buffers, where a client library allocates arrays of its own (the
 * shared tier's, {@link CountedHeap}), is counted here too while it lasts ({@link #tryReserve}): as memory
 * in use, taken only if the budget has room (free and kept buffers giving way as for a buffer), never
 * waited for.
 *
 * <p>The budget and every count of bytes here are of heap taken, which for a large buffer is more than its
 * length ({@link HeapRegions}): the budget bounds what the pool costs the engine's heap.
 */
public final class BufferPool {
  private final long budget;
  private final ReentrantLock lock = new ReentrantLock();
  private final Condition released = lock.newCondition();
  /** Idle, evictable blocks in the order they became idle. */
  private final LinkedHashSet<Evictable> idle = new LinkedHashSet<>();
  private long inUseBytes;
  /** Of {@link #inUseBytes}, heap taken outside the pool's buffers ({@link #tryReserve}). */
  private long reservedBytes;
  /** Free buffers that hold nothing kept, waiting for reuse. */
  private final FreeBuffers free;
  /**
   * The buffers handed out and not yet given back, by identity, each with the soft reference it came
   * with: a release of any other is a bug.
   */
  private final IdentityHashMap<byte[], IdleBuffer> inUse = new IdentityHashMap<>();
  /** Where the collector puts the idle buffers it took. */
  private final ReferenceQueue<byte[]> collectorTook = new ReferenceQueue<>();
  /**
   * Runs a look at free buffers after they have waited {@link FreeBuffers#IDLE_NANOS}, so that a pool
   * nobody calls any more (the reads have ended) still gives them back: the JDK's one daemon thread for
   * delays, then the common pool, for a moment under the lock. No thread of the pool's own.
   */
  private static final Executor LATER = CompletableFuture.delayedExecutor(
      FreeBuffers.IDLE_NANOS + FreeBuffers.IDLE_NANOS / 4, TimeUnit.NANOSECONDS);
  private final Runnable freeLook = this::lookAtFreeLater;
  /** A look at free buffers is scheduled on {@link #LATER}: at most one at a time. */
  private boolean freeLookPending;
  private long evictions;
  /** Free buffers that still hold bytes worth reading again, by name. */
  private final KeptBuffers kept = new KeptBuffers();
  /** Readers waiting in {@link #acquire}: only then is a block becoming idle worth a signal. */
  private final java.util.concurrent.atomic.AtomicInteger waiting = new java.util.concurrent.atomic.AtomicInteger();

  /** How buffers are made; a seam so that a test can make an allocation fail. */
  private final IntFunction<byte[]> allocator;
  /** {@link System#nanoTime()}; a seam so that a test can let free buffers wait without waiting. */
  private final LongSupplier clock;
  /** What a buffer costs the heap; a seam so that a test can take G1's regions of any size. */
  private final HeapRegions regions;

  public BufferPool(long budget) {
    this(budget, byte[]::new, System::nanoTime);
  }

  BufferPool(long budget, IntFunction<byte[]> allocator) {
    this(budget, allocator, System::nanoTime);
  }

  BufferPool(long budget, IntFunction<byte[]> allocator, LongSupplier clock) {
    this(budget, allocator, clock, HeapRegions.current());
  }

  BufferPool(long budget, IntFunction<byte[]> allocator, LongSupplier clock, HeapRegions regions) {
    if (budget <= 0) {
      throw new IllegalArgumentException("memory budget must be positive: " + budget);
    }
    this.budget = budget;
    this.allocator = allocator;
    this.clock = clock;
    this.regions = regions;
    this.free = new FreeBuffers(clock.getAsLong());
  }

  /** Buffers of odd sizes are rounded up to this, so that they can be reused: the heap's granule. */
  public static final int SIZE_UNIT = HeapRegions.UNIT;

  /**
   * What a buffer of {@code size} bytes counts against the budget: the heap it takes ({@link
   * HeapRegions}); for a buffer that fits the budget, never more than the whole budget, so that a budget
   * of one block holds one.
   */
  private long cost(int size) {
    long heap = regions.cost(size);
    return size <= budget ? Math.min(budget, heap) : heap;
  }

  /** {@code bytes} rounded up to a multiple of {@link #SIZE_UNIT}. */
  public static int sizeFor(int bytes) {
    return (int) (((long) bytes + SIZE_UNIT - 1) / SIZE_UNIT * SIZE_UNIT);
  }

  /**
   * The buffer for a block of {@code blockLength} bytes of an object of {@code objectLength}: a whole
   * block for objects of a block or more (one size for all their blocks, reused as they are), else the
   * block's length in {@link #SIZE_UNIT} multiples.
   */
  public static int blockBufferSize(long objectLength, int blockSize, int blockLength) {
    return objectLength >= blockSize ? blockSize : Math.min(blockSize, sizeFor(blockLength));
  }

  public long budget() {
    return budget;
  }

  /**
   * Bytes of buffers that exist: handed out, or free in the pool (and not yet taken by the collector); and
   * the heap reserved outside them ({@link #reservedBytes}).
   */
  public long allocatedBytes() {
    lock.lock();
    try {
      expunge();
      return allocated();
    } finally {
      lock.unlock();
    }
  }

  /**
   * Bytes handed out and not yet returned, with the heap outside the pool's buffers counted for reads
   * ({@link #reservedBytes}). Zero when every stream is closed.
   */
  public long inUseBytes() {
    lock.lock();
    try {
      return inUseBytes;
    } finally {
      lock.unlock();
    }
  }

  /** Bytes of free buffers that hold bytes kept by name (the memory tier). */
  public long keptBytes() {
    lock.lock();
    try {
      expunge();
      return kept.bytes();
    } finally {
      lock.unlock();
    }
  }

  /** Bytes of idle buffers (free or kept) the collector has taken back because the JVM needed heap. */
  public long collectedBytes() {
    lock.lock();
    try {
      expunge();
      return free.collected() + kept.collected();
    } finally {
      lock.unlock();
    }
  }

  private long allocated() {
    return inUseBytes + free.bytes() + kept.bytes();
  }

  /**
   * Pins the bytes kept under {@code name} for one read; null if none are. The caller copies from
   * {@link KeptBuffers.Kept#buffer()} and then calls {@link #unpinKept}, always.
   */
  public KeptBuffers.Kept pinKept(Object name) {
    lock.lock();
    try {
      expunge();
      return kept.pin(name);
    } finally {
      lock.unlock();
    }
  }

  public void unpinKept(KeptBuffers.Kept k) {
    lock.lock();
    try {
      kept.unpin(k);
    } finally {
      lock.unlock();
    }
  }

  /**
   * Hands over the buffer that holds the bytes kept under {@code name}, if it is {@code size} bytes and
   * not being read: the caller holds it as a buffer of {@link #acquire} and releases it the same way.
   */
  public byte[] takeKept(Object name, int size) {
    lock.lock();
    try {
      expunge();
      KeptBuffers.Kept k = kept.take(name, size);
      if (k == null) {
        return null;
      }
      return handOut(k.buffer(), k.held());
    } finally {
      lock.unlock();
    }
  }

  /**
   * Forgets the bytes kept under the names {@code which} accepts (a client closing) and gives their
   * buffers back to the heap, not to the free list: a closed client's cache, up to the whole budget,
   * must not stay allocated in a JVM whose other clients (or other code) need the memory.
   */
  public void dropKept(java.util.function.Predicate<Object> which) {
    lock.lock();
    try {
      kept.removeIf(which);
      released.signalAll();
    } finally {
      lock.unlock();
    }
  }

  public long evictions() {
    lock.lock();
    try {
      return evictions;
    } finally {
      lock.unlock();
    }
  }

  /**
   * A buffer of exactly {@code size} bytes, or null if the budget is spent (kept bytes given up first,
   * but only when that makes room: a refused request leaves the memory cache as it was). Never waits.
   */
  public byte[] tryAcquire(int size) {
    lock.lock();
    try {
      return take(size);
    } finally {
      lock.unlock();
    }
  }

  /**
   * A buffer of exactly {@code size} bytes, evicting an idle block or waiting for one to come back if
   * the budget is spent. The caller must hold no pin on any block while it waits.
   */
  public byte[] acquire(int size) throws InterruptedIOException {
    if (size > budget) {
      throw new IllegalArgumentException("a buffer of " + size + " bytes exceeds the memory budget of " + budget);
    }
    while (true) {
      Evictable victim;
      lock.lock();
      try {
        byte[] b = take(size);
        if (b != null) {
          return b;
        }
        victim = pollIdle();
        if (victim == null) {
          // Woken by a release or a block becoming idle; the timeout is only a safety net.
          waiting.incrementAndGet();
          try {
            released.await(50, TimeUnit.MILLISECONDS);
          } finally {
            waiting.decrementAndGet();
          }
          continue;
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new InterruptedIOException("interrupted while waiting for a block buffer");
      } finally {
        lock.unlock();
      }
      // Outside the lock: evicting calls back into release().
      boolean evicted = victim.evict();
      lock.lock();
      try {
        if (evicted) {
          evictions++;
        } else if (victim.isOwned()) {
          idle.add(victim); // a reader pinned it in the meantime; it stays a candidate
        }
      } finally {
        lock.unlock();
      }
    }
  }

  /** Gives a buffer back. */
  public void release(byte[] buffer) {
    release(buffer, null, false, 0, null);
  }

  /**
   * Gives a buffer back whose first {@code length} bytes are kept under {@code name} (unless that name
   * is kept already), evictions of them counted on {@code stats}; a null name keeps nothing. {@code
   * passed}: kept bytes a declared read has read past, whose buffer is the first a new one of its size
   * takes.
   */
  void release(byte[] buffer, Object name, boolean passed, int length, ReadStatistics stats) {
    lock.lock();
    try {
      IdleBuffer held = inUse.remove(buffer);
      if (held == null) {
        throw new IllegalStateException("buffer released twice or not from this pool");
      }
      inUseBytes -= held.cost;
      long now = clock.getAsLong();
      if (name == null || !kept.put(name, held, length, stats, passed)) {
        free.push(held, now);
      }
      free.dropIdle(now, false);
      if (free.bytes() > 0 && !freeLookPending) {
        freeLookPending = true;
        LATER.execute(freeLook);
      }
      released.signalAll();
    } finally {
      lock.unlock();
    }
  }

  /** {@code block} is fetched (or failed): it may be evicted when memory is needed and no reader pins it. */
  void markIdle(Evictable block) {
    lock.lock();
    try {
      // Checked under the lock: an owner that released the block before this must not find it here later.
      if (block.isOwned()) {
        idle.add(block);
        released.signalAll();
      }
    } finally {
      lock.unlock();
    }
  }

  /** An idle block lost its last reader pin: wake a waiting reader, if there is one. */
  void evictable() {
    if (waiting.get() > 0) {
      lock.lock();
      try {
        released.signalAll();
      } finally {
        lock.unlock();
      }
    }
  }

  /** {@code block} is in use or gone: it may not be evicted. */
  void unmarkIdle(Evictable block) {
    lock.lock();
    try {
      idle.remove(block);
    } finally {
      lock.unlock();
    }
  }

  /** The newest idle block no reader has pinned, removed from the idle set; or null. */
  private Evictable pollIdle() {
    Evictable newest = null;
    for (Evictable b : idle) {
      if (b.isUnpinned()) {
        newest = b;
      }
    }
    if (newest != null) {
      idle.remove(newest);
    }
    return newest;
  }

  private byte[] take(int size) {
    long cost = cost(size);
    expunge();
    free.dropIdle(clock.getAsLong(), false);
    IdleBuffer reused = free.pop(size);
    if (reused != null) {
      return handOut(reused.handedOut, reused);
    }
    // Then a passed buffer of this size: new memory would cost its zeroing, and a heap that grows.
    KeptBuffers.Kept passed = kept.evictPassed(size);
    if (passed != null) {
      return handOut(passed.buffer(), passed.held());
    }
    if (!roomCanBeMade(cost)) {
      // Give nothing up for a request that would be refused anyway; only a kept buffer of this very size
      // can serve it as it is.
      KeptBuffers.Kept same = kept.evictEldest(size);
      return same == null ? null : handOut(same.buffer(), same.held());
    }
    // A kept buffer of the right size given up on the way is reused as it is.
    KeptBuffers.Kept same = makeRoom(cost, size);
    if (same != null) {
      return handOut(same.buffer(), same.held());
    }
    if (allocated() + cost <= budget) {
      // Counted only once it exists: an OutOfMemoryError here must not hold budget forever.
      byte[] b = allocator.apply(size);
      return handOut(b, new IdleBuffer(b, cost, collectorTook));
    }
    return null;
  }

  /**
   * Whether dropping free buffers and kept ones nobody reads could make room for {@code cost} more bytes:
   * not when the memory in use (a kept buffer being read is in use) and the request exceed the budget.
   */
  private boolean roomCanBeMade(long cost) {
    return allocated() - free.bytes() - kept.unreadBytes() + cost <= budget;
  }

  /**
   * Makes room for {@code cost} more bytes: drops free buffers of any size, then gives up kept bytes, least
   * recently used first. Returns a kept buffer of {@code reuseSize} bytes it came to instead of dropping it
   * (the caller reuses it, and needs no more room), or null.
   */
  private KeptBuffers.Kept makeRoom(long cost, int reuseSize) {
    while (allocated() + cost > budget && free.dropAny() >= 0) {
      // dropped one
    }
    while (allocated() + cost > budget) {
      KeptBuffers.Kept dropped = kept.evictEldest();
      if (dropped == null) {
        break;
      }
      if (dropped.held().size == reuseSize) {
        return dropped;
      }
      dropped.held().where = IdleBuffer.Where.GONE;
      dropped.held().clear();
    }
    return null;
  }

  /**
   * Counts {@code cost} bytes of heap that something other than a buffer of this pool takes for a read (a
   * client library's own arrays, {@link CountedHeap}) against the budget, as in use, making room as a
   * buffer would; false, giving nothing up, if the budget cannot hold it now. Never waits. {@link
   * #unreserve} gives it back.
   */
  boolean tryReserve(long cost) {
    if (cost <= 0) {
      throw new IllegalArgumentException("heap to reserve must be positive: " + cost);
    }
    lock.lock();
    try {
      expunge();
      free.dropIdle(clock.getAsLong(), false);
      if (!roomCanBeMade(cost)) {
        return false;
      }
      makeRoom(cost, -1);
      if (allocated() + cost > budget) {
        return false;
      }
      inUseBytes += cost;
      reservedBytes += cost;
      return true;
    } finally {
      lock.unlock();
    }
  }

  /** Gives back {@code cost} bytes {@link #tryReserve} counted. */
  void unreserve(long cost) {
    lock.lock();
    try {
      if (cost <= 0 || cost > reservedBytes) {
        throw new IllegalStateException("unreserving " + cost + " bytes of " + reservedBytes + " reserved");
      }
      inUseBytes -= cost;
      reservedBytes -= cost;
      released.signalAll();
    } finally {
      lock.unlock();
    }
  }

  /** Bytes of heap outside the pool's buffers counted as in use ({@link #tryReserve}). */
  long reservedBytes() {
    lock.lock();
    try {
      return reservedBytes;
    } finally {
      lock.unlock();
    }
  }

  private byte[] handOut(byte[] b, IdleBuffer held) {
    held.where = IdleBuffer.Where.IN_USE;
    held.handedOut = b;
    inUse.put(b, held);
    inUseBytes += held.cost;
    return b;
  }

  /** The scheduled look: drops what has waited too long, and looks again later while free buffers remain. */
  private void lookAtFreeLater() {
    lock.lock();
    try {
      freeLookPending = false;
      expunge();
      free.dropIdle(clock.getAsLong(), true);
      if (free.bytes() > 0) {
        freeLookPending = true;
        LATER.execute(freeLook);
      }
    } finally {
      lock.unlock();
    }
  }

  /** Counts the idle buffers the collector took back, as the reference queue reports them. */
  private void expunge() {
    for (Reference<? extends byte[]> r; (r = collectorTook.poll()) != null; ) {
      IdleBuffer held = (IdleBuffer) r;
      switch (held.where) {
        case FREE -> free.cleared(held); // it stays queued until popped or dropped
        case KEPT -> kept.cleared(held);
        default -> { } // handed out again, or counted already
      }
    }
  }

  /**
   * Clears every idle buffer as the collector does when the JVM runs short of heap: what a test of
   * the pool's accounting needs, since no test can make a real collector do it on cue.
   */
  void clearIdleAsTheCollectorWould() {
    lock.lock();
    try {
      free.forEach(IdleBuffer::enqueue);
      kept.forEachIdle(IdleBuffer::enqueue);
    } finally {
      lock.unlock();
    }
  }
}
