/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.fetch;

import java.io.IOException;

/**
 * Work of a read that runs on the fetch executor ({@link BlockFetcher#submitRead}), or on whichever
 * thread gets to it first (an {@link AccessCheck}'s probe). A type of its own so that what takes work
 * need not know what runs it.
 */
@FunctionalInterface
public interface IoWork {
  void run() throws IOException;
}
