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
 * Hadoop's vectored reads ({@code readVectored}) as merged ranges: the ranges are validated and sorted, ranges closer than {@link #minSeek()} are merged
 * (up to {@link #maxMerged()} bytes per merged range: a gap that small costs less to read than to
 * request separately), S3A's {@code fs.s3a.vectored.read.min.seek.size} and
 * {@code fs.s3a.vectored.read.max.merged.size} where set (S3A merges within 128 KiB up to 2 MiB; here,
 * unset, within 128 KiB up to 4 MiB: each merged range is fetched in parallel parts, so a larger one costs
 * no more time), and every merged range is started at
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
  static final String MIN_SEEK_KEY = "fs.s3a.vectored.read.min.seek.size";
  static final String MAX_MERGED_KEY = "fs.s3a.vectored.read.max.merged.size";
  static final int MIN_SEEK = 128 * 1024;
  static final int MAX_MERGED = 4 * 1024 * 1024;

  private static final MergedRanges DEFAULTS = new MergedRanges(MIN_SEEK, MAX_MERGED);

  private final int minSeek;
  private final int maxMerged;

  private MergedRanges(int minSeek, int maxMerged) {
    this.minSeek = minSeek;
    this.maxMerged = maxMerged;
  }

  /** Merged within 128 KiB, up to 4 MiB. Stateless: the work runs on the client's fetch executor. */
  static MergedRanges defaults() {
    return DEFAULTS;
  }

  /**
   * As S3A's settings {@code conf} say, where set; refused as S3A refuses them: a negative size, or a
   * merged size below the seek size.
   */
  static MergedRanges of(org.apache.hadoop.conf.Configuration conf) {
    long minSeek = conf.getLongBytes(MIN_SEEK_KEY, MIN_SEEK);
    long maxMerged = conf.getLongBytes(MAX_MERGED_KEY, MAX_MERGED);
    if (minSeek < 0 || maxMerged < 0 || minSeek > Integer.MAX_VALUE || maxMerged > Integer.MAX_VALUE) {
      throw new IllegalArgumentException(MIN_SEEK_KEY + "=" + minSeek + " and " + MAX_MERGED_KEY + "=" + maxMerged
          + " must be sizes from 0 to 2 GiB");
    }
    if (maxMerged < minSeek) {
      throw new IllegalArgumentException(MAX_MERGED_KEY + "=" + maxMerged + " is below " + MIN_SEEK_KEY + "="
          + minSeek + ": ranges closer than the one could not be merged within the other");
    }
    return minSeek == MIN_SEEK && maxMerged == MAX_MERGED ? DEFAULTS : new MergedRanges((int) minSeek, (int) maxMerged);
  }

  /** Ranges closer than this are merged. */
  int minSeek() {
    return minSeek;
  }

  /** The most bytes of one merged range. */
  int maxMerged() {
    return maxMerged;
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
    for (CombinedFileRange m : VectoredReadUtils.mergeSortedRanges(sorted, 1, minSeek, maxMerged)) {
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
