/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.testkit;

/**
 * First-byte latency per request: lognormal around the profile's median, clamped to
 * [median / 4, max], so most requests wait close to the median and a few reach the tail, as on S3; a
 * profile's heavy tail replaces that wait, for its share of requests, by one drawn uniformly from the tail.
 */
final class LatencySampler {
  // Salts of the two normal-deviate draws; they differ from RandomFaults' salts.
  private static final long SALT_LATENCY_1 = 0x4D6F81A3C5E7092BL;
  private static final long SALT_LATENCY_2 = 0x5E7092B4D6F81A3CL;
  private static final long SALT_TAIL_1 = 0x7A3C5E9D1B2F4860L;
  private static final long SALT_TAIL_2 = 0x1B2F48607A3C5E9DL;
  private static final double LATENCY_SIGMA = 0.5;

  private final long medianMillis;
  private final long maxMillis;
  private final LinkProfile profile;

  LatencySampler(LinkProfile profile) {
    this.medianMillis = profile.latencyMedianMillis();
    this.maxMillis = profile.latencyMaxMillis();
    this.profile = profile;
  }

  /** The latency for the request with {@code draws}, in nanoseconds; 0 when the profile adds none. */
  long sampleNanos(RequestDraws draws) {
    if (profile.tailProbability() > 0 && draws.uniform(SALT_TAIL_1) < profile.tailProbability()) {
      double millis = profile.tailMinMillis()
          + draws.uniform(SALT_TAIL_2) * (profile.tailMaxMillis() - profile.tailMinMillis());
      return (long) (millis * 1_000_000.0);
    }
    long median = medianMillis;
    if (median <= 0) {
      return 0;
    }
    // Box-Muller from two uniforms.
    double u1 = 1.0 - draws.uniform(SALT_LATENCY_1); // (0, 1]: log() stays finite
    double u2 = draws.uniform(SALT_LATENCY_2);
    double z = Math.sqrt(-2.0 * Math.log(u1)) * Math.cos(2.0 * Math.PI * u2);
    double millis = median * Math.exp(LATENCY_SIGMA * z);
    millis = Math.max(median / 4.0, Math.min(maxMillis, millis));
    return (long) (millis * 1_000_000.0);
  }
}
