/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.read;

import dev.slipstream.Counter;
import dev.slipstream.ObjectRef;
import dev.slipstream.ReadPolicy;
import dev.slipstream.ReadStatistics;
import dev.slipstream.S3Location;
import dev.slipstream.internal.fetch.RecentAnswers;
import dev.slipstream.internal.learn.GuessOutcomes;
import dev.slipstream.internal.util.DaemonThreads;
import dev.slipstream.internal.util.ETag;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.lang.ref.WeakReference;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.BiFunction;

/**
 * Open-ahead for readers that start at the footer (Parquet, ORC): the next files a task opens are opened
 * here before it asks, each as the stream it will read, and given the first read such a reader makes
 * ({@link ObjectReader#readTailAhead}): the tail with the footer. A later open of the same version takes
 * that stream as it is, so that a task finds the next file's footer in memory while it decodes the current
 * one; and a stream whose reader is done with the footer is kept for the open of the same file that follows
 * ({@link #keep}: Spark reads a Parquet file's footer through one stream and its data through another), with
 * the footer and whatever else it holds. Bytes are fetched ahead, no connection is held open.
 *
 * <p><b>Lifecycle of a prepared stream.</b> {@link #prepare} opens a stream for each hinted object (never
 * one opened in the last {@link #RECENT_NANOS}, which another task of the same scan is reading or has read) and runs
 * its first reads on one of this class's {@link #THREADS} threads. The stream then ends in exactly one of
 * two ways: <b>used</b>, handed by {@link #take} to the open of the same object, length and version, with
 * the same read policy, no version id and no split narrower than the object (the open waits for the tail
 * if it is still coming); or <b>wasted</b>, closed (its requests cancelled, its memory released) when newer
 * hints push it out of the {@code max} most recent, when unopened for {@link OpenAhead#MAX_IDLE_NANOS},
 * when opened as another version or in another way, when its first reads failed, when a write through the
 * client touched it, or when the client closes.
 *
 * <p><b>Never wrong bytes.</b> The stream is opened with the hint's length and ETag, so every GET carries
 * {@code If-Match}, and it is handed over only to an open that names the same ETag; what it holds is what
 * any stream of that version would hold. Its cached bytes pass the same access check as any open's
 * (docs/architecture.md, rule 8).
 *
 * <p><b>It must pay for itself.</b> As {@link OpenAhead}: once more of the last outcomes were wasted than
 * used ({@link GuessOutcomes}), it switches itself off for the client and closes what it holds.
 *
 * <p>Threads: {@link #THREADS} daemons, started with the first hint, stopped by {@link #close}. State: at
 * most {@code max} prepared streams, the memory each holds (a tail; a kept stream, what it held), and the last
 * {@link #RECENT_OPENS} locations opened, and when.
 */
public final class StreamsAhead implements AutoCloseable {
  private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(StreamsAhead.class);
  /** Threads that make the prepared streams' first reads (each waits for a tail's GET). */
  static final int THREADS = 2;
  /** Locations opened lately, at most {@link #RECENT_OPENS}, that are not prepared within {@link #RECENT_NANOS}. */
  static final int RECENT_OPENS = 1024;
  /** How long an open keeps its object from being opened ahead: a scan's other tasks have it. */
  static final long RECENT_NANOS = 10_000_000_000L;

  /** Opens a stream of the object for the read policy, counted as one of the client's streams. */
  private final BiFunction<ObjectRef, ReadPolicy, ObjectReader> opener;
  private final int max;
  private final ReadStatistics stats;
  private final RecentAnswers answers;
  private final long closeWaitMillis;
  /** Prepared streams by object, oldest first. Guarded by {@code this}. */
  private final LinkedHashMap<S3Location, Prepared> prepared = new LinkedHashMap<>();
  /** The last locations opened, oldest first. Guarded by {@code this}. */
  private final LinkedHashMap<S3Location, Long> recentOpens = new LinkedHashMap<>(16, 0.75f, true) {
    @Override
    protected boolean removeEldestEntry(Map.Entry<S3Location, Long> eldest) {
      return size() > RECENT_OPENS;
    }
  };
  private final GuessOutcomes outcomes = new GuessOutcomes();
  /** Per thread, the streams it opened last ({@link #opened}); weakly held. */
  private final ThreadLocal<LastOpened> lastOpened = new ThreadLocal<>();
  private ExecutorService threads;
  private boolean closed;
  private boolean disabled;

  /**
   * @param opener opens the stream of an object for a read policy, as the client's {@code open} would
   * @param max most streams prepared at once ({@code openahead.files}); 0 disables it
   * @param stats where it counts
   * @param answers the client's answers: a stream fetched before a write through the client is not handed over
   * @param closeWaitMillis how long {@link #close} waits for the first reads under way to end
   */
  public StreamsAhead(BiFunction<ObjectRef, ReadPolicy, ObjectReader> opener, int max, ReadStatistics stats,
      RecentAnswers answers, long closeWaitMillis) {
    this.opener = opener;
    this.max = max;
    this.stats = stats;
    this.answers = answers;
    this.closeWaitMillis = closeWaitMillis;
  }

  /**
   * The caller will open {@code next} soon, nearest first, each with {@code policy}, and read each from its
   * end first: up to {@code max} of them are opened now and given their first reads. Objects prepared
   * already (same length and version) are kept; objects without a known ETag, empty ones and those opened
   * lately are left out. The nearest, once its tail is in, follows {@code after} (if not null), the stream
   * the caller reads now ({@link ObjectReader#followedBy}): it fetches the predicted columns that stream's
   * reads touch. The others follow the nearest once the caller opens it and hints again.
   */
  public void prepare(List<ObjectRef> next, ReadPolicy policy, ObjectReader after) {
    if (max == 0 || next.isEmpty()) {
      return;
    }
    List<Prepared> started = new ArrayList<>();
    List<Prepared> kept = new ArrayList<>();
    List<Prepared> dropped = new ArrayList<>();
    synchronized (this) {
      if (closed || disabled) {
        return;
      }
      expire(dropped);
      long now = System.nanoTime();
      for (ObjectRef ref : next.subList(0, Math.min(next.size(), max))) {
        // Only the nearest follows: a wrong guess costs its tail, not its columns too, and the one after it
        // follows the nearest once the caller opens that.
        boolean nearest = ref == next.get(0);
        Long opened = recentOpens.get(ref.location());
        if (ref.length() == 0 || ref.etag() == null || (opened != null && now - opened < RECENT_NANOS)) {
          continue;
        }
        Prepared p = prepared.remove(ref.location());
        if (p != null) {
          if (p.matches(ref.length(), ref.etag(), policy)) {
            prepared.put(ref.location(), p); // kept, now the most recent
            if (nearest) {
              kept.add(p);
            }
            continue;
          }
          dropped.add(p);
        }
        if (!nearest && prepared.size() >= max) {
          // A farther guess pushes out no stream: with many threads reading at once, the oldest is most
          // often another thread's nearest, about to be taken.
          continue;
        }
        while (prepared.size() >= max) {
          dropped.add(prepared.remove(prepared.keySet().iterator().next()));
        }
        p = new Prepared(ref, policy, answers.generation(), System.nanoTime());
        p.after = nearest ? after : null;
        prepared.put(ref.location(), p);
        started.add(p);
      }
      if (!started.isEmpty() && threads == null) {
        threads = Executors.newFixedThreadPool(THREADS, DaemonThreads.named("slipstream-open-ahead-"));
      }
      for (Prepared p : started) {
        p.readsDone = CompletableFuture.runAsync(() -> firstReads(p), threads);
        stats.increment(Counter.OPEN_AHEAD_STREAMS_STARTED);
      }
    }
    drop(dropped);
    for (Prepared p : kept) {
      p.readsDone.thenRun(() -> follow(after, p)); // now, if its tail is in already
    }
  }

  /**
   * The caller is done with {@code r} but will open its object again soon (Spark reads a Parquet file's
   * footer through one stream, then opens the file again for its data): the stream is kept as a prepared
   * one, back at its first byte, and the next open of the same version takes it as {@link #take} says. Closed at once if it cannot be kept (switched off, the
   * client closed, no known ETag).
   */
  public void keep(ObjectReader r) {
    if (max == 0 || r.etag() == null) {
      r.close();
      return;
    }
    // Back at its first byte before any other thread can take it: an open elsewhere may take it at once.
    r.rewind();
    ObjectRef ref = new ObjectRef(r.location(), r.length(), r.etag());
    Prepared p = new Prepared(ref, r.policy(), answers.generation(), System.nanoTime());
    p.reader = r;
    p.readsDone = CompletableFuture.completedFuture(null);
    List<Prepared> dropped = new ArrayList<>();
    synchronized (this) {
      if (closed || disabled) {
        p = null;
      } else {
        expire(dropped);
        Prepared had = prepared.remove(ref.location());
        if (had != null) {
          dropped.add(had);
        }
        while (prepared.size() >= max) {
          dropped.add(prepared.remove(prepared.keySet().iterator().next()));
        }
        stats.increment(Counter.OPEN_AHEAD_STREAMS_STARTED);
        prepared.put(ref.location(), p);
      }
    }
    drop(dropped);
    if (p == null) {
      r.close();
    }
  }

  /** Opens {@code p}'s stream and makes its first reads, on one of this class's threads. */
  private void firstReads(Prepared p) {
    ObjectReader r = opener.apply(p.ref, p.policy);
    synchronized (this) {
      p.reader = r;
      if (p.dropped) {
        r.close();
        return;
      }
    }
    try {
      r.readTailAhead();
    } catch (IOException | RuntimeException e) {
      LOG.debug("open-ahead of {} failed: {}", p.ref.location(), e.toString());
      throw new IllegalStateException(e);
    }
    follow(p.after, p);
    p.after = null;
  }

  /**
   * {@code p}'s stream, its tail in, follows {@code after} (the stream read when it was hinted): it fetches
   * the predicted columns that stream touches. Nothing if either is gone or {@code after} is null.
   */
  private void follow(ObjectReader after, Prepared p) {
    ObjectReader r;
    synchronized (this) {
      r = p.dropped ? null : p.reader;
    }
    if (after != null && r != null) {
      after.followedBy(r);
    }
  }

  /**
   * The prepared stream of {@code location}, if it reads the version the caller opens, as the caller opens
   * it: same length, {@code etag} (non-null) equal to the hint's, the same read policy, no version id, and a
   * split (if any) that ends at or after the object's end. Waits for its first reads if they are under way;
   * null if there is none to hand over (any other prepared stream of {@code location} is closed, never
   * served).
   */
  public ObjectReader take(S3Location location, long length, String etag, ReadPolicy policy, String versionId,
      long splitEnd) throws IOException {
    if (max == 0) {
      return null;
    }
    Prepared p;
    List<Prepared> dropped = new ArrayList<>();
    synchronized (this) {
      recentOpens.put(location, System.nanoTime());
      p = closed ? null : prepared.remove(location);
      expire(dropped);
    }
    drop(dropped);
    if (p == null) {
      return null;
    }
    if (!p.matches(length, etag, policy) || versionId != null || (splitEnd > 0 && splitEnd < length)
        || answers.writtenSince(location, p.sentAt)) {
      drop(List.of(p));
      return null;
    }
    try {
      p.readsDone.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      drop(List.of(p));
      throw new InterruptedIOException("interrupted while the tail of " + location + " was fetched ahead");
    } catch (ExecutionException e) {
      drop(List.of(p)); // the stream's own reads try again, with its retries
      return null;
    }
    stats.increment(Counter.OPEN_AHEAD_STREAMS_USED);
    judge(true);
    return p.reader;
  }

  /**
   * The calling thread opened {@code r} (a new stream, or one prepared here): it is read after the stream of
   * another file this thread opened last ({@link ObjectReader#after}). A stream of the same file as the one
   * opened last (Spark's data stream after its footer's) is read after that one's own previous file.
   */
  public void opened(ObjectReader r) {
    LastOpened last = lastOpened.get();
    ObjectReader previous = last == null ? null : last.stream.get();
    ObjectReader before;
    if (previous == r) {
      return; // a stream kept for a reopen, opened again
    } else if (previous != null && previous.location().equals(r.location())) {
      before = last.ofAnotherFile.get();
      lastOpened.set(new LastOpened(r, before));
    } else {
      before = previous;
      lastOpened.set(new LastOpened(r, previous));
    }
    if (before != null && !before.location().equals(r.location())) {
      r.after(before);
    }
  }

  /** The stream a thread opened last, and the one of another file it opened before that; both weak. */
  private static final class LastOpened {
    final WeakReference<ObjectReader> stream;
    final WeakReference<ObjectReader> ofAnotherFile;

    LastOpened(ObjectReader stream, ObjectReader ofAnotherFile) {
      this.stream = new WeakReference<>(stream);
      this.ofAnotherFile = new WeakReference<>(ofAnotherFile);
    }
  }

  /** Streams prepared now (for tests and diagnostics). */
  public synchronized int preparedCount() {
    return prepared.size();
  }

  /** Whether it switched itself off (for tests and diagnostics). */
  public synchronized boolean disabled() {
    return disabled;
  }

  /** Closes every prepared stream and stops the threads, waiting for them a bounded time. */
  @Override
  public void close() {
    List<Prepared> dropped;
    ExecutorService t;
    synchronized (this) {
      if (closed) {
        return;
      }
      closed = true;
      dropped = new ArrayList<>(prepared.values());
      prepared.clear();
      t = threads;
    }
    dropped.forEach(this::close);
    if (t != null) {
      t.shutdownNow();
      try {
        if (!t.awaitTermination(closeWaitMillis, TimeUnit.MILLISECONDS)) {
          LOG.warn("open-ahead threads still ran {} ms after close", closeWaitMillis);
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /** Moves prepared streams unopened for too long to {@code dropped}. Called holding the lock. */
  private void expire(List<Prepared> dropped) {
    long now = System.nanoTime();
    for (Prepared p : List.copyOf(prepared.values())) {
      if (now - p.createdNanos > OpenAhead.MAX_IDLE_NANOS) {
        prepared.remove(p.ref.location());
        dropped.add(p);
      }
    }
  }

  /** Closes each stream, counted wasted, and judges whether guessing pays. Without the lock. */
  private void drop(List<Prepared> dropped) {
    for (Prepared p : dropped) {
      close(p);
      judge(false);
    }
  }

  /** Closes {@code p}'s stream, or marks it so that its opener closes it; counted wasted. Without the lock. */
  private void close(Prepared p) {
    ObjectReader r;
    synchronized (this) {
      p.dropped = true;
      r = p.reader;
    }
    if (r != null) {
      r.close();
    }
    stats.increment(Counter.OPEN_AHEAD_STREAMS_WASTED);
  }

  /** Records one outcome; switches itself off when they show it does not pay. Without the lock. */
  private void judge(boolean used) {
    List<Prepared> dropped;
    synchronized (this) {
      if (closed || disabled || !outcomes.recordAndJudge(used)) {
        return;
      }
      disabled = true;
      dropped = new ArrayList<>(prepared.values());
      prepared.clear();
      LOG.info("open-ahead of streams switched off for this client: {} of its last {} prepared streams went"
          + " unused", outcomes.count() - outcomes.usedCount(), outcomes.count());
    }
    stats.increment(Counter.OPEN_AHEAD_DISABLED);
    dropped.forEach(this::close);
  }

  /** One prepared stream: its reader once opened, and its first reads. Mutable fields guarded by the owner. */
  private static final class Prepared {
    final ObjectRef ref;
    final ReadPolicy policy;
    /** The client's answer generation when it was hinted: a write through the client since voids it. */
    final long sentAt;
    final long createdNanos;
    CompletableFuture<Void> readsDone;
    ObjectReader reader;
    /** The stream read when this one was hinted, which it follows once its tail is in; null once followed. */
    volatile ObjectReader after;
    boolean dropped;

    Prepared(ObjectRef ref, ReadPolicy policy, long sentAt, long createdNanos) {
      this.ref = ref;
      this.policy = policy;
      this.sentAt = sentAt;
      this.createdNanos = createdNanos;
    }

    boolean matches(long length, String etag, ReadPolicy policy) {
      return ref.length() == length && etag != null && ETag.same(ref.etag(), etag) && this.policy == policy;
    }
  }
}
