/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream;

import java.io.IOException;
import java.util.List;

/**
 * The result of a {@link Lister} call: objects in S3's key order (UTF-8 binary order; in a directory
 * bucket, the order the bucket lists them in), handed out page by page as the pages arrive, while the next pages are listed in the background. Reading ahead is
 * bounded (a few pages per key range), so a slow consumer holds little memory. {@link #close()} stops
 * the background listing; a listing read to its end needs no close, but closing is always safe.
 *
 * <p>Not thread-safe: one consumer at a time. Failures (access denied, a missing bucket, transient
 * errors that outlived their retries) surface from {@link #hasNext()}, {@link #next()} or
 * {@link #nextPage()}, with the bucket and prefix in the message.
 */
public interface Listing extends AutoCloseable {
  /** True if {@link #next()} has an entry; may wait for the next page to arrive. */
  boolean hasNext() throws IOException;

  /**
   * The next entry.
   *
   * @throws java.util.NoSuchElementException at the end of the listing
   */
  ListEntry next() throws IOException;

  /** The entries not yet returned of the page at hand, or of the next page; empty at the end. */
  List<ListEntry> nextPage() throws IOException;

  /** LIST requests and retries of this listing (they also count in the client's statistics). */
  ReadStatistics statistics();

  /** Key ranges this listing was split into (1 until it proved longer than a page). */
  int ranges();

  /** Stops the background listing and drops the pages read ahead. Idempotent. */
  @Override
  void close();
}
