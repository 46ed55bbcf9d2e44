/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.hadoop;

import dev.slipstream.SlipstreamInputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.function.IntFunction;
import org.apache.hadoop.fs.FileRange;
import org.apache.hadoop.fs.VectoredReadUtils;
import org.apache.hadoop.fs.impl.CombinedFileRange;

/**
 * Vectored reads: the ranges are validated and sorted, ranges closer than {@link #MIN_SEEK} are merged
 * (up to {@link #MAX_MERGED} bytes per merged range: a gap that small costs less to read than to
 * request separately; S3A merges within 128 KiB up to 2 MiB), and each merged range is read on a small
 * shared pool through the
 * stream's positional reads, so that all of them are in flight at once and go through the same block,
 * retry and version machinery as every other read. Each caller range gets its own buffer from the
 * caller's allocator; a merged range of one caller range is read straight into its buffer, others
 * through one transient array of at most {@link #MAX_MERGED} bytes per pool thread.
 *
 * <p>The pool is separate from the fetch executor on purpose: its threads wait for blocks, and a
 * fetch thread must never wait for another fetch.
 */
final class VectoredReads {
  static final int MIN_SEEK = 128 * 1024;
  static final int MAX_MERGED = 4 * 1024 * 1024;

  private static final AtomicInteger THREADS = new AtomicInteger();
  private static volatile ExecutorService shared;

  private final ExecutorService pool;

  private VectoredReads(ExecutorService pool) {
    this.pool = pool;
  }

  /** The JVM-wide instance: daemon threads named {@code slipstream-vector-N}, ending when idle. */
  static VectoredReads shared(int threads) {
    ExecutorService p = shared;
    if (p == null) {
      synchronized (VectoredReads.class) {
        p = shared;
        if (p == null) {
          ThreadPoolExecutor e = new ThreadPoolExecutor(threads, threads, 30, TimeUnit.SECONDS,
              new LinkedBlockingQueue<>(), r -> {
                Thread t = new Thread(r, "slipstream-vector-" + THREADS.incrementAndGet());
                t.setDaemon(true);
                return t;
              });
          e.allowCoreThreadTimeOut(true);
          shared = p = e;
        }
      }
    }
    return new VectoredReads(p);
  }

  /** Starts the reads; every range's future is set before this returns. Returns the bytes requested. */
  long read(SlipstreamInputStream in, List<? extends FileRange> ranges, IntFunction<ByteBuffer> allocate,
      Consumer<ByteBuffer> release) throws IOException {
    List<? extends FileRange> sorted = VectoredReadUtils.validateAndSortRanges(ranges, Optional.of(in.length()));
    long requested = 0;
    for (FileRange r : ranges) {
      r.setData(new CompletableFuture<>());
      requested += r.getLength();
    }
    if (sorted.isEmpty()) {
      return 0;
    }
    List<CombinedFileRange> merged = VectoredReadUtils.mergeSortedRanges(sorted, 1, MIN_SEEK, MAX_MERGED);
    for (CombinedFileRange m : merged) {
      pool.execute(() -> readMerged(in, m, allocate, release));
    }
    return requested;
  }

  private static void readMerged(SlipstreamInputStream in, CombinedFileRange merged,
      IntFunction<ByteBuffer> allocate, Consumer<ByteBuffer> release) {
    List<FileRange> parts = merged.getUnderlying();
    if (parts.size() == 1) {
      readOne(in, parts.get(0), allocate, release);
      return;
    }
    byte[] data;
    try {
      data = new byte[merged.getLength()];
      in.readFully(merged.getOffset(), data, 0, data.length);
    } catch (Throwable t) {
      for (FileRange r : parts) {
        r.getData().completeExceptionally(t);
      }
      return;
    }
    for (FileRange r : parts) {
      ByteBuffer buffer = null;
      try {
        buffer = allocate.apply(r.getLength());
        buffer.put(data, (int) (r.getOffset() - merged.getOffset()), r.getLength());
        buffer.flip();
        r.getData().complete(buffer);
      } catch (Throwable t) {
        if (buffer != null) {
          release.accept(buffer);
        }
        r.getData().completeExceptionally(t);
      }
    }
  }

  private static void readOne(SlipstreamInputStream in, FileRange r, IntFunction<ByteBuffer> allocate,
      Consumer<ByteBuffer> release) {
    ByteBuffer buffer = null;
    try {
      buffer = allocate.apply(r.getLength());
      if (buffer.hasArray()) {
        in.readFully(r.getOffset(), buffer.array(), buffer.arrayOffset() + buffer.position(), r.getLength());
        buffer.position(buffer.position() + r.getLength());
      } else {
        buffer.limit(buffer.position() + r.getLength());
        long at = r.getOffset();
        while (buffer.hasRemaining()) {
          int n = in.read(at, buffer);
          if (n < 0) {
            throw new java.io.EOFException(in.location() + ": end of object at " + at);
          }
          at += n;
        }
      }
      buffer.flip();
      r.getData().complete(buffer);
    } catch (Throwable t) {
      if (buffer != null) {
        release.accept(buffer);
      }
      r.getData().completeExceptionally(t);
    }
  }
}
