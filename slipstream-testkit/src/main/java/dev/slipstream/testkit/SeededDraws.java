/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.testkit;

import java.util.concurrent.ConcurrentHashMap;

/**
 * Hands each request its {@link RequestDraws}, derived from the seed and the request's method, path,
 * query and {@code Range} header, and from how many identical requests came before it — not from a
 * shared random stream, which the interleaving of different requests would reorder. So two shapers
 * with the same seed treat the same request sequence identically whatever the thread interleaving,
 * and a retry of a failed request gets fresh draws.
 */
final class SeededDraws {
  private final long seed;
  /**
   * Occurrences so far of each (method, path, query, range), by a 64-bit hash of it: about 80 bytes of heap
   * for every distinct request, replaced by an empty map when {@link #forget} is called.
   */
  private volatile ConcurrentHashMap<Long, Long> seen = new ConcurrentHashMap<>();

  SeededDraws(long seed) {
    this.seed = seed;
  }

  /** The draws of {@code info}, counting it as one more occurrence of its kind. */
  RequestDraws next(RequestInfo info) {
    long key = requestKey(info);
    long n = seen.merge(key, 1L, Long::sum) - 1;
    return new RequestDraws(key, n);
  }

  /**
   * Forgets the occurrences counted so far: a request seen before gets the draws of a first occurrence
   * again. For a caller that measures the heap and must not count this map's growth as its own.
   */
  void forget() {
    seen = new ConcurrentHashMap<>();
  }

  private long requestKey(RequestInfo info) {
    long h = 0xCBF29CE484222325L;
    h = hashField(h, info.method());
    h = hashField(h, info.path());
    h = hashField(h, info.query());
    h = hashField(h, info.range());
    return RequestDraws.mix(h ^ RequestDraws.mix(seed));
  }

  /** FNV-1a over the UTF-16 units, with a marker that tells null from "" and separates fields. */
  private static long hashField(long h, String s) {
    final long prime = 0x100000001B3L;
    if (s == null) {
      return (h ^ 0x1FF) * prime;
    }
    for (int i = 0; i < s.length(); i++) {
      h = (h ^ s.charAt(i)) * prime;
    }
    return (h ^ 0x1FE) * prime;
  }
}
