/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream;

import dev.slipstream.internal.store.Backoff;
import dev.slipstream.internal.list.DelimiterListing;
import dev.slipstream.internal.list.ParallelListing;
import dev.slipstream.internal.store.ObjectStore;
import dev.slipstream.internal.store.Retrier;
import dev.slipstream.internal.util.DaemonThreads;
import java.util.Collection;
import java.util.Objects;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Lists S3 prefixes for split computation, with as few requests as S3 allows: one flat
 * ListObjectsV2 stream (1,000 keys a request, no delimiter) rather than a request per directory.
 * Obtained from {@link Slipstream#lister()}.
 *
 * <ul>
 *   <li>{@link #list(String, String)}: every key under a prefix, in key order.
 *   <li>{@link #listDirectories(String, Collection, boolean)}: the merge-join of a sorted set of
 *       directories of interest (say, the partitions left after pruning) against one flat listing of
 *       their common parent, from just before the first to just after the last: what 17,520 per-directory
 *       requests did in a hundred or so.
 *   <li>{@link #listLevel(String, String)}: one level under a prefix, objects and common prefixes, as a
 *       listing with delimiter {@code /} shows it; page by page on the caller's thread.
 * </ul>
 *
 * <p>A listing that proves longer than one page is cut into up to {@code list.parallelism} key ranges,
 * listed in parallel and handed back in key order (how the boundaries are picked:
 * {@code dev.slipstream.internal.list}). Pages are handed out as they arrive; each range reads at most
 * a couple of pages ahead. Every entry carries the length and ETag, so opening it with
 * {@link ListEntry#openOptions()} makes no HEAD request. LIST requests count in
 * {@link Counter#LIST_REQUESTS}; transient failures are retried with the client's backoff.
 *
 * <p>Listing threads ({@code slipstream-list-N}, daemons) are this client's own, at most twice
 * {@code list.parallelism}, and end when idle or when the client is closed.
 */
public final class Lister {
  private static final AtomicInteger POOLS = new AtomicInteger();

  private final ObjectStore store;
  private final Retrier retrier;
  private final ReadStatistics stats;
  private final int parallelism;
  private final ThreadPoolExecutor executor;

  Lister(ObjectStore store, SlipstreamConfig config, ReadStatistics stats) {
    this.store = store;
    this.retrier = new Retrier(Backoff.of(config));
    this.stats = stats;
    this.parallelism = config.listParallelism();
    int threads = Math.min(64, 2 * parallelism);
    int pool = POOLS.incrementAndGet();
    this.executor = new ThreadPoolExecutor(threads, threads, 5, TimeUnit.SECONDS, new LinkedBlockingQueue<>(),
        DaemonThreads.named("slipstream-list-" + pool + "-"));
    executor.allowCoreThreadTimeOut(true);
  }

  /** Key ranges a long listing is cut into: {@code list.parallelism}. */
  public int parallelism() {
    return parallelism;
  }

  /** Every object under {@code prefix} ({@code ""}: the whole bucket), in key order. */
  public Listing list(String bucket, String prefix) {
    return list(bucket, prefix, parallelism);
  }

  /** As {@link #list(String, String)}, cut into at most {@code ranges} key ranges (1: sequential). */
  public Listing list(String bucket, String prefix, int ranges) {
    return listAfter(bucket, prefix, null, ranges);
  }

  /**
   * The objects under {@code prefix} whose keys sort after {@code startAfter} (S3's {@code StartAfter};
   * null: all of them), in key order, cut into at most {@code ranges} key ranges. A caller that stops
   * early and closes the listing pays for the pages already asked for: at most a couple per range.
   *
   * @throws IllegalArgumentException if {@code startAfter} does not start with {@code prefix}
   */
  public Listing listAfter(String bucket, String prefix, String startAfter, int ranges) {
    checkBucket(bucket);
    Objects.requireNonNull(prefix, "prefix");
    if (startAfter != null && !startAfter.startsWith(prefix)) {
      throw new IllegalArgumentException("start-after key '" + startAfter + "' is not under the prefix '" + prefix
          + "' in s3://" + bucket + "/");
    }
    return ParallelListing.ofPrefix(store, executor, retrier, stats.child(), bucket, prefix, startAfter,
        checkRanges(ranges));
  }

  /**
   * The objects directly in ({@code recursive}: anywhere under) the given directories, in key order,
   * from one flat listing of their common parent. A directory is a key prefix ending in {@code /}
   * ({@code "logs/date=2024-01-01/"}); order and duplicates do not matter. Directory marker objects
   * (a key equal to a directory of interest, or ending in {@code /} under one) are entries too
   * ({@link ListEntry#isDirectoryMarker()}); a directory with no key at all yields nothing.
   *
   * <p>Keys between the directories of interest are listed and dropped: the fewer of them, the better
   * this is. With directories holding large subtrees and {@code recursive} false, per-directory
   * listings with a delimiter may cost fewer requests.
   *
   * @throws IllegalArgumentException if {@code directories} is empty or one does not end in "/"
   */
  public Listing listDirectories(String bucket, Collection<String> directories, boolean recursive) {
    return listDirectories(bucket, directories, recursive, parallelism);
  }

  /** As {@link #listDirectories(String, Collection, boolean)}, cut into at most {@code ranges} key ranges. */
  public Listing listDirectories(String bucket, Collection<String> directories, boolean recursive, int ranges) {
    checkBucket(bucket);
    Objects.requireNonNull(directories, "directories");
    if (directories.isEmpty()) {
      throw new IllegalArgumentException("no directories to list in s3://" + bucket + "/");
    }
    for (String d : directories) {
      if (d == null || d.isEmpty() || !d.endsWith("/")) {
        throw new IllegalArgumentException("not a directory key (a non-empty prefix ending in '/'): '" + d
            + "' in s3://" + bucket + "/");
      }
    }
    return ParallelListing.ofDirectories(store, executor, retrier, stats.child(), bucket, directories, recursive,
        checkRanges(ranges));
  }

  /**
   * The objects directly under {@code prefix} and the common prefixes one {@code /} further down, page by
   * page: see {@link LevelListing}. {@code "logs/"} lists inside that "directory"; {@code "logs"} lists
   * {@code logs/} itself as a common prefix, beside any {@code logs.csv} or {@code logs2/}, as S3 does.
   */
  public LevelListing listLevel(String bucket, String prefix) {
    checkBucket(bucket);
    Objects.requireNonNull(prefix, "prefix");
    return new DelimiterListing(store, retrier, stats.child(), bucket, prefix);
  }

  private static void checkBucket(String bucket) {
    if (bucket == null || bucket.isEmpty()) {
      throw new IllegalArgumentException("empty bucket name");
    }
  }

  private static int checkRanges(int ranges) {
    if (ranges < 1 || ranges > 64) {
      throw new IllegalArgumentException("ranges must be between 1 and 64, got " + ranges);
    }
    return ranges;
  }

  /** Stops the listing threads; listings still running fail. */
  void close() {
    executor.shutdownNow();
  }
}
