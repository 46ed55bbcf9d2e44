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
 * <p>Each request asks for up to 1,000 keys, S3's most; {@link #withPageKeys} asks for fewer (a store or
 * proxy that caps pages lower, or Hadoop's {@code fs.s3a.paging.maximum}).
 *
 * <p>A directory bucket (S3 Express One Zone, see {@link DirectoryBuckets}) lists in no key order, takes no
 * {@code StartAfter}, and only prefixes that end in {@code /}. There {@link #list} is one sequential
 * listing (no key ranges) of a prefix that is empty or ends in {@code /}, its keys in the order the
 * bucket gives them, not sorted; a {@code startAfter} key, a merge-join ({@link #listDirectories}) and a
 * prefix not ending in {@code /} are refused with an exception naming the bucket and why.
 *
 * <p>Listing threads ({@code slipstream-list-N}, daemons) are this client's own, at most twice
 * {@code list.parallelism}, and end when idle or when the client is closed.
 */
public final class Lister {
  /** The most keys S3 returns in one LIST page, and what each request asks for unless told otherwise. */
  public static final int MAX_PAGE_KEYS = 1000;
  private static final AtomicInteger POOLS = new AtomicInteger();

  private final ObjectStore store;
  private final Retrier retrier;
  private final ReadStatistics stats;
  private final int parallelism;
  private final ThreadPoolExecutor executor;
  /** Keys (and common prefixes) each LIST request asks for. */
  private final int pageKeys;

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
    this.pageKeys = MAX_PAGE_KEYS;
  }

  private Lister(Lister of, int pageKeys) {
    this.store = of.store;
    this.retrier = of.retrier;
    this.stats = of.stats;
    this.parallelism = of.parallelism;
    this.executor = of.executor;
    this.pageKeys = pageKeys;
  }

  /**
   * This lister, its requests asking for at most {@code keys} keys a page: the same threads, client and
   * statistics (closing the client ends this one too). Fewer keys a page means more requests for a listing.
   *
   * @throws IllegalArgumentException if {@code keys} is not between 1 and {@value #MAX_PAGE_KEYS}
   */
  public Lister withPageKeys(int keys) {
    if (keys < 1 || keys > MAX_PAGE_KEYS) {
      throw new IllegalArgumentException("keys a LIST page must be between 1 and " + MAX_PAGE_KEYS + ", got " + keys);
    }
    return keys == pageKeys ? this : new Lister(this, keys);
  }

  /** Keys each LIST request asks for. */
  public int pageKeys() {
    return pageKeys;
  }

  /** Key ranges a long listing is cut into: {@code list.parallelism}. */
  public int parallelism() {
    return parallelism;
  }

  /**
   * Every object under {@code prefix} ({@code ""}: the whole bucket), in key order (in a directory bucket:
   * in the bucket's order, one sequential listing; the prefix must be empty or end in {@code /}).
   */
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
    checkRanges(ranges);
    if (DirectoryBuckets.isDirectoryBucket(bucket)) {
      if (startAfter != null) {
        throw new UnsupportedOperationException(directoryBucket(bucket) + " its ListObjectsV2 takes no StartAfter,"
            + " so it cannot be listed after '" + startAfter + "'");
      }
      checkDirectoryPrefix(bucket, prefix);
      // No key ranges: they are cut and joined by key order, which this bucket's listings do not keep.
      return ParallelListing.ofPrefix(store, executor, retrier, stats.child(), bucket, prefix, null, 1, pageKeys);
    }
    return ParallelListing.ofPrefix(store, executor, retrier, stats.child(), bucket, prefix, startAfter, ranges,
        pageKeys);
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
   * @throws UnsupportedOperationException if {@code bucket} is a directory bucket ({@link DirectoryBuckets}):
   *     the merge-join needs keys in order and {@code StartAfter}, which its listings do not give
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
    checkRanges(ranges);
    if (DirectoryBuckets.isDirectoryBucket(bucket)) {
      throw new UnsupportedOperationException(directoryBucket(bucket) + " its ListObjectsV2 lists keys in no order"
          + " and takes no StartAfter, so no merge-join of directories can be made there; list each directory"
          + " with list(bucket, directory) instead");
    }
    return ParallelListing.ofDirectories(store, executor, retrier, stats.child(), bucket, directories, recursive,
        ranges, pageKeys);
  }

  /**
   * The objects directly under {@code prefix} and the common prefixes one {@code /} further down, page by
   * page: see {@link LevelListing}. {@code "logs/"} lists inside that "directory"; {@code "logs"} lists
   * {@code logs/} itself as a common prefix, beside any {@code logs.csv} or {@code logs2/}, as S3 does.
   * In a directory bucket the prefix must be empty or end in {@code /}, and the entries of a page come in
   * the bucket's order, not sorted.
   */
  public LevelListing listLevel(String bucket, String prefix) {
    checkBucket(bucket);
    Objects.requireNonNull(prefix, "prefix");
    if (DirectoryBuckets.isDirectoryBucket(bucket)) {
      checkDirectoryPrefix(bucket, prefix);
    }
    return new DelimiterListing(store, retrier, stats.child(), bucket, prefix, pageKeys);
  }

  /** The start of every refusal for a directory bucket: which bucket, and what it is. */
  private static String directoryBucket(String bucket) {
    return "s3://" + bucket + "/ is an S3 Express One Zone directory bucket (its name ends in "
        + DirectoryBuckets.SUFFIX + "):";
  }

  private static void checkDirectoryPrefix(String bucket, String prefix) {
    if (!prefix.isEmpty() && !prefix.endsWith("/")) {
      throw new IllegalArgumentException(directoryBucket(bucket) + " it lists only prefixes that end in '/', not '"
          + prefix + "'");
    }
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
