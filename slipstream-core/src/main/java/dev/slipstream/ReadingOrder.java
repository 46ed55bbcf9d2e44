/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream;

/**
 * A reading order declared with {@link Slipstream#readingInOrder}: while it is open, opening one of its
 * objects starts fetching the first block of the next few ({@code openahead.files}). It ends by itself
 * once its last object has been opened; {@link #close()} ends it earlier and drops what was fetched
 * ahead for it and not yet opened.
 */
public interface ReadingOrder extends AutoCloseable {
  /** Stops hinting this order's objects and drops their unopened first blocks. Idempotent. */
  @Override
  void close();
}
