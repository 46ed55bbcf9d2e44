/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.block;

import dev.slipstream.Counter;
import dev.slipstream.ReadStatistics;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.function.Predicate;

/**
 * Free buffers of a {@link BufferPool} that still hold bytes worth reading again, by name: the memory
 * tier. A buffer comes here when the last holder of bytes that were labelled to be kept lets go of it,
 * and leaves when a stream reads it again, takes it over, or the pool needs the memory (least recently
 * used first, and before anything a stream holds). Guarded by the pool's lock; no method blocks.
 */
public final class KeptBuffers {
  /** Bytes kept under one name, and the readers copying them now (a buffer being read is never reused). */
  public static final class Kept {
    private final Object name;
    private final byte[] buffer;
    private final int length;
    private final ReadStatistics stats;
    private int readers;

    private Kept(Object name, byte[] buffer, int length, ReadStatistics stats) {
      this.name = name;
      this.buffer = buffer;
      this.length = length;
      this.stats = stats;
    }

    /** The bytes; valid while the reader that pinned them holds its pin. */
    public byte[] buffer() {
      return buffer;
    }

    /** How many bytes at the buffer's start are the kept bytes. */
    public int length() {
      return length;
    }
  }

  /** In access order: the eldest is the least recently kept or read. */
  private final LinkedHashMap<Object, Kept> byName = new LinkedHashMap<>(64, 0.75f, true);
  private long bytes;

  /** Bytes of the buffers kept. */
  long bytes() {
    return bytes;
  }

  /**
   * Keeps {@code buffer} under {@code name}; false if that name is kept already (the caller then frees
   * the buffer as any other).
   */
  boolean put(Object name, byte[] buffer, int length, ReadStatistics stats) {
    if (byName.containsKey(name)) {
      return false;
    }
    byName.put(name, new Kept(name, buffer, length, stats));
    bytes += buffer.length;
    return true;
  }

  /** The bytes kept under {@code name}, pinned for one reader; null if none. */
  Kept pin(Object name) {
    Kept k = byName.get(name);
    if (k != null) {
      k.readers++;
    }
    return k;
  }

  void unpin(Kept k) {
    k.readers--;
  }

  /** Takes the buffer kept under {@code name} out, if it is {@code size} bytes and nobody reads it; else null. */
  byte[] take(Object name, int size) {
    Kept k = byName.get(name);
    if (k == null || k.readers > 0 || k.buffer.length != size) {
      return null;
    }
    remove(k);
    return k.buffer;
  }

  /**
   * Gives up the least recently used buffer nobody reads, counted as an eviction; null if every kept
   * buffer is being read (or none is kept).
   */
  byte[] evictEldest() {
    for (Kept k : byName.values()) {
      if (k.readers == 0) {
        remove(k);
        k.stats.increment(Counter.MEMORY_CACHE_EVICTIONS);
        return k.buffer;
      }
    }
    return null;
  }

  /** Gives up the buffers whose names {@code which} accepts and nobody reads; returns them. */
  List<byte[]> removeIf(Predicate<Object> which) {
    List<byte[]> removed = new ArrayList<>();
    for (Iterator<Kept> it = byName.values().iterator(); it.hasNext(); ) {
      Kept k = it.next();
      if (k.readers == 0 && which.test(k.name)) {
        it.remove();
        bytes -= k.buffer.length;
        removed.add(k.buffer);
      }
    }
    return removed;
  }

  private void remove(Kept k) {
    byName.remove(k.name);
    bytes -= k.buffer.length;
  }
}
