/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream;

import java.io.IOException;

/**
 * One level under a prefix, as a listing with delimiter {@code /} shows it (what {@code aws s3 ls} and
 * Hadoop's non-recursive {@code listStatus} show): the objects directly under it, and one common prefix
 * per "subdirectory". From {@link Lister#listLevel(String, String)}.
 *
 * <p>Page by page, one LIST request per {@link #nextPage()}, on the caller's thread: nothing is read
 * ahead, so the caller holds at most the page it asked for, and a caller that stops early has paid for
 * exactly the pages it took. A level cannot be cut into key ranges the way a flat listing is (the
 * boundaries would have to be found first); for a whole subtree, {@link Lister#list(String, String)} is
 * the parallel way.
 *
 * <p>Not thread-safe: one consumer at a time. Failures (access denied, a missing bucket, transient
 * errors that outlived their retries) surface from {@link #nextPage()}, with the bucket and prefix in
 * the message.
 */
public interface LevelListing {
  /** True until the last page has been returned (a listing of nothing has one empty page). */
  boolean hasNextPage();

  /**
   * Lists the next page: one request, retried on transient failures.
   *
   * @throws java.util.NoSuchElementException after the last page
   * @throws java.io.FileNotFoundException if the bucket does not exist
   * @throws java.nio.file.AccessDeniedException if S3 refuses the listing
   */
  LevelPage nextPage() throws IOException;

  /** LIST requests and retries of this listing (they also count in the client's statistics). */
  ReadStatistics statistics();
}
