/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.testkit;

import java.io.IOException;

/**
 * The upstream stopped taking the request body: it may have answered already (an error, typically),
 * so {@link RequestForwarder} tries to read that answer instead of failing the exchange at once.
 */
final class UpstreamWriteFailed extends IOException {
  private static final long serialVersionUID = 1L;

  UpstreamWriteFailed(IOException cause) {
    super("upstream stopped reading the request body: " + cause.getMessage(), cause);
  }
}
