/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.read;

import dev.slipstream.ReadStatistics;
import dev.slipstream.internal.block.Span;
import dev.slipstream.internal.block.BufferPool;
import dev.slipstream.internal.fetch.ObjectHandle;
import dev.slipstream.internal.source.SourceChain;
import java.io.IOException;

/**
 * Reads that fetch about what is asked for instead of whole blocks: small reads after a jump, and the
 * ranges of a columnar reader. Each comes from the tiers where they hold it, else from S3 in one GET; on
 * the stream path that GET also fetches bytes the next reads are likely to want, kept as spans outside
 * the block grid: the object's tail on the first read into it (a Parquet or ORC footer and the metadata
 * before it, {@link #tailSize}), or a little more than asked for ({@link #READAHEAD}, or the planner's
 * {@code ahead} for a run of columnar reads).
 *
 * <p>Rules kept: a span takes free memory only (when memory is short the read goes straight into the
 * caller's array); every GET is one of the stream's requests; spans are released on close and unbuffer,
 * their buffers returned once no reader copies from them.
 */
final class JumpReads {
  /**
   * Bytes a small stream read after a jump fetches beyond what it asked for (S3A's readahead default);
   * at most an eighth of a block.
   */
  static final int READAHEAD = 64 * 1024;
  /** Most of the object's end fetched at once when a stream read first jumps into it (see {@link #tailSize}). */
  static final int TAIL = 1024 * 1024;
  /** Least of the object's end fetched at once by a footer read (unless the object is smaller). */
  static final int MIN_TAIL = 8 * 1024;

  private final ObjectHandle h;
  private final SourceChain chain;
  private final BufferPool pool;
  private final StreamRequests requests;
  private final ReadStatistics stats;
  private final int blockSize;
  private final long length;
  /** Runs this class's S3 reads on the fetch executor; fetches a columnar range larger than a part in parts. */
  private VectoredReads vectored;
  /** Bytes fetched by the last small stream read after a jump, beyond what it asked for; or null. */
  private volatile Span ahead;
  /** The object's tail, fetched when a stream read first jumped into it; or null. */
  private volatile Span tail;

  JumpReads(ObjectHandle h, SourceChain chain, BufferPool pool, StreamRequests requests, int blockSize) {
    this.h = h;
    this.chain = chain;
    this.pool = pool;
    this.requests = requests;
    this.stats = h.stats();
    this.blockSize = blockSize;
    this.length = h.length();
  }

  /** How a range larger than a part is read; set once, before any read. */
  void largeRangesBy(VectoredReads vectored) {
    this.vectored = vectored;
  }

  /** The object's tail, if a stream read fetched it; null otherwise. */
  Span tail() {
    return tail;
  }

  /** Copies {@code [p, p + len)} from the tail or the readahead span if one holds all of it; false otherwise. */
  boolean copyFromSpans(long p, byte[] dst, int off, int len) {
    return copyFromSpan(tail, p, dst, off, len) || copyFromSpan(ahead, p, dst, off, len);
  }

  /**
   * A small read after a jump: from the tiers if its blocks are there; else one GET, which on the stream
   * path also fetches the object's tail (a jump into it) or {@link #READAHEAD} more bytes, kept for the
   * reads that follow.
   */
  void readSmall(long position, byte[] dst, int off, int len, boolean streamPath) throws IOException {
    if (chain.readFromTiers(position, dst, off, len)) {
      return;
    }
    Span span = null;
    if (streamPath) {
      span = fetchTail(position);
      if (span == null) {
        int readahead = Math.min(READAHEAD, blockSize / 8);
        span = fetchSpan(position, (int) Math.min(length - position, (long) len + readahead), false);
        if (span != null) {
          setAhead(span);
        }
      }
      if (span != null && requests.isClosed()) {
        releaseSpans(); // close() may have swept the spans before this one was set
      }
    }
    if (span == null) {
      readDirect(position, dst, off, len);
      return;
    }
    try {
      System.arraycopy(span.buffer(), (int) (position - span.start()), dst, off, len);
    } finally {
      span.unpin();
    }
  }

  /**
   * A columnar reader's range: exactly its bytes, from the tiers where they hold it, else from S3 (a
   * large range in parallel parts); the first stream read into the object's end fetches the tail at once
   * (the footer and the metadata before it), and a stream read continuing a run also fetches {@code
   * ahead} more bytes, kept for the reads that follow.
   */
  void readRange(long position, byte[] dst, int off, int len, int ahead, boolean streamPath) throws IOException {
    Span span = streamPath ? fetchTail(position) : null;
    if (span == null && streamPath && ahead > 0 && len <= VectoredReads.PART) {
      if (chain.readFromTiers(position, dst, off, len)) {
        return;
      }
      span = fetchSpan(position, (int) Math.min(length - position, (long) len + Math.min(ahead, VectoredReads.PART)),
          true);
      if (span == null) {
        readDirect(position, dst, off, len); // memory is short
        return;
      }
      setAhead(span);
    }
    if (span != null) {
      if (requests.isClosed()) {
        releaseSpans(); // close() may have swept the spans before this one was set
      }
      try {
        System.arraycopy(span.buffer(), (int) (position - span.start()), dst, off, len);
      } finally {
        span.unpin();
      }
      return;
    }
    if (len > VectoredReads.PART) {
      vectored.await(vectored.range(position, dst, off, len, true));
      return;
    }
    if (chain.readKeptRange(position, dst, off, len)) {
      return;
    }
    vectored.readWaiting(position, len, token -> chain.readAnywhere(position, dst, off, len, token));
    chain.keepRange(position, dst, off, len);
  }

  /**
   * On the first stream read into the object's tail ({@link #tailSize}): fetches that tail in one GET,
   * keeps it for the reads that follow (the footer, then the metadata before it) and returns it pinned
   * for the caller. Null otherwise, or if memory is short.
   */
  private Span fetchTail(long position) throws IOException {
    long tailStart = length - tailSize(length, blockSize);
    if (tail != null || position < tailStart) {
      return null;
    }
    Span span = fetchSpan(tailStart, (int) (length - tailStart), true);
    if (span != null) {
      tail = span;
    }
    return span;
  }

  /**
   * The tail a footer read fetches: 1/512 of the object, at least {@link #MIN_TAIL}, at most
   * {@link #TAIL} and a quarter of a block. A Parquet footer grows with columns times row groups, and
   * row groups with the file: a few KiB for a file of a few MB and a few columns, tens of KiB for a
   * large one. A footer larger than the tail costs one more GET, of exactly its bytes; a smaller one
   * wastes the rest, which on small files is most of what a projected read would otherwise pay for.
   */
  static int tailSize(long length, int blockSize) {
    long size = Math.max(MIN_TAIL, Math.min(length / 512, Math.min(TAIL, blockSize / 4)));
    return (int) Math.min(length, size);
  }

  /**
   * Fetches {@code [start, start + len)} into a pooled buffer held as a block outside the grid, pinned
   * for the caller; null if memory is short (the caller then reads directly). With {@code keep} (a
   * footer's tail, a columnar range) it is looked up in the tiers first and offered to them after.
   */
  private Span fetchSpan(long start, int len, boolean keep) throws IOException {
    byte[] buffer = pool.tryAcquire(BufferPool.sizeFor(len));
    if (buffer == null) {
      return null;
    }
    Span b = new Span(start, buffer, len, pool, stats);
    try {
      boolean kept = keep && chain.readKeptRange(start, buffer, 0, len);
      if (!kept) {
        readDirect(start, buffer, 0, len);
      }
      b.filled();
      if (keep && !kept) {
        chain.keepRange(b); // a footer's tail or a columnar range: the next query reads it from disk
      }
      return b;
    } catch (IOException | RuntimeException e) {
      b.unpin();
      b.releaseOwner();
      throw e;
    }
  }

  private void setAhead(Span span) {
    Span old = ahead;
    ahead = span;
    if (old != null) {
      old.releaseOwner();
    }
  }

  private static boolean copyFromSpan(Span span, long p, byte[] dst, int off, int len) {
    if (span == null || p < span.start() || p + len > span.end() || !span.tryPin()) {
      return false;
    }
    try {
      if (!span.isReady()) {
        return false;
      }
      System.arraycopy(span.buffer(), (int) (p - span.start()), dst, off, len);
      return true;
    } finally {
      span.unpin();
    }
  }

  /** Reads straight into the caller's array from S3 (on a fetch thread: see {@link VectoredReads#readWaiting}). */
  private void readDirect(long position, byte[] dst, int off, int len) throws IOException {
    vectored.readWaiting(position, len, token -> chain.readFromStore(position, dst, off, len, token));
  }

  /** Drops the tail and readahead spans; their buffers return once no reader copies from them. */
  void releaseSpans() {
    Span t = tail;
    Span a = ahead;
    tail = null;
    ahead = null;
    if (t != null) {
      t.releaseOwner();
    }
    if (a != null) {
      a.releaseOwner();
    }
  }
}
