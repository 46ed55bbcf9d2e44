/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream;

/**
 * How a GET asks for the version a stream reads ({@code change.detection};
 * {@link SlipstreamConfig#changeDetection()}). Either way every response's version is compared with the
 * stream's and a stream never mixes two versions: what differs is whether the store is asked to refuse
 * another version itself.
 */
public enum ChangeDetection {
  /**
   * Each GET names the version as a condition ({@code If-Match} with the ETag, {@code If-Unmodified-Since}
   * where the store sends no ETag, or the version id: {@code change.detection.source}); the store
   * answers {@code 412} for another version.
   */
  SERVER,
  /**
   * No GET carries a condition, for stores that refuse conditional GETs; the version of each response is
   * compared by the client alone.
   */
  CLIENT
}
