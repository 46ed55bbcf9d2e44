/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.source;

import dev.slipstream.Counter;
import dev.slipstream.ReadStatistics;
import dev.slipstream.internal.block.BufferPool;
import dev.slipstream.internal.block.Destination;
import dev.slipstream.internal.block.PooledBytes;
import dev.slipstream.internal.block.Span;
import dev.slipstream.internal.fetch.CancelToken;
import dev.slipstream.internal.fetch.ObjectHandle;
import dev.slipstream.internal.fetch.Purpose;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

/**
 * A range's pass through the tiers, in one call: what the tiers kept of it, then what is missing (each
 * block's share from the stream's blocks or the first tier that holds it, the rest from S3), then what S3
 * gave back offered to the tiers (write-behind). {@link RangeThrough} decides how a read waits (a range
 * fetched ahead or a read a caller waits for now, urgent or not) and hands this class the way its reads
 * reach the fetch executor as requests of the stream ({@link Submit}, {@link Waits}); this class asks,
 * fetches through them and keeps, in that order, and never calls back for a decision. A read a caller waits
 * for ({@link #readWaiting}) is the whole pass in one call: the blocks held and the tiers first, then the
 * extent around it into a span (or the read alone), in one request or, when large, in parts, then kept. A
 * range is found either as each block's share of it, or as exactly the range a tier kept, looked up in
 * pieces cut from its start ({@code keptPiece}); a range S3 gave back is offered to every tier as a pooled
 * copy, piece by piece. A tier's trouble is a miss (docs/architecture.md, rule 2). It holds no state of its
 * own.
 */
final class RangeTiers {
  /** A read into a caller's array on a fetch thread, given the token that can stop it. */
  @FunctionalInterface
  interface Work {
    void run(CancelToken token) throws IOException;
  }

  /** How a range's reads run: each on the fetch executor, under the range's request; completes when it ends. */
  @FunctionalInterface
  interface Submit {
    CompletableFuture<Void> submit(Work work);
  }

  /**
   * How the reads of a caller who waits now run, as {@link RangeThrough} makes them: each a request of the
   * stream on the fetch executor, ahead of every prefetch, waited for on the caller's thread, where an
   * interrupt cancels it; into {@code into}'s buffer, pinned until the request has ended, if not null.
   *
   * @param one one request, running a read
   * @param inParts one request in parallel parts
   */
  record Waits(Wait one, WaitInParts inParts) {}

  /** One request of a caller who waits, running {@code work}. */
  @FunctionalInterface
  interface Wait {
    void run(long position, int len, Purpose why, Work work, PooledBytes into) throws IOException;
  }

  /**
   * One request of a caller who waits, in parallel parts: {@code parts} submits each through the way it is
   * given (under a child of the request's token) and completes once all have ended.
   */
  @FunctionalInterface
  interface WaitInParts {
    void run(Purpose why, Function<Submit, CompletableFuture<Void>> parts, PooledBytes into) throws IOException;
  }

  private final ObjectHandle h;
  private final OwnBlocks own;
  private final List<Tier> tiers;
  private final S3Source s3;
  private final BufferPool pool;
  private final ReadStatistics stats;
  private final int blockSize;
  private final int keptPiece;

  RangeTiers(ObjectHandle h, OwnBlocks own, List<Tier> tiers, S3Source s3, BufferPool pool, int blockSize,
      int keptPiece) {
    this.h = h;
    this.own = own;
    this.tiers = List.copyOf(tiers);
    this.s3 = s3;
    this.pool = pool;
    this.stats = h.stats();
    this.blockSize = blockSize;
    this.keptPiece = keptPiece;
  }

  // ---- a range in parts, asynchronously ------------------------------------------------------

  /**
   * Reads {@code [position, position + len)} into {@code dst}, each read through {@code submit}: each of its
   * kept pieces from a tier that kept exactly that piece (looked up on the fetch executor), the pieces missing
   * from wherever their blocks are, each run of them in parallel parts of at most {@link RangeThrough#PART}
   * (as the whole range would be when none had any), then offered to the tiers piece by piece once their run
   * is in. Where no tier keeps the range, it is read in parts at once, with nothing to look up or offer.
   */
  CompletableFuture<Void> readInParts(long position, Destination dst, int len, Submit submit) {
    if (!keepsRange(position, len)) {
      return parts(position, dst, len, submit);
    }
    boolean[] found = new boolean[(int) ((len + (long) keptPiece - 1) / keptPiece)];
    CompletableFuture<Void> lookedUp = submit.submit(t -> lookUpPieces(position, dst, len, found));
    return lookedUp.thenCompose(v -> fetchMissingPieces(position, dst, len, found, submit));
  }

  /** Looks each kept piece of the range up in the tiers, in order, into its place in {@code dst}. */
  private void lookUpPieces(long position, Destination dst, int len, boolean[] found) throws IOException {
    for (int i = 0; i < found.length; i++) {
      int from = i * keptPiece;
      int n = Math.min(keptPiece, len - from);
      // A piece that would land in two buffers is not one the pieces of dst were cut as: fetched.
      found[i] = dst.inOneArray(from, n) && readKeptRange(position + from, dst.array(from), dst.offset(from), n);
    }
  }

  /** Fetches each run of pieces no tier had, in parts, and offers those pieces to the tiers once their run is in. */
  private CompletableFuture<Void> fetchMissingPieces(long position, Destination dst, int len, boolean[] found,
      Submit submit) {
    List<CompletableFuture<Void>> runs = new ArrayList<>();
    for (int i = 0; i < found.length; ) {
      if (found[i]) {
        i++;
        continue;
      }
      int first = i;
      while (i < found.length && !found[i]) {
        i++;
      }
      int from = first * keptPiece;
      int to = Math.min(len, i * keptPiece);
      CompletableFuture<Void> run = parts(position + from, dst.from(from), to - from, submit);
      runs.add(run.thenRun(() -> {
        for (int p = from; p < to; p += keptPiece) {
          int n = Math.min(keptPiece, to - p);
          if (dst.inOneArray(p, n)) {
            keepRange(position + p, dst.array(p), dst.offset(p), n);
          }
        }
      }));
    }
    return CompletableFuture.allOf(runs.toArray(CompletableFuture[]::new));
  }

  /** Reads {@code [position, position + len)} into {@code dst} from wherever it is, in parallel parts. */
  private CompletableFuture<Void> parts(long position, Destination dst, int len, Submit submit) {
    int parts = (len + RangeThrough.PART - 1) / RangeThrough.PART;
    int partSize = (len + parts - 1) / parts;
    List<CompletableFuture<Void>> all = new ArrayList<>(parts);
    for (int done = 0; done < len; done += partSize) {
      long p = position + done;
      Destination d = dst.from(done);
      int n = Math.min(partSize, len - done);
      all.add(submit.submit(t -> readAnywhere(p, d, n, t)));
    }
    return CompletableFuture.allOf(all.toArray(CompletableFuture[]::new));
  }

  // ---- a read a caller waits for --------------------------------------------------------------

  /**
   * Reads {@code how}'s range into {@code dst[off..]} for a caller who waits, in one pass, each request made
   * through {@code waits}: from the blocks the stream and its tiers hold ({@link Through#blocksFirst}),
   * sending nothing; else the extent around it ({@link Through#around}) into a span of free
   * memory ({@link #fillExtent}), the read copied out of it; else (no extent, or memory short for it) the read
   * alone ({@link #readAlone}).
   *
   * @return with the read in {@code dst} either way, the span filled with the extent, pinned for the
   *     caller, who holds it and then unpins it; null if no extent was fetched
   */
  Span readWaiting(Through how, byte[] dst, int off, Waits waits) throws IOException {
    long position = how.position();
    int len = how.length();
    Through.Extent e = how.around();
    if (how.blocksFirst() && readFromTiers(position, dst, off, len)) {
      return null;
    }
    byte[] buffer = e == null ? null : pool.tryAcquire(BufferPool.sizeFor(e.length()));
    if (buffer != null) {
      Span span = new Span(e.start(), buffer, e.length(), pool, stats);
      try {
        fillExtent(span, e.keep(), e.why(), waits);
        System.arraycopy(buffer, (int) (position - e.start()), dst, off, len);
        return span;
      } catch (IOException | RuntimeException ex) {
        span.unpin();
        span.releaseOwner();
        throw ex;
      }
    }
    readAlone(position, dst, off, len, how.keep(), how.why(), waits);
    return null;
  }

  /**
   * Whether a read of {@code len} bytes for a caller who waits, with keeping, goes in parts: more than a
   * {@link RangeThrough#PART}, or than a kept piece where a tier keeps ranges (then kept piece by piece).
   */
  private boolean inParts(long position, int len) {
    return len > RangeThrough.PART || len > keptPiece && keepsRange(position, len);
  }

  /**
   * Reads exactly {@code [position, position + len)} into {@code dst[off..]} for a caller who waits. With
   * {@code keep}: in parts ({@link #readInParts}, one request) if it is large ({@link #inParts}); else from a
   * tier that kept exactly this range (looked up on the caller's thread), else from wherever its blocks are
   * in one request, then offered to the tiers. Without, from S3 alone in one request, and not offered.
   */
  void readAlone(long position, byte[] dst, int off, int len, boolean keep, Purpose why, Waits waits)
      throws IOException {
    if (!keep) {
      waits.one().run(position, len, why, token -> s3.readNow(h, position, dst, off, len, token), null);
      return;
    }
    if (inParts(position, len)) {
      waits.inParts().run(why, submit -> readInParts(position, Destination.of(dst, off), len, submit), null);
      return;
    }
    if (readKeptRange(position, dst, off, len)) {
      return;
    }
    waits.one().run(position, len, why, token -> readAnywhere(position, Destination.of(dst, off), len, token), null);
    keepRange(position, dst, off, len);
  }

  /**
   * Fills {@code span}, not yet filled, for a caller who waits and holds its filler's pin, and marks it
   * filled. With {@code keep} (a footer's tail, a columnar extent): in parts straight into the span's buffer
   * ({@link #readInParts}, one request) if it is large ({@link #inParts}); else as a tier kept exactly its
   * range, straight into the span's buffer, else from S3 in one request and then the span itself offered to
   * the tiers. Without (a readahead after a small read the tiers did not hold), from S3 alone. Each request
   * pins the span until it has ended, so that its buffer goes back to the pool only once none can write into
   * it (a part may be waiting for a tier's access check, which no cancel stops).
   */
  void fillExtent(Span span, boolean keep, Purpose why, Waits waits) throws IOException {
    long start = span.start();
    int len = span.length();
    byte[] buffer = span.buffer();
    if (keep && inParts(start, len)) {
      waits.inParts().run(why, submit -> readInParts(start, Destination.of(buffer, 0), len, submit), span);
      span.filled();
      return;
    }
    boolean found = keep && readKeptRange(span);
    if (!found) {
      waits.one().run(start, len, why, token -> s3.readNow(h, start, buffer, 0, len, token), span);
    }
    span.filled();
    if (keep && !found) {
      keep(Piece.range(start, len), span);
    }
  }

  // ---- what the blocks held and the tiers have -----------------------------------------------

  /**
   * Reads {@code [position, position + len)} from the blocks the stream and the tiers hold, each block's
   * share from the stream's blocks or the first tier that has it; false if any share is missing from all
   * (the shares found are then in dst). Sends nothing.
   */
  boolean readFromTiers(long position, byte[] dst, int off, int len) throws IOException {
    int done = 0;
    while (done < len) {
      long p = position + done;
      int n = share(p, len - done);
      if (!readShare(p, dst, off + done, n)) {
        return false;
      }
      done += n;
    }
    return true;
  }

  /** Whether a tier keeps the range {@code [position, position + len)}, so that looking it up can hit. */
  boolean keepsRange(long position, int len) {
    Piece piece = Piece.range(position, len);
    for (Tier t : tiers) {
      if (t.keeps(piece)) {
        return true;
      }
    }
    return false;
  }

  /**
   * Reads {@code [position, position + len)} from wherever it is, on a fetch thread: each block's share
   * from the stream's blocks or the first tier that holds it, the shares missing from all from S3, each
   * run of them in one GET, across the buffers of {@code dst} (a share that lands in two is asked of the
   * blocks and tiers a buffer at a time). Never waits for another fetch.
   */
  void readAnywhere(long position, Destination dst, int len, CancelToken token) throws IOException {
    long missingFrom = -1;
    int done = 0;
    while (done < len) {
      long p = position + done;
      int n = Math.min(share(p, len - done), dst.room(done));
      boolean served = readShare(p, dst.array(done), dst.offset(done), n);
      if (served && missingFrom >= 0) {
        s3.readNow(h, missingFrom, dst.from(missingFrom - position), (int) (p - missingFrom), token);
        missingFrom = -1;
      } else if (!served && missingFrom < 0) {
        missingFrom = p;
      }
      done += n;
    }
    if (missingFrom >= 0) {
      long end = position + len;
      s3.readNow(h, missingFrom, dst.from(missingFrom - position), (int) (end - missingFrom), token);
    }
  }

  /** Reads exactly the range a columnar reader fetched before, as a tier kept it; false on a miss. */
  boolean readKeptRange(long position, byte[] dst, int off, int len) throws IOException {
    Piece piece = Piece.range(position, len);
    for (Tier t : tiers) {
      if (t.read(piece, 0, dst, off, len)) {
        return true;
      }
    }
    return false;
  }

  /**
   * Fills {@code span}, not yet filled, with exactly its range as a tier kept it: straight into the span's
   * own buffer, which no caller sees before it is filled (no scratch memory, no copy); false on a miss.
   */
  private boolean readKeptRange(Span span) throws IOException {
    Piece piece = Piece.range(span.start(), span.length());
    for (Tier t : tiers) {
      if (t.readBlock(piece, span.buffer())) {
        return true;
      }
    }
    return false;
  }

  /** Bytes of {@code [p, p + max)} in the block holding {@code p}. */
  private int share(long p, int max) {
    long index = p / blockSize;
    return (int) Math.min(max, (index + 1) * blockSize - p);
  }

  private boolean readShare(long p, byte[] dst, int off, int n) throws IOException {
    long index = p / blockSize;
    long start = index * blockSize;
    Piece piece = Piece.block(index, start, (int) Math.min(blockSize, h.length() - start));
    if (own.read(piece, (int) (p - start), dst, off, n)) {
      return true;
    }
    for (Tier t : tiers) {
      if (t.read(piece, (int) (p - start), dst, off, n)) {
        return true;
      }
    }
    return false;
  }

  // ---- what S3 gave back, offered ------------------------------------------------------------

  /** Keeps a copy of a range just fetched from S3 into a caller's buffer; skipped (counted) when memory is short. */
  void keepRange(long position, byte[] src, int off, int len) {
    if (!keepsRange(position, len)) {
      return;
    }
    byte[] buffer = pool.tryAcquire(BufferPool.sizeFor(len));
    if (buffer == null) {
      stats.increment(Counter.DISK_CACHE_WRITES_SKIPPED);
      return;
    }
    System.arraycopy(src, off, buffer, 0, len);
    Span copy = new Span(position, buffer, len, pool, stats);
    copy.filled();
    keep(Piece.range(position, len), copy); // each tier pins the copy for as long as it needs it
    copy.unpin();
    copy.releaseOwner();
  }

  private void keep(Piece piece, PooledBytes data) {
    for (Tier t : tiers) {
      t.keep(piece, data);
    }
  }
}
