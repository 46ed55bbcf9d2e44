/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.store;

import dev.slipstream.RetryCause;
import java.io.IOException;

/** A failure that may succeed on a retry, with its cause for the retry counters. */
public class TransientStoreException extends IOException {
  private final RetryCause cause;

  public TransientStoreException(RetryCause cause, String message, Throwable t) {
    super(message, t);
    this.cause = cause;
  }

  public RetryCause retryCause() {
    return cause;
  }
}
