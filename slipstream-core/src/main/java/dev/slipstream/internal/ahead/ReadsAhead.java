/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.ahead;

/**
 * A part of a stream that fetches ahead of its reads for a file format (a Parquet file's predicted
 * columns and row groups, an ORC file's stripe footers and streams), told at a few named moments: before
 * each columnar read is served (a range at a jump, or a vectored range), when the stream gives back what it
 * holds or closes, and once it has closed. The stream tells every such part at each moment, in the order it
 * made them, and asks nothing back: what a part starts is held in the stream's spans ({@link HeldSpans}),
 * within their one budget, for the reads to find.
 */
public interface ReadsAhead {
  /**
   * A columnar read of {@code [position, position + len)} is about to be served: what it shows of the
   * reader's way through the file may start fetches beside it. Never waits for a fetch.
   */
  void onRead(long position, int len);

  /**
   * A vectored read of {@code [position, position + len)} is about to be served: as {@link #onRead}, and
   * what fetches ahead of vectored reads alone (a Parquet file's row groups) is told too.
   */
  default void onVectoredRead(long position, int len) {
    onRead(position, len);
  }

  /**
   * The stream gives back what it holds ({@code unbuffer}), or closes ({@code closing}): what is planned and
   * not started is dropped, and, closing, nothing more starts. Told before the stream's spans are released,
   * so that the room they give back starts nothing.
   */
  default void stop(boolean closing) {}

  /** The stream closed and its spans were released: what the part learnt is told to the client. */
  default void closed() {}

  /**
   * {@code next}, the same part of a stream of the file the reader is expected to open after this one
   * (open-ahead of streams), fetches ahead what this stream's reads show the reader wants of every file:
   * what they showed so far at once, and what they show from now on until this stream closes. The reader
   * of the next file then finds those bytes in memory. A part of another kind finds nothing to tell.
   */
  default void followedBy(ReadsAhead next) {}

  /**
   * This stream is read after {@code previous}, the same part of the stream the same thread read before
   * (most often closed by now): what that one's reads showed may tell this one what its reader wants, once
   * this one's own first reads agree. A part of another kind finds nothing to learn.
   */
  default void after(ReadsAhead previous) {}
}
