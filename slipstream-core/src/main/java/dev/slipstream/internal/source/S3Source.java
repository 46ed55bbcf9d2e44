/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.source;

import dev.slipstream.Counter;
import dev.slipstream.internal.block.Destination;
import dev.slipstream.internal.fetch.CancelToken;
import dev.slipstream.internal.fetch.ObjectHandle;
import dev.slipstream.internal.fetch.ParallelParts;
import dev.slipstream.internal.fetch.RangeReader;
import java.io.IOException;

/**
 * S3, the last source of every read: a byte range of the version pinned at open, through the retry layer
 * ({@link RangeReader}), which checks every response against its request (docs/architecture.md, rule 1),
 * retries, and hedges a GET whose response is slow to begin. Unlike a {@link Tier}, its failure is the
 * read's failure. Retries and hedged requests live below this class, never in the tiers or the stream.
 */
public final class S3Source {
  private final RangeReader ranges;
  private final ParallelParts parts;

  public S3Source(RangeReader ranges, ParallelParts parts) {
    this.ranges = ranges;
    this.parts = parts;
  }

  /**
   * Reads {@code [position, position + len)} (a block) into {@code dst[off...]} on a fetch thread; if
   * {@code inParts}, in parallel parts while fewer blocks are being read than there are fetch threads
   * ({@link ParallelParts}).
   */
  public void read(ObjectHandle h, long position, byte[] dst, int off, int len, CancelToken token,
      boolean inParts) throws IOException {
    parts.read(h, position, dst, off, len, token, inParts);
  }

  /**
   * Reads {@code [position, position + len)} for a caller who waits for exactly these bytes (counted as a
   * direct read), on a fetch thread; the caller waiting cancels {@code token} if interrupted.
   */
  public void readNow(ObjectHandle h, long position, byte[] dst, int off, int len, CancelToken token)
      throws IOException {
    readNow(h, position, Destination.of(dst, off), len, token);
  }

  /** {@link #readNow} into {@code dst}, which may be several buffers end to end: one request fills them all. */
  public void readNow(ObjectHandle h, long position, Destination dst, int len, CancelToken token)
      throws IOException {
    h.stats().increment(Counter.DIRECT_READS);
    ranges.read(h, position, position + len, dst, token);
  }
}
