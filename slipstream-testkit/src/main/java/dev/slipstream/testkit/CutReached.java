/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.testkit;

/**
 * Signals that a body fault's cut point was reached: thrown by {@link ResponseBodyOut} through the body
 * relay up to the exchange, which then applies the fault. Stackless because it is control flow.
 */
final class CutReached extends Exception {
  private static final long serialVersionUID = 1L;
  static final CutReached INSTANCE = new CutReached();

  private CutReached() {
    super("cut point reached", null, false, false);
  }
}
