/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.util;

import java.io.IOException;

/**
 * What must let bytes kept outside S3 (the memory cache, the disk cache, the shared tier) through before
 * they are served: on a read path, S3's answer to this open for the object (docs/architecture.md, rule 8).
 * {@link #start} is called once a kept piece is found, before its bytes are read, so that a check can run
 * alongside; {@link #await} before they are returned.
 *
 * <p>The fetch floor makes the gates (an open's {@code AccessCheck}); the tiers and the disk cache only
 * pass through them. The interface lives at the bottom so that neither knows the other.
 */
public interface AccessGate {
  /** A kept piece was found: start the check, if one is needed, without waiting for it. */
  void start();

  /** Returns once the bytes may be served; throws the store's error (403, 404, 412) if they may not. */
  void await() throws IOException;
}
