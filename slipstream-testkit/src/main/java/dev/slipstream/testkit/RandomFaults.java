/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.testkit;

/**
 * The random half of the fault decision (the scripted half is {@link FaultScript}): with the profile's
 * fault probability, any {@link FaultKind} but a 403 for a GET, {@code 503} or {@code 500} for a HEAD, none for
 * other methods. Also where a body fault cuts the body.
 */
final class RandomFaults {
  // Salts of the draws used here; they differ from one another and from LatencySampler's.
  private static final long SALT_FAULT = 0x1F3D5B79A2C4E6F8L;
  private static final long SALT_KIND = 0x2B4D6F8193A5C7E9L;
  private static final long SALT_CUT = 0x3C5E7092B4D6F81AL;

  private static final FaultKind[] ALL_KINDS = {FaultKind.RESET_MID_BODY, FaultKind.STATUS_503,
      FaultKind.STATUS_500, FaultKind.STALL, FaultKind.TRUNCATE};
  private static final FaultKind[] STATUS_KINDS = {FaultKind.STATUS_503, FaultKind.STATUS_500};

  private final double probability;

  RandomFaults(double probability) {
    this.probability = probability;
  }

  /** The fault for a request with {@code method} (upper case), or null for none. */
  FaultKind pick(String method, RequestDraws draws) {
    if (probability <= 0) {
      return null;
    }
    FaultKind[] kinds;
    if ("GET".equals(method)) {
      kinds = ALL_KINDS;
    } else if ("HEAD".equals(method)) {
      kinds = STATUS_KINDS;
    } else {
      return null;
    }
    if (draws.uniform(SALT_FAULT) >= probability) {
      return null;
    }
    return kinds[(int) Long.remainderUnsigned(draws.bits(SALT_KIND), kinds.length)];
  }

  /**
   * Where a body fault cuts: a fraction in [0.25, 0.75) of the body, away from both ends so that the
   * client has seen some of the body and has not seen all of it.
   */
  static double cutFraction(RequestDraws draws) {
    return 0.25 + 0.5 * draws.uniform(SALT_CUT);
  }
}
