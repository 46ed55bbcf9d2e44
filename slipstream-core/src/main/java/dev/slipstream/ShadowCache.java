/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream;

/**
 * What a block cache of {@code sizeBytes} would have served of a client's block fetches, had it kept the
 * blocks least recently used last ({@code cache.shadow.sizes}; see {@link Slipstream#shadowCaches()}).
 *
 * @param lookups blocks fetched (each looked up once)
 * @param hits lookups the cache would have answered
 * @param hitBytes bytes of those blocks
 */
public record ShadowCache(long sizeBytes, long lookups, long hits, long hitBytes) {
  /** Hits per lookup; NaN before the first lookup. */
  public double hitRatio() {
    return lookups == 0 ? Double.NaN : (double) hits / lookups;
  }
}
