/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.bench;

import java.io.Closeable;
import java.io.IOException;

/** One open object, as every reader offers it: sequential reads and positional reads. */
interface ObjectStream extends Closeable {
  /** Reads up to {@code len} bytes at the current position; -1 at the end. */
  int read(byte[] b, int off, int len) throws IOException;

  /** Reads exactly {@code len} bytes at {@code position}, without moving the current position. */
  void readFully(long position, byte[] b, int off, int len) throws IOException;
}
