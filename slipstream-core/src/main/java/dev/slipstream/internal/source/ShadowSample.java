/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.source;

import java.math.BigDecimal;

/**
 * Which blocks (and kept ranges) shadow mode compares with the shared tier ({@code shared.shadow.fraction}):
 * those whose name falls in the first {@code fraction} of the name space, as mcrouter's shadow routes take
 * the keys whose hash falls in their {@code key_fraction_range}. A name is an HMAC (a SHA-256 without a
 * secret), evenly spread, so its first 8 bytes, read as an unsigned number, fall below
 * {@code fraction * 2^64} for about that share of names. Chosen by name, not at random, the choice is the
 * same on every host and in every run: a host re-reading what another read finds the blocks the other
 * compared and wrote, and the hit ratio of the sample is the hit ratio of the pool for those blocks.
 */
final class ShadowSample {
  private static final BigDecimal NAMES = new BigDecimal(java.math.BigInteger.ONE.shiftLeft(64));

  /** Every name (fraction 1): {@code 2^64} has no place in a long. */
  private final boolean every;
  /** Names whose first 8 bytes are below this, unsigned, are in the sample: {@code floor(fraction * 2^64)}. */
  private final long below;

  private ShadowSample(boolean every, long below) {
    this.every = every;
    this.below = below;
  }

  /** The first {@code fraction} of the name space: 0 none, 1 every name. */
  static ShadowSample of(double fraction) {
    if (!(fraction >= 0 && fraction <= 1)) {
      throw new IllegalArgumentException("a shadow sample's fraction must be in [0, 1]: " + fraction);
    }
    if (fraction == 1) {
      return new ShadowSample(true, 0);
    }
    // Exact: a double is a binary fraction, so fraction * 2^64 is exact in BigDecimal, then floored.
    return new ShadowSample(false, new BigDecimal(fraction).multiply(NAMES).toBigInteger().longValue());
  }

  /** Whether the block named {@code name} (at least 8 bytes) is compared. */
  boolean includes(byte[] name) {
    if (every) {
      return true;
    }
    long first = 0;
    for (int i = 0; i < 8; i++) {
      first = first << 8 | (name[i] & 0xff);
    }
    return Long.compareUnsigned(first, below) < 0;
  }

  @Override
  public String toString() {
    return every ? "ShadowSample[every name]" : "ShadowSample[names below 0x" + Long.toHexString(below) + "]";
  }
}
