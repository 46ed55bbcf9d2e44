/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.fetch;

import dev.slipstream.Counter;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Reads a block's range from S3 as parallel parts, so that a run's blocks arrive at the link's speed
 * rather than one connection's.
 *
 * <p>One S3 connection carries a fraction of the link (on the {@code s3-like} profile, 25 of 300 MB/s). A
 * run starts with two blocks in flight, and would wait one connection's time for its first 8 MiB (0.34 s);
 * the last blocks of an object leave connections unused too. The caller says when parts are wanted (the
 * stream's depth policy: {@code read.AheadDepth.partsAhead}); such a block is split into {@code
 * ceil(fetch threads / block reads wanted)} parts, this one included, none smaller than {@code
 * fetch.part.min}, where the reads wanted are those in progress and the tasks queued behind them: the
 * blocks wanted together ask for about as many GETs as there are threads to run them, and when every
 * thread has a block to read, a block is one GET. So a stream that puts many blocks in flight at once (a
 * declared sequential read starts deep) reads them in few parts, and a run that ramps up from two blocks,
 * or the last blocks of an object, in many. Parts cost GETs (each about a millisecond of CPU in the AWS
 * SDK's request pipeline), not memory: they fill the block's own buffer.
 *
 * <p>The block's thread reads the first part itself, then runs each other part that no thread has started
 * yet, and waits only for parts already running: a fetch thread never waits for a task still in the queue,
 * so no number of parted blocks can deadlock the executor. Each part goes through the retry layer on its
 * own (a retry asks for that part's missing bytes); the first part to fail for good cancels the others, and
 * the read returns only once no part is still writing into the buffer.
 */
public final class ParallelParts {
  private final RangeReader ranges;
  private final FetchExecutor executor;
  /** The smallest part ({@code fetch.part.min}). */
  private final int minPart;

  public ParallelParts(RangeReader ranges, FetchExecutor executor, int minPart) {
    this.ranges = ranges;
    this.executor = executor;
    this.minPart = minPart;
  }

  /** How many parts a read of {@code len} bytes is split into while {@code blockReads} are wanted. */
  int parts(int len, int blockReads) {
    int most = len / minPart;
    return most < 2 ? 1 : Math.min(most, (executor.threads() + blockReads - 1) / blockReads);
  }

  /**
   * Reads bytes {@code [start, start + len)} of {@code h} into {@code dst[off...]} on a fetch thread; if
   * {@code inParts}, in parallel parts while fewer blocks are being read than there are threads. {@code
   * token} stops every part.
   */
  public void read(ObjectHandle h, long start, byte[] dst, int off, int len, CancelToken token, boolean inParts)
      throws IOException {
    int reads = executor.blockReadStarted();
    try {
      read(h, start, dst, off, len, token, inParts ? parts(len, reads + executor.queued()) : 1);
    } finally {
      executor.blockReadEnded();
    }
  }

  private void read(ObjectHandle h, long start, byte[] dst, int off, int len, CancelToken token, int n)
      throws IOException {
    if (n == 1) {
      ranges.read(h, start, start + len, dst, off, token);
      return;
    }
    h.stats().increment(Counter.BLOCKS_IN_PARTS);
    int size = (len + n - 1) / n;
    List<Part> others = new ArrayList<>(n - 1);
    for (int done = size; done < len; done += size) {
      Part p = new Part(h, start + done, dst, off + done, Math.min(size, len - done), token.child());
      others.add(p);
      try {
        executor.execute(p);
      } catch (RejectedExecutionException e) {
        // the client is closing: this thread runs it, and its read gets the closed error
      }
    }
    Throwable failure = null;
    try {
      ranges.read(h, start, start + size, dst, off, token);
    } catch (IOException | RuntimeException | Error e) {
      failure = e;
    }
    boolean interrupted = false;
    for (Part p : others) {
      if (failure != null) {
        p.cancel();
      } else if (p.claim()) {
        p.runHere();
      }
      while (true) {
        try {
          p.done.get();
          break;
        } catch (ExecutionException e) {
          if (failure == null) {
            failure = e.getCause();
          }
          break;
        } catch (InterruptedException e) {
          // parts still running write into dst: stop them and wait for them before giving the buffer back
          interrupted = true;
          if (failure == null) {
            failure = new InterruptedIOException("interrupted while reading " + h.location() + " bytes " + start
                + "-" + (start + len - 1));
          }
          others.forEach(Part::cancel);
        }
      }
      token.forget(p.token);
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
    if (failure instanceof IOException io) {
      throw io;
    } else if (failure instanceof RuntimeException re) {
      throw re;
    } else if (failure instanceof Error err) {
      throw err;
    } else if (failure != null) {
      throw new IOException(failure);
    }
  }

  /** One part after the first: run by an idle fetch thread, or by the block's thread if none took it. */
  private final class Part extends FetchExecutor.Task {
    private final ObjectHandle h;
    private final long start;
    private final byte[] dst;
    private final int off;
    private final int len;
    final CancelToken token;
    private final AtomicBoolean claimed = new AtomicBoolean();
    /** Completes when the part has ended, however: no byte of dst is written after. */
    final CompletableFuture<Void> done = new CompletableFuture<>();

    Part(ObjectHandle h, long start, byte[] dst, int off, int len, CancelToken token) {
      super(true); // the rest of a block already being fetched: ahead of blocks not yet started
      this.h = h;
      this.start = start;
      this.dst = dst;
      this.off = off;
      this.len = len;
      this.token = token;
    }

    boolean claim() {
      return claimed.compareAndSet(false, true);
    }

    @Override
    public void run() {
      if (claim()) {
        runHere();
      }
    }

    void runHere() {
      try {
        ranges.read(h, start, start + len, dst, off, token);
        done.complete(null);
      } catch (Throwable t) {
        done.completeExceptionally(t);
      }
    }

    /** Never runs if not started; if running, its request is aborted. */
    void cancel() {
      token.cancel();
      if (claim()) {
        executor.remove(this);
        done.completeExceptionally(token.closedError());
      }
    }

    @Override
    protected void abandon(IOException why) {
      if (claim()) {
        done.completeExceptionally(why);
      }
    }
  }
}
