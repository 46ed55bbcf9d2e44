/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.list;

import dev.slipstream.Counter;
import dev.slipstream.ListEntry;
import dev.slipstream.Listing;
import dev.slipstream.ReadStatistics;
import dev.slipstream.internal.store.ObjectStore;
import dev.slipstream.internal.store.Retrier;
import dev.slipstream.internal.store.TransientStoreException;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;

/**
 * A listing run as one or more key ranges, each a sequence of ListObjectsV2 pages, listed in parallel
 * on the lister's executor and handed to the consumer in key order: all of range 0, then range 1, and
 * so on. Ranges are contiguous and disjoint, so that concatenation is the merge.
 *
 * <p>Range 0 starts alone. If its first page comes back truncated, the plan picks boundaries after
 * that page's last key, range 0 is bounded by the first of them and the other ranges start at once.
 * A range task lists one page, queues it, and lists the next only while fewer than
 * {@value #READ_AHEAD} pages wait in its queue; the consumer restarts a paused range as it takes its
 * pages. So no thread ever blocks on a slow consumer, and memory is bounded by
 * {@code ranges * (READ_AHEAD + 1)} pages. {@link #close()} stops every range at its next page.
 *
 * <p>Transient failures are retried per request by the client's {@link Retrier} ({@code retry.max},
 * {@code retry.interval}, {@code retry.interval.max}); the first permanent one ends the listing and
 * is thrown to the consumer at its next call.
 */
public final class ParallelListing implements Listing {
  static final int PAGE_KEYS = 1000;
  static final int READ_AHEAD = 2;

  private final ObjectStore store;
  private final Executor executor;
  private final Retrier retrier;
  private final ReadStatistics stats;
  private final String bucket;
  private final ListingPlan plan;
  private final int parallelism;
  /** Keys each request asks for: {@link #PAGE_KEYS} unless the caller asked for fewer. */
  private final int pageKeys;

  private final Object lock = new Object();
  private final List<Range> ranges = new ArrayList<>(); // guarded by lock
  private IOException failure; // guarded by lock
  private boolean closed; // guarded by lock

  // consumer side only
  private int current;
  private List<ListEntry> page = List.of();
  private int pageIndex;

  ParallelListing(ObjectStore store, Executor executor, Retrier retrier, ReadStatistics stats, String bucket,
      ListingPlan plan, int parallelism, int pageKeys) {
    this.store = store;
    this.pageKeys = pageKeys;
    this.executor = executor;
    this.retrier = retrier;
    this.stats = stats;
    this.bucket = bucket;
    this.plan = plan;
    this.parallelism = parallelism;
    Range first = new Range(0, plan.startAfter(), null);
    synchronized (lock) {
      ranges.add(first);
      first.running = true;
    }
    submit(first);
  }

  /** Lists a prefix: all of it, or its keys after {@code startAfter} (null: all). */
  public static ParallelListing ofPrefix(ObjectStore store, Executor executor, Retrier retrier, ReadStatistics stats,
      String bucket, String prefix, String startAfter, int parallelism, int pageKeys) {
    return new ParallelListing(store, executor, retrier, stats, bucket, new PrefixPlan(prefix, startAfter),
        parallelism, pageKeys);
  }

  /** The merge-join against {@code directories} (keys ending in "/"). */
  public static ParallelListing ofDirectories(ObjectStore store, Executor executor, Retrier retrier,
      ReadStatistics stats, String bucket, java.util.Collection<String> directories, boolean recursive,
      int parallelism, int pageKeys) {
    return new ParallelListing(store, executor, retrier, stats, bucket, new DirectoriesPlan(directories, recursive),
        parallelism, pageKeys);
  }

  @Override
  public boolean hasNext() throws IOException {
    while (pageIndex >= page.size()) {
      List<ListEntry> p = take();
      if (p == null) {
        return false;
      }
      page = p;
      pageIndex = 0;
    }
    return true;
  }

  @Override
  public ListEntry next() throws IOException {
    if (!hasNext()) {
      throw new NoSuchElementException("end of the listing of " + where());
    }
    return page.get(pageIndex++);
  }

  @Override
  public List<ListEntry> nextPage() throws IOException {
    if (!hasNext()) {
      return List.of();
    }
    List<ListEntry> rest = page.subList(pageIndex, page.size());
    pageIndex = page.size();
    return rest;
  }

  @Override
  public ReadStatistics statistics() {
    return stats;
  }

  @Override
  public int ranges() {
    synchronized (lock) {
      return ranges.size();
    }
  }

  @Override
  public void close() {
    synchronized (lock) {
      closed = true;
      for (Range r : ranges) {
        r.pages.clear();
      }
      lock.notifyAll();
    }
    page = List.of();
    pageIndex = 0;
  }

  private String where() {
    return "s3://" + bucket + "/" + plan.prefix();
  }

  /** The next non-empty page in key order, or null at the end. */
  private List<ListEntry> take() throws IOException {
    Range restart = null;
    try {
      synchronized (lock) {
        while (true) {
          if (failure != null) {
            throw rethrow(failure);
          }
          if (closed) {
            throw new IOException("the listing of " + where() + " is closed");
          }
          Range r = ranges.get(current);
          List<ListEntry> p = r.pages.poll();
          if (p != null) {
            if (!r.done && !r.running) {
              r.running = true;
              restart = r;
            }
            return p;
          }
          if (r.done) {
            if (current + 1 < ranges.size()) {
              current++;
              continue;
            }
            return null;
          }
          try {
            lock.wait();
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted while waiting for the listing of " + where());
          }
        }
      }
    } finally {
      if (restart != null) {
        submit(restart);
      }
    }
  }

  private static IOException rethrow(IOException e) {
    // a copy with the consumer's stack, the original as cause; same type where the type matters
    if (e instanceof java.io.FileNotFoundException) {
      java.io.FileNotFoundException f = new java.io.FileNotFoundException(e.getMessage());
      f.initCause(e);
      return f;
    }
    if (e instanceof java.nio.file.AccessDeniedException a) {
      java.nio.file.AccessDeniedException copy = new java.nio.file.AccessDeniedException(a.getFile(),
          a.getOtherFile(), a.getReason());
      copy.initCause(e);
      return copy;
    }
    return new IOException(e.getMessage(), e);
  }

  private void submit(Range r) {
    try {
      executor.execute(() -> run(r));
    } catch (RejectedExecutionException e) {
      fail(new IOException("the Slipstream client was closed during the listing of " + where(), e));
    }
  }

  private void fail(IOException e) {
    synchronized (lock) {
      if (failure == null) {
        failure = e;
      }
      lock.notifyAll();
    }
  }

  /** Lists one page of {@code r}, queues what the plan keeps, and goes on if the queue has room. */
  private void run(Range r) {
    try {
      synchronized (lock) {
        if (closed || failure != null) {
          r.running = false;
          return;
        }
      }
      ObjectStore.ListRequest req = new ObjectStore.ListRequest(bucket, plan.prefix(), r.startAfter, null, pageKeys,
          r.token);
      ObjectStore.ListPage listed = list(req);
      List<ListEntry> kept = new ArrayList<>(listed.objects().size());
      boolean end = !listed.truncated();
      List<String> keys = new ArrayList<>(listed.objects().size());
      for (ListEntry e : listed.objects()) {
        String key = e.key();
        keys.add(key);
        if ((r.upper != null && KeyOrder.compare(key, r.upper) > 0) || plan.pastEnd(key)) {
          end = true;
          break;
        }
        if (plan.accepts(key)) {
          kept.add(e);
        }
      }
      List<Range> started = List.of();
      if (r.index == 0 && r.token == null && !end && parallelism > 1) {
        started = split(r, keys);
        for (Range s : started) {
          // range 0 may have listed past the first boundary already: drop what belongs to range 1
          if (s.index == 1) {
            kept.removeIf(e -> KeyOrder.compare(e.key(), r.upper) > 0);
          }
        }
      }
      boolean again;
      synchronized (lock) {
        r.token = listed.nextContinuationToken();
        r.done = end;
        if (!kept.isEmpty()) {
          r.pages.add(kept);
        }
        again = !r.done && !closed && failure == null && r.pages.size() < READ_AHEAD;
        r.running = again;
        for (Range s : started) {
          s.running = true;
          ranges.add(s);
        }
        lock.notifyAll();
      }
      for (Range s : started) {
        submit(s);
      }
      if (again) {
        submit(r);
      }
    } catch (IOException e) {
      fail(e);
    } catch (RuntimeException | Error e) {
      fail(new IOException("listing " + where() + " failed: " + e, e));
    }
  }

  /** After range 0's first full page: bounds range 0 and makes the other ranges. */
  private List<Range> split(Range first, List<String> firstPageKeys) throws IOException {
    List<String> points = plan.splitPoints(firstPageKeys, parallelism, (prefix, after) -> {
      ObjectStore.ListPage p = list(new ObjectStore.ListRequest(bucket, prefix, after, "/", pageKeys, null));
      List<String> children = new ArrayList<>(p.commonPrefixes());
      p.objects().forEach(o -> children.add(o.key()));
      return children;
    });
    if (points.isEmpty()) {
      return List.of();
    }
    List<Range> out = new ArrayList<>();
    first.upper = points.get(0);
    for (int i = 0; i < points.size(); i++) {
      out.add(new Range(i + 1, points.get(i), i + 1 < points.size() ? points.get(i + 1) : null));
    }
    return out;
  }

  /** One request, retried on transient failures. */
  private ObjectStore.ListPage list(ObjectStore.ListRequest req) throws IOException {
    return retrier.run(() -> "listing " + where(), stats, stop, () -> {
      stats.increment(Counter.LIST_REQUESTS);
      long t0 = System.nanoTime();
      ObjectStore.ListPage page = store.list(req);
      stats.record(dev.slipstream.Latency.LIST, System.nanoTime() - t0);
      return page;
    });
  }

  /**
   * What stops a listing's retries: {@link #close()}, seen after a transient failure (a permanent one
   * is the listing's failure, closed or not). The backoff wait is a plain sleep that an interrupt ends.
   */
  private final Retrier.Stop stop = new Retrier.Stop() {
    @Override
    public IOException stopped(IOException failure) {
      if (failure instanceof TransientStoreException) {
        synchronized (lock) {
          if (closed) {
            return new IOException("the listing of " + where() + " is closed", failure);
          }
        }
      }
      return null;
    }

    @Override
    public void sleep(long millis, TransientStoreException retrying) throws IOException {
      try {
        Thread.sleep(millis);
      } catch (InterruptedException ie) {
        Thread.currentThread().interrupt();
        throw new InterruptedIOException("interrupted while listing " + where());
      }
    }
  };

  /** One key range: start-after (exclusive) to upper (inclusive; null: to the end of the plan). */
  private static final class Range {
    final int index;
    final String startAfter;
    volatile String upper;
    final ArrayDeque<List<ListEntry>> pages = new ArrayDeque<>();
    String token;
    boolean done;
    boolean running;

    Range(int index, String startAfter, String upper) {
      this.index = index;
      this.startAfter = startAfter;
      this.upper = upper;
    }
  }
}
