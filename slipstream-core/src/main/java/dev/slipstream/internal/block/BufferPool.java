/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.block;

import dev.slipstream.ReadStatistics;
import java.io.InterruptedIOException;
import java.lang.ref.Reference;
import java.lang.ref.ReferenceQueue;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.Map;
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
 * before it evicts or waits for anything a stream holds.
 *
 * <p>Idle memory yields to the heap: free and kept buffers are held only softly ({@link IdleBuffer}),
 * so the collector takes them back when the JVM needs heap, and always before it would throw an
 * {@link OutOfMemoryError}; the pool then counts them as gone. Free buffers no stream has reused for
 * {@link #FREE_IDLE_NANOS} are dropped, at the pool's next call or by a look it schedules while it
 * holds free buffers (so also after the last read). Memory handed out (a stream's blocks, a
 * reader's pin on kept bytes) is held strongly and is never taken back this way.
 */
public final class BufferPool {
  private final long budget;
  private final ReentrantLock lock = new ReentrantLock();
  private final Condition released = lock.newCondition();
  /** Free buffers by size, the most recently freed first (the oldest last). */
  private final Map<Integer, ArrayDeque<IdleBuffer>> free = new HashMap<>();
  /** Idle, evictable blocks in the order they became idle. */
  private final LinkedHashSet<PooledBytes> idle = new LinkedHashSet<>();
  private long inUseBytes;
  /** Bytes of free buffers the collector has not taken (those it took stay in {@link #free} until seen). */
  private long freeBytes;
  /**
   * The buffers handed out and not yet given back, by identity, each with the soft reference it came
   * with: a release of any other is a bug.
   */
  private final IdentityHashMap<byte[], IdleBuffer> inUse = new IdentityHashMap<>();
  /** Where the collector puts the idle buffers it took. */
  private final ReferenceQueue<byte[]> collectorTook = new ReferenceQueue<>();
  /** Bytes of free buffers the collector took. */
  private long collectedFree;
  /**
   * How long a free buffer (one holding nothing kept) waits for a stream to reuse it before it goes
   * back to the heap. A sequential read reuses its buffers within milliseconds; a pool no one has
   * asked for a buffer of that size for seconds is done with it.
   */
  static final long FREE_IDLE_NANOS = TimeUnit.SECONDS.toNanos(2);
  /**
   * Runs the look at free buffers {@link #FREE_IDLE_NANOS} after a buffer became free, so that a pool
   * nobody calls any more (the reads have ended) still gives them back: the JDK's one daemon thread for
   * delays, then the common pool, for a moment under the lock. Nothing of the pool's own.
   */
  private static final java.util.concurrent.Executor LATER =
      java.util.concurrent.CompletableFuture.delayedExecutor(FREE_IDLE_NANOS + FREE_IDLE_NANOS / 4, TimeUnit.NANOSECONDS);
  private final Runnable freeCheck = this::checkFreeLater;
  /** A look at free buffers is scheduled on {@link #LATER}: at most one at a time. */
  private boolean freeCheckPending;
  /** The size {@link #freeOfSize} was last asked for, and its free buffers. */
  private int lastSize = -1;
  private ArrayDeque<IdleBuffer> lastFree;
  /** When free buffers are next looked at for having waited too long ({@link System#nanoTime()}). */
  private long nextFreeCheck;
  private long evictions;
  /** Free buffers that still hold bytes worth reading again, by name. */
  private final KeptBuffers kept = new KeptBuffers();
  /** Readers waiting in {@link #acquire}: only then is a block becoming idle worth a signal. */
  private final java.util.concurrent.atomic.AtomicInteger waiting = new java.util.concurrent.atomic.AtomicInteger();

  /** How buffers are made; a seam so that a test can make an allocation fail. */
  private final IntFunction<byte[]> allocator;
  /** {@link System#nanoTime()}; a seam so that a test can let free buffers wait without waiting. */
  private final LongSupplier clock;

  public BufferPool(long budget) {
    this(budget, byte[]::new, System::nanoTime);
  }

  BufferPool(long budget, IntFunction<byte[]> allocator) {
    this(budget, allocator, System::nanoTime);
  }

  BufferPool(long budget, IntFunction<byte[]> allocator, LongSupplier clock) {
    if (budget <= 0) {
      throw new IllegalArgumentException("memory budget must be positive: " + budget);
    }
    this.budget = budget;
    this.allocator = allocator;
    this.clock = clock;
    this.nextFreeCheck = clock.getAsLong();
  }


  /** Buffers of odd sizes are rounded up to this, so that they can be reused. */
  public static final int SIZE_UNIT = 64 * 1024;

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

  /** Bytes of buffers that exist: handed out, or free in the pool (and not yet taken by the collector). */
  public long allocatedBytes() {
    lock.lock();
    try {
      expunge();
      return allocated();
    } finally {
      lock.unlock();
    }
  }

  /** Bytes handed out and not yet returned. Zero when every stream is closed. */
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
      return collectedFree + kept.collected();
    } finally {
      lock.unlock();
    }
  }

  private long allocated() {
    return inUseBytes + freeBytes + kept.bytes();
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
      handOut(k.buffer(), k.held());
      return k.buffer();
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
   * A buffer of exactly {@code size} bytes, or null if the budget is spent (kept bytes given up first).
   * Never waits.
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
      PooledBytes victim;
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
    release(buffer, null, 0, null);
  }

  /**
   * Gives a buffer back whose first {@code length} bytes are kept under {@code name} (unless that name
   * is kept already), evictions of them counted on {@code stats}; a null name keeps nothing.
   */
  void release(byte[] buffer, Object name, int length, ReadStatistics stats) {
    lock.lock();
    try {
      IdleBuffer held = inUse.remove(buffer);
      if (held == null) {
        throw new IllegalStateException("buffer released twice or not from this pool");
      }
      inUseBytes -= held.size;
      long now = clock.getAsLong();
      if (name == null || !kept.put(name, held, length, stats)) {
        held.where = IdleBuffer.Where.FREE;
        held.freeSince = now;
        freeOfSize(held.size).push(held);
        freeBytes += held.size;
      }
      dropIdleFree(now);
      if (freeBytes > 0 && !freeCheckPending) {
        freeCheckPending = true;
        LATER.execute(freeCheck);
      }
      released.signalAll();
    } finally {
      lock.unlock();
    }
  }

  /** {@code block} is fetched (or failed): it may be evicted when memory is needed and no reader pins it. */
  void markIdle(PooledBytes block) {
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
  void unmarkIdle(PooledBytes block) {
    lock.lock();
    try {
      idle.remove(block);
    } finally {
      lock.unlock();
    }
  }

  /** The newest idle block no reader has pinned, removed from the idle set; or null. */
  private PooledBytes pollIdle() {
    PooledBytes newest = null;
    for (PooledBytes b : idle) {
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
    expunge();
    dropIdleFree(clock.getAsLong());
    byte[] b = popFree(size);
    if (b != null) {
      return b;
    }
    // Make room by dropping free buffers of other sizes, if that is what stands in the way.
    if (allocated() + size > budget && freeBytes > 0) {
      Iterator<ArrayDeque<IdleBuffer>> it = free.values().iterator();
      while (allocated() + size > budget && it.hasNext()) {
        ArrayDeque<IdleBuffer> other = it.next();
        while (allocated() + size > budget && !other.isEmpty()) {
          drop(other.pop());
        }
      }
    }
    // Then by giving up kept bytes, least recently used first: a buffer of the right size is reused as it is.
    while (allocated() + size > budget) {
      KeptBuffers.Kept dropped = kept.evictEldest();
      if (dropped == null) {
        break;
      }
      if (dropped.held().size == size) {
        handOut(dropped.buffer(), dropped.held());
        return dropped.buffer();
      }
      dropped.held().where = IdleBuffer.Where.GONE;
      dropped.held().clear();
    }
    if (allocated() + size <= budget) {
      // Counted only once it exists: an OutOfMemoryError here must not hold budget forever.
      b = allocator.apply(size);
      handOut(b, new IdleBuffer(b, collectorTook));
      return b;
    }
    return null;
  }

  /** A free buffer of {@code size} bytes the collector has not taken, handed out; or null. */
  private byte[] popFree(int size) {
    ArrayDeque<IdleBuffer> q = freeOfSize(size);
    for (IdleBuffer held; (held = q.poll()) != null; ) {
      byte[] b = held.get();
      if (b != null) {
        freeBytes -= size;
        handOut(b, held);
        return b;
      }
      collected(held); // taken by the collector, not yet queued
    }
    return null;
  }

  /**
   * The free buffers of {@code size} bytes. The last size asked is remembered: a sequential read asks
   * for one size, and looking it up in the map would box it on every block.
   */
  private ArrayDeque<IdleBuffer> freeOfSize(int size) {
    if (size != lastSize) {
      lastFree = free.computeIfAbsent(size, k -> new ArrayDeque<>());
      lastSize = size;
    }
    return lastFree;
  }

  private void handOut(byte[] b, IdleBuffer held) {
    held.where = IdleBuffer.Where.IN_USE;
    inUse.put(b, held);
    inUseBytes += held.size;
  }

  /**
   * Free buffers that have waited {@link #FREE_IDLE_NANOS} for a stream to reuse them go to the heap;
   * looked for a few times in that period, not at every call.
   */
  private void dropIdleFree(long now) {
    if (now - nextFreeCheck < 0) {
      return;
    }
    nextFreeCheck = now + FREE_IDLE_NANOS / 4;
    long cutoff = now - FREE_IDLE_NANOS;
    for (ArrayDeque<IdleBuffer> q : free.values()) {
      for (IdleBuffer oldest; (oldest = q.peekLast()) != null && oldest.freeSince - cutoff < 0; ) {
        drop(q.pollLast());
      }
    }
  }

  /** The scheduled look: drops what has waited too long, and looks again later while free buffers remain. */
  private void checkFreeLater() {
    lock.lock();
    try {
      freeCheckPending = false;
      expunge();
      dropIdleFree(clock.getAsLong());
      if (freeBytes > 0) {
        freeCheckPending = true;
        LATER.execute(freeCheck);
      }
    } finally {
      lock.unlock();
    }
  }

  /** A free buffer leaves the pool for the heap (unless the collector has taken it already). */
  private void drop(IdleBuffer held) {
    if (held.where == IdleBuffer.Where.FREE) {
      freeBytes -= held.size;
    }
    held.where = IdleBuffer.Where.GONE;
    held.clear();
  }

  /** Counts the idle buffers the collector took back, as the reference queue reports them. */
  private void expunge() {
    for (Reference<? extends byte[]> r; (r = collectorTook.poll()) != null; ) {
      IdleBuffer held = (IdleBuffer) r;
      switch (held.where) {
        case FREE -> collected(held); // it stays in its queue until popped or dropped
        case KEPT -> kept.cleared(held);
        default -> { } // handed out again, or counted already
      }
    }
  }

  private void collected(IdleBuffer held) {
    if (held.where == IdleBuffer.Where.FREE) {
      freeBytes -= held.size;
      collectedFree += held.size;
    }
    held.where = IdleBuffer.Where.GONE;
  }

  /**
   * Clears every idle buffer as the collector does when the JVM runs short of heap: what a test of
   * the pool's accounting needs, since no test can make a real collector do it on cue.
   */
  void clearIdleAsTheCollectorWould() {
    lock.lock();
    try {
      for (ArrayDeque<IdleBuffer> q : free.values()) {
        q.forEach(IdleBuffer::enqueue);
      }
      kept.forEachIdle(IdleBuffer::enqueue);
    } finally {
      lock.unlock();
    }
  }
}
