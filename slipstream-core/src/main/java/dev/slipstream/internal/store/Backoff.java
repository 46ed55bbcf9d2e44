/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.store;

import dev.slipstream.SlipstreamConfig;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The client's retry settings, for GETs, HEADs and LISTs alike: {@code retry.max} retries with capped
 * exponential backoff and full jitter, each wait random in [0, min(max, base * 2^(n-1))].
 */
public record Backoff(int retryMax, long baseMillis, long capMillis) {
  public static Backoff of(SlipstreamConfig config) {
    long base = Math.max(1, config.retryInterval().toMillis());
    return new Backoff(config.retryMax(), base, Math.max(base, config.retryIntervalMax().toMillis()));
  }

  /** The wait before retry number {@code retry} (1 for the first). */
  public long millis(int retry) {
    long ceiling = capMillis;
    if (retry < 40) {
      ceiling = Math.min(capMillis, baseMillis << Math.min(retry - 1, 30));
    }
    return ThreadLocalRandom.current().nextLong(ceiling + 1);
  }
}
