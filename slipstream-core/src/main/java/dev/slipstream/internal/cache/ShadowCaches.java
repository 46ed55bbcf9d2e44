/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.cache;

import dev.slipstream.ShadowCache;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;

/**
 * Simulated LRU block caches of given sizes, fed with the names and lengths of the blocks a client
 * fetches (never their bytes): how many of those fetches a cache of each size would have served. Sizes
 * a cache from the traffic it would really see. Memory: one entry per block each cache would hold
 * (16 GiB of 8 MiB blocks is 2,048 names). Thread-safe.
 */
public final class ShadowCaches {
  private final List<Lru> caches = new ArrayList<>();

  /** @param sizes bytes of each simulated cache */
  public ShadowCaches(List<Long> sizes) {
    for (long s : sizes) {
      caches.add(new Lru(s));
    }
  }

  public boolean isEmpty() {
    return caches.isEmpty();
  }

  /** A block named {@code name}, {@code length} bytes, was fetched: looked up, then kept, in every cache. */
  public void fetched(String name, long length) {
    for (Lru c : caches) {
      c.access(name, length);
    }
  }

  /** What each cache would have served so far, in the order of the sizes given. */
  public List<ShadowCache> results() {
    List<ShadowCache> out = new ArrayList<>();
    for (Lru c : caches) {
      out.add(c.result());
    }
    return out;
  }

  /** One simulated cache: least recently used blocks go first once the bytes kept exceed its size. */
  private static final class Lru {
    private final long size;
    private final LinkedHashMap<String, Long> blocks = new LinkedHashMap<>(16, 0.75f, true);
    private long used;
    private long lookups;
    private long hits;
    private long hitBytes;

    Lru(long size) {
      this.size = size;
    }

    synchronized void access(String name, long length) {
      lookups++;
      if (blocks.get(name) != null) { // access order: now the most recently used
        hits++;
        hitBytes += length;
        return;
      }
      if (length > size) {
        return; // could never be kept
      }
      blocks.put(name, length);
      used += length;
      var it = blocks.entrySet().iterator();
      while (used > size && it.hasNext()) {
        used -= it.next().getValue();
        it.remove();
      }
    }

    synchronized ShadowCache result() {
      return new ShadowCache(size, lookups, hits, hitBytes);
    }
  }
}
