/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.bench;

import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;

/** One open object, as every reader offers it: sequential reads and positional reads. */
interface ObjectStream extends Closeable {
  /** Reads up to {@code len} bytes at the current position; -1 at the end. */
  int read(byte[] b, int off, int len) throws IOException;

  /** Reads exactly {@code len} bytes at {@code position}, without moving the current position. */
  void readFully(long position, byte[] b, int off, int len) throws IOException;

  /** A stream's positional read: Slipstream's and Hadoop's {@code readFully(position, b, off, len)}. */
  @FunctionalInterface
  interface PositionalRead {
    void readFully(long position, byte[] b, int off, int len) throws IOException;
  }

  /**
   * {@code in} as an ObjectStream: its own sequential reads and close, and {@code positional} (one of
   * {@code in}'s methods) for positional reads.
   */
  static ObjectStream of(InputStream in, PositionalRead positional) {
    return new ObjectStream() {
      @Override
      public int read(byte[] b, int off, int len) throws IOException {
        return in.read(b, off, len);
      }

      @Override
      public void readFully(long position, byte[] b, int off, int len) throws IOException {
        positional.readFully(position, b, off, len);
      }

      @Override
      public void close() throws IOException {
        in.close();
      }
    };
  }
}
