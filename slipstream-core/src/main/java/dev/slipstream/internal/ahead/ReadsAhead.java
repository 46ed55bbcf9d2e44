/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.ahead;

/**
 * A part of a stream that fetches ahead of its reads for a file format (a Parquet file's predicted
 * columns, an ORC file's stripe footers and streams), told of each columnar read before it is served: a
 * range at a jump, or a vectored range. The stream tells every such part at that one moment, in the order
 * it made them, and asks nothing back: what a part starts is held in the stream's spans ({@link HeldSpans})
 * for the reads to find.
 */
public interface ReadsAhead {
  /**
   * A columnar read of {@code [position, position + len)} is about to be served: what it shows of the
   * reader's way through the file may start fetches beside it. Never waits for a fetch.
   */
  void onRead(long position, int len);
}
