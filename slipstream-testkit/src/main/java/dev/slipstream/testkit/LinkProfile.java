/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.testkit;

import java.util.Locale;
import java.util.Objects;

/**
 * How a {@link LinkShaper} makes the loopback link behave (see docs/benchmarks.md).
 *
 * <p>First-byte latency is drawn per request from a lognormal distribution whose median is
 * {@code latencyMedianMillis} (log-standard deviation 0.5), clamped to
 * {@code [latencyMedianMillis / 4, latencyMaxMillis]}: most requests wait close to the median, a few
 * reach the tail. A median of 0 means no added latency.
 *
 * <p>Bandwidth applies to response bodies: {@code perConnectionBytesPerSecond} caps each client
 * connection, {@code aggregateBytesPerSecond} caps all connections together; 0 means unlimited.
 *
 * <p>{@code faultProbability} is the chance that a GET (or, for status faults only, a HEAD) gets a
 * {@link FaultKind fault}; 0 means none.
 *
 * <p>A heavy tail on top: with probability {@code tailProbability} a request waits instead a time drawn
 * uniformly from {@code [tailMinMillis, tailMaxMillis]} before its first byte, as the rare very slow
 * responses of a busy store do. 0 means none.
 *
 * @param name informational name of the profile, as accepted by {@link #named(String)} for the built-in ones
 * @param latencyMedianMillis median first-byte latency per request, 0 for none
 * @param latencyMaxMillis upper clamp of the first-byte latency (at least the median)
 * @param perConnectionBytesPerSecond response body bandwidth per client connection, 0 for unlimited
 * @param aggregateBytesPerSecond response body bandwidth across all connections, 0 for unlimited
 * @param faultProbability probability in {@code [0, 1]} that an eligible request gets a random fault
 * @param tailProbability probability in {@code [0, 1]} that a request's first byte comes after the tail's wait
 * @param tailMinMillis shortest wait of a request in the tail
 * @param tailMaxMillis longest wait of a request in the tail (at least the shortest)
 */
public record LinkProfile(
    String name,
    long latencyMedianMillis,
    long latencyMaxMillis,
    long perConnectionBytesPerSecond,
    long aggregateBytesPerSecond,
    double faultProbability,
    double tailProbability,
    long tailMinMillis,
    long tailMaxMillis) {

  /** S3 scaled down to one small machine: ~20 ms first byte (tail to 80 ms), 25 MB/s per connection, 300 MB/s in all. */
  public static final LinkProfile S3_LIKE = new LinkProfile("s3-like", 20, 80, 25_000_000L, 300_000_000L, 0.0, 0, 0, 0);

  /** {@link #S3_LIKE} where 2% of requests fail: resets, 503, 500, stalls, truncations. */
  public static final LinkProfile FLAKY = new LinkProfile("flaky", 20, 80, 25_000_000L, 300_000_000L, 0.02, 0, 0, 0);

  /** {@link #S3_LIKE} with a heavy tail: 1% of requests wait 1 to 2 s before their first byte. */
  public static final LinkProfile HEAVY_TAIL = new LinkProfile("heavy-tail", 20, 80, 25_000_000L, 300_000_000L, 0.0,
      0.01, 1_000, 2_000);

  /** A transparent relay: no latency, unlimited bandwidth, no faults. */
  public static final LinkProfile LOOPBACK = new LinkProfile("loopback", 0, 0, 0, 0, 0.0, 0, 0, 0);

  public LinkProfile {
    Objects.requireNonNull(name, "name");
    if (latencyMedianMillis < 0 || latencyMaxMillis < 0) {
      throw new IllegalArgumentException("latency must not be negative: median " + latencyMedianMillis
          + " ms, max " + latencyMaxMillis + " ms");
    }
    if (latencyMaxMillis < latencyMedianMillis) {
      throw new IllegalArgumentException("latencyMaxMillis " + latencyMaxMillis
          + " is below latencyMedianMillis " + latencyMedianMillis);
    }
    if (perConnectionBytesPerSecond < 0 || aggregateBytesPerSecond < 0) {
      throw new IllegalArgumentException("bandwidth must not be negative (0 means unlimited): per connection "
          + perConnectionBytesPerSecond + ", aggregate " + aggregateBytesPerSecond);
    }
    if (!(faultProbability >= 0.0 && faultProbability <= 1.0)) {
      throw new IllegalArgumentException("faultProbability must be in [0, 1]: " + faultProbability);
    }
    if (!(tailProbability >= 0.0 && tailProbability <= 1.0)) {
      throw new IllegalArgumentException("tailProbability must be in [0, 1]: " + tailProbability);
    }
    if (tailMinMillis < 0 || tailMaxMillis < tailMinMillis) {
      throw new IllegalArgumentException("the tail's wait must be 0 <= min <= max: min " + tailMinMillis + " ms, max "
          + tailMaxMillis + " ms");
    }
  }

  /**
   * The built-in profile called {@code name}: {@code s3-like}, {@code flaky}, {@code heavy-tail} or {@code loopback}
   * (case and surrounding blanks ignored).
   *
   * @throws IllegalArgumentException for any other name
   */
  public static LinkProfile named(String name) {
    String key = name == null ? "" : name.trim().toLowerCase(Locale.ROOT);
    switch (key) {
      case "s3-like":
        return S3_LIKE;
      case "flaky":
        return FLAKY;
      case "heavy-tail":
        return HEAVY_TAIL;
      case "loopback":
        return LOOPBACK;
      default:
        throw new IllegalArgumentException("unknown link profile '" + name
            + "'; valid profiles: s3-like, flaky, heavy-tail, loopback");
    }
  }

  /** A copy with a different random fault probability. */
  public LinkProfile withFaultProbability(double probability) {
    return new LinkProfile(name, latencyMedianMillis, latencyMaxMillis, perConnectionBytesPerSecond,
        aggregateBytesPerSecond, probability, tailProbability, tailMinMillis, tailMaxMillis);
  }

  /** A copy with a different first-byte latency (median and clamp); 0, 0 for none. */
  public LinkProfile withLatency(long medianMillis, long maxMillis) {
    return new LinkProfile(name, medianMillis, maxMillis, perConnectionBytesPerSecond,
        aggregateBytesPerSecond, faultProbability, tailProbability, tailMinMillis, tailMaxMillis);
  }

  /** A copy without added first-byte latency. */
  public LinkProfile withoutLatency() {
    return withLatency(0, 0);
  }

  /** A copy with different bandwidth limits in bytes per second; 0 means unlimited. */
  public LinkProfile withBandwidth(long perConnection, long aggregate) {
    return new LinkProfile(name, latencyMedianMillis, latencyMaxMillis, perConnection, aggregate,
        faultProbability, tailProbability, tailMinMillis, tailMaxMillis);
  }

  /** A copy without bandwidth limits. */
  public LinkProfile withoutBandwidthLimit() {
    return withBandwidth(0, 0);
  }

  /** A copy whose requests fall, with {@code probability}, into a tail of {@code [minMillis, maxMillis]} waits. */
  public LinkProfile withTail(double probability, long minMillis, long maxMillis) {
    return new LinkProfile(name, latencyMedianMillis, latencyMaxMillis, perConnectionBytesPerSecond,
        aggregateBytesPerSecond, faultProbability, probability, minMillis, maxMillis);
  }

  /** A copy under another name, e.g. to label a derived profile in a benchmark report. */
  public LinkProfile withName(String newName) {
    return new LinkProfile(newName, latencyMedianMillis, latencyMaxMillis, perConnectionBytesPerSecond,
        aggregateBytesPerSecond, faultProbability, tailProbability, tailMinMillis, tailMaxMillis);
  }
}
