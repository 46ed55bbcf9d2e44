/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.read;

import java.io.IOException;

/** A block's fetch was stopped because its owner dropped it; a reader still wanting it fetches it again. */
final class BlockCancelledException extends IOException {
  BlockCancelledException() {
    super("block fetch cancelled", null);
  }

  @Override
  public synchronized Throwable fillInStackTrace() {
    return this; // control flow, not an error: no stack trace needed
  }
}
