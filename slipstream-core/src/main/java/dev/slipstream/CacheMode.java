/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream;

/**
 * What the local disk cache keeps ({@code cache.disk.mode}; {@link SlipstreamConfig#cacheMode()}).
 * Its own type, not one nested in {@link SlipstreamConfig}: {@link ConfigKey} names it as the key's
 * choices, and the configuration reads the keys, so a nested enum made the two depend on each other.
 */
public enum CacheMode {
  /** No disk cache. */
  OFF,
  /** Blocks a seek, a close or an unbuffer leaves behind, fetched and not read to their end. */
  SEEK,
  /** Every block fetched from S3. */
  ALL
}
