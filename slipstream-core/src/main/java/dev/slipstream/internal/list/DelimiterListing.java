/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.list;

import dev.slipstream.Counter;
import dev.slipstream.LevelListing;
import dev.slipstream.LevelPage;
import dev.slipstream.ReadStatistics;
import dev.slipstream.internal.store.ObjectStore;
import dev.slipstream.internal.store.Retrier;
import dev.slipstream.internal.store.TransientStoreException;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.NoSuchElementException;

/**
 * A {@link LevelListing}: the ListObjectsV2 pages of one prefix with delimiter {@code /}, one request per
 * page, each asked for by the consumer on its own thread. It holds a continuation token and nothing else
 * between pages.
 */
public final class DelimiterListing implements LevelListing {
  private static final String DELIMITER = "/";

  private final ObjectStore store;
  private final Retrier retrier;
  private final ReadStatistics stats;
  private final String bucket;
  private final String prefix;
  private final int pageKeys;

  /** Where the next page starts; null before the first page. */
  private String token;
  private boolean done;

  public DelimiterListing(ObjectStore store, Retrier retrier, ReadStatistics stats, String bucket, String prefix,
      int pageKeys) {
    this.store = store;
    this.retrier = retrier;
    this.stats = stats;
    this.bucket = bucket;
    this.prefix = prefix;
    this.pageKeys = pageKeys;
  }

  @Override
  public boolean hasNextPage() {
    return !done;
  }

  @Override
  public LevelPage nextPage() throws IOException {
    if (done) {
      throw new NoSuchElementException("end of the listing of " + where());
    }
    ObjectStore.ListRequest req = new ObjectStore.ListRequest(bucket, prefix, null, DELIMITER, pageKeys, token);
    ObjectStore.ListPage page = retrier.run(() -> "listing " + where(), stats, SLEEP, () -> {
      stats.increment(Counter.LIST_REQUESTS);
      long t0 = System.nanoTime();
      ObjectStore.ListPage p = store.list(req);
      stats.record(dev.slipstream.Latency.LIST, System.nanoTime() - t0);
      return p;
    });
    token = page.nextContinuationToken();
    done = !page.truncated();
    return new LevelPage(page.objects(), page.commonPrefixes());
  }

  @Override
  public ReadStatistics statistics() {
    return stats;
  }

  private String where() {
    return "s3://" + bucket + "/" + prefix;
  }

  /** The consumer's own thread waits out the backoff; an interrupt ends the listing. */
  private static final Retrier.Stop SLEEP = (millis, retrying) -> {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException ie) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted while retrying: " + retrying.getMessage());
    }
  };
}
