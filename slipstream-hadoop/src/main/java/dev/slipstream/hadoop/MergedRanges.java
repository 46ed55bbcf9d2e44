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
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.IntFunction;
import org.apache.hadoop.fs.FileRange;
import org.apache.hadoop.fs.VectoredReadUtils;
import org.apache.hadoop.fs.impl.CombinedFileRange;

/**
 * Hadoop's vectored reads ({@code readVectored}) as merged ranges: the ranges are validated and sorted, ranges closer than {@link #MIN_SEEK} are merged
 * (up to {@link #MAX_MERGED} bytes per merged range: a gap that small costs less to read than to
 * request separately; S3A merges within 128 KiB up to 2 MiB), and every merged range is started at
 * once with {@link SlipstreamInputStream#readFullyAsync}: bytes already in memory or in the disk cache
 * come from there, the rest by ranged GETs of exactly those bytes, each merged range split into parts
 * fetched in parallel on the shared fetch executor. No prefetch window is opened for them.
 *
 * <p>Each caller range gets its own buffer from the caller's allocator, taken on the caller's thread. A
 * merged range of one caller range is read straight into its buffer when the buffer has an array;
 * others go through one transient array. The futures complete on a fetch thread: callers should not
 * block in callbacks chained to them (Parquet and Spark wait for them on their own threads).
 *
 * <p>Named for what it makes of a caller's ranges; the stream's own asynchronous ranges, which each merged
 * range becomes, are the core's business.
 */
final class MergedRanges {
  static final int MIN_SEEK = 128 * 1024;
  static final int MAX_MERGED = 4 * 1024 * 1024;

  private static final MergedRanges SHARED = new MergedRanges();

  private MergedRanges() {}

  /** The instance; stateless, the work runs on the client's fetch executor. */
  static MergedRanges shared(int threads) {
    return SHARED;
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
    for (CombinedFileRange m : VectoredReadUtils.mergeSortedRanges(sorted, 1, MIN_SEEK, MAX_MERGED)) {
      List<FileRange> parts = m.getUnderlying();
      Map<FileRange, ByteBuffer> buffers = new LinkedHashMap<>();
      try {
        for (FileRange r : parts) {
          buffers.put(r, allocate.apply(r.getLength()));
        }
      } catch (Throwable t) {
        buffers.values().forEach(release);
        parts.forEach(r -> r.getData().completeExceptionally(t));
        continue;
      }
      ByteBuffer only = parts.size() == 1 ? buffers.get(parts.get(0)) : null;
      if (only != null && only.hasArray()) {
        FileRange r = parts.get(0);
        in.readFullyAsync(r.getOffset(), only.array(), only.arrayOffset() + only.position(), r.getLength())
            .whenComplete((v, t) -> {
              if (t != null) {
                fail(r, only, release, t);
              } else {
                only.position(only.position() + r.getLength());
                only.flip();
                r.getData().complete(only);
              }
            });
        continue;
      }
      byte[] data = new byte[m.getLength()];
      in.readFullyAsync(m.getOffset(), data, 0, data.length).whenComplete((v, t) -> {
        for (FileRange r : parts) {
          ByteBuffer buffer = buffers.get(r);
          if (t != null) {
            fail(r, buffer, release, t);
            continue;
          }
          try {
            buffer.put(data, (int) (r.getOffset() - m.getOffset()), r.getLength());
            buffer.flip();
            r.getData().complete(buffer);
          } catch (Throwable e) {
            fail(r, buffer, release, e);
          }
        }
      });
    }
    return requested;
  }

  private static void fail(FileRange r, ByteBuffer buffer, Consumer<ByteBuffer> release, Throwable t) {
    if (t instanceof java.util.concurrent.CompletionException && t.getCause() != null) {
      t = t.getCause();
    }
    release.accept(buffer);
    r.getData().completeExceptionally(t);
  }
}
