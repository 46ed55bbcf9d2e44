/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.fetch;

import java.io.IOException;
import java.util.concurrent.ExecutionException;

/** The failure of work run on another thread, as the waiting thread passes it on. */
public final class Failures {
  private Failures() {}

  /**
   * The cause of {@code e} as the thread that ran the work threw it: an {@link IOException} is returned
   * for the caller to throw, an unchecked exception or error is thrown from here, and anything else is
   * wrapped in an IOException that names {@code what}.
   */
  public static IOException cause(ExecutionException e, String what) {
    Throwable c = e.getCause();
    if (c instanceof IOException io) {
      return io;
    }
    if (c instanceof RuntimeException r) {
      throw r;
    }
    if (c instanceof Error err) {
      throw err;
    }
    return new IOException(what + ": " + c, c);
  }
}
