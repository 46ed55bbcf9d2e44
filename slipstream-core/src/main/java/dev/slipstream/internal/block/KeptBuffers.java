/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.block;

import dev.slipstream.Counter;
import dev.slipstream.ReadStatistics;
import java.util.Collection;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.function.Predicate;

/**
 * Free buffers of a {@link BufferPool} that still hold bytes worth reading again, by name: the memory
 * tier. A buffer comes here when the last holder of bytes that were labelled to be kept lets go of it,
 * and leaves when a stream reads it again, takes it over, the pool needs the memory (least recently
 * used first, and before anything a stream holds), or the collector takes it back because the JVM
 * needs heap (the buffer is held softly, see {@link IdleBuffer}, except while a reader copies from it).
 * Guarded by the pool's lock; no method blocks.
 */
public final class KeptBuffers {
  /** Bytes kept under one name, and the readers copying them now (a buffer being read is never reused). */
  public static final class Kept {
    private final Object name;
    private final IdleBuffer held;
    private final int length;
    private final ReadStatistics stats;
    /** Kept from a declared read that has passed them: the first kept bytes a new buffer of their size takes. */
    private boolean passed;
    private int readers;
    /** The buffer, held strongly while readers copy from it (or while it is being handed over); else null. */
    private byte[] pinned;

    private Kept(Object name, IdleBuffer held, int length, ReadStatistics stats) {
      this.name = name;
      this.held = held;
      this.length = length;
      this.stats = stats;
    }

    /** The bytes; valid while the reader that pinned them holds its pin. */
    public byte[] buffer() {
      return pinned;
    }

    /** How many bytes at the buffer's start are the kept bytes. */
    public int length() {
      return length;
    }

    IdleBuffer held() {
      return held;
    }

    /** The buffer held strongly, or false if the collector has taken it. */
    private boolean hold() {
      if (pinned == null) {
        pinned = held.get();
      }
      return pinned != null;
    }
  }

  /** In access order: the eldest is the least recently kept or read. */
  private final LinkedHashMap<Object, Kept> byName = new LinkedHashMap<>(64, 0.75f, true);
  /**
   * The passed ones among them by buffer size, eldest first (a lookup is of one size: no scan of the
   * others); a passed one read again is kept as any other from then on.
   */
  private final HashMap<Integer, LinkedHashSet<Kept>> passed = new HashMap<>();
  private long bytes;
  /** Bytes of the kept buffers being read now: no request for memory can have them. */
  private long readBytes;
  /** Bytes the collector took back from here. */
  private long collected;

  /** Bytes of the buffers kept. */
  long bytes() {
    return bytes;
  }

  /** Bytes of the kept buffers nobody reads: what a request for memory could take. */
  long unreadBytes() {
    return bytes - readBytes;
  }

  /** Bytes of kept buffers the collector has taken back since the pool began. */
  long collected() {
    return collected;
  }

  /**
   * Keeps {@code buffer} under {@code name}; false if that name is kept already (the caller then frees
   * the buffer as any other).
   */
  boolean put(Object name, IdleBuffer buffer, int length, ReadStatistics stats, boolean passedBy) {
    if (byName.containsKey(name)) {
      return false;
    }
    // The client's numbers, not the stream's: an entry outlives its stream, and kept by the thousand for small
    // objects, the streams' statistics it would hold (about 2.5 KB each) would be most of its cost.
    Kept k = new Kept(name, buffer, length, stats == null ? null : stats.lasting());
    byName.put(name, k);
    if (passedBy) {
      k.passed = true;
      passed.computeIfAbsent(buffer.size, size -> new LinkedHashSet<>()).add(k);
    }
    buffer.where = IdleBuffer.Where.KEPT;
    buffer.handedOut = null;
    buffer.keptAs = name;
    bytes += buffer.cost;
    return true;
  }

  /** The bytes kept under {@code name}, pinned for one reader; null if none (or the collector took them). */
  Kept pin(Object name) {
    Kept k = byName.get(name);
    if (k == null) {
      return null;
    }
    if (!k.hold()) {
      detach(k, IdleBuffer.Where.GONE);
      return null;
    }
    if (k.readers++ == 0) {
      readBytes += k.held.cost;
    }
    unpass(k); // read again: worth keeping as any other
    return k;
  }

  void unpin(Kept k) {
    if (--k.readers == 0) {
      k.pinned = null; // idle again: softly held only
      readBytes -= k.held.cost;
    }
  }

  /**
   * Takes the buffer kept under {@code name} out, if it is {@code size} bytes and nobody reads it; else
   * null. The caller holds the buffer ({@link Kept#buffer()}) as handed out.
   */
  Kept take(Object name, int size) {
    Kept k = byName.get(name);
    if (k == null || k.readers > 0 || k.held.size != size) {
      return null;
    }
    return handOver(k);
  }

  /**
   * Gives up the least recently used buffer nobody reads, counted as an eviction, and hands it over
   * for reuse; null if every kept buffer is being read (or none is kept). Buffers the collector took
   * meanwhile are forgotten on the way.
   */
  Kept evictEldest() {
    return evictEldest(byName.values(), -1);
  }

  /**
   * Gives up the least recently used buffer of {@code size} bytes nobody reads, as {@link #evictEldest}
   * does; null if there is none.
   */
  Kept evictEldest(int size) {
    return evictEldest(byName.values(), size);
  }

  /**
   * Gives up the eldest passed buffer of {@code size} bytes nobody reads, as {@link #evictEldest} does;
   * null if there is none.
   */
  Kept evictPassed(int size) {
    LinkedHashSet<Kept> ofSize = passed.get(size);
    return ofSize == null ? null : evictEldest(ofSize, size);
  }

  private Kept evictEldest(Collection<Kept> eldestFirst, int size) {
    for (Iterator<Kept> it = eldestFirst.iterator(); it.hasNext(); ) {
      Kept k = it.next();
      if (k.readers == 0 && (size < 0 || k.held.size == size)) {
        it.remove();
        boolean held = k.hold();
        detach(k, held ? IdleBuffer.Where.IN_USE : IdleBuffer.Where.GONE);
        if (held) {
          k.stats.increment(Counter.MEMORY_CACHE_EVICTIONS);
          return k;
        }
      }
    }
    return null;
  }

  /** Gives up the buffers whose names {@code which} accepts and nobody reads, to the heap. */
  void removeIf(Predicate<Object> which) {
    for (Iterator<Kept> it = byName.values().iterator(); it.hasNext(); ) {
      Kept k = it.next();
      if (k.readers == 0 && which.test(k.name)) {
        it.remove();
        unpass(k);
        forget(k);
        k.held.clear();
      }
    }
  }

  /** The collector took {@code buffer}: forget the bytes it held. */
  void cleared(IdleBuffer buffer) {
    Kept k = byName.get(buffer.keptAs);
    if (k != null && k.held == buffer) {
      detach(k, IdleBuffer.Where.GONE);
    }
  }

  /** Every kept buffer nobody reads: softly reachable only, as the collector sees them. */
  void forEachIdle(java.util.function.Consumer<IdleBuffer> action) {
    for (Kept k : byName.values()) {
      if (k.readers == 0) {
        action.accept(k.held);
      }
    }
  }

  /** {@code k} leaves, held strongly by the caller, or gone if the collector took it first. */
  private Kept handOver(Kept k) {
    if (k.hold()) {
      detach(k, IdleBuffer.Where.IN_USE);
      return k;
    }
    detach(k, IdleBuffer.Where.GONE);
    return null;
  }

  private void detach(Kept k, IdleBuffer.Where to) {
    byName.remove(k.name);
    unpass(k);
    if (to == IdleBuffer.Where.GONE) {
      forget(k);
      collected += k.held.cost;
    } else {
      bytes -= k.held.cost;
      k.held.where = to;
      k.held.keptAs = null;
    }
  }

  private void unpass(Kept k) {
    if (k.passed) {
      k.passed = false;
      LinkedHashSet<Kept> ofSize = passed.get(k.held.size);
      ofSize.remove(k);
      if (ofSize.isEmpty()) {
        passed.remove(k.held.size);
      }
    }
  }

  private void forget(Kept k) {
    bytes -= k.held.cost;
    k.held.where = IdleBuffer.Where.GONE;
    k.held.keptAs = null;
  }
}
