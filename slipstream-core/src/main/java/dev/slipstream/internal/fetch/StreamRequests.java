/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.fetch;

import dev.slipstream.Counter;
import dev.slipstream.Latency;
import dev.slipstream.ReadStatistics;
import dev.slipstream.S3Location;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;

/**
 * Whether one stream is closed, and every request of it that has not ended (block fetches, direct and
 * asynchronous reads), each by its cancel token: {@code close()} cancels them all and waits, bounded,
 * until they have ended, so that no request outlives its stream (docs/architecture.md, rule 6). A caller
 * who waits for a read of the stream waits here too ({@link #await}; the stream's read-through of ranges
 * submits the requests, this class only waits): an interrupt cancels the requests made for that caller, never another
 * thread's (rule 7), nor a fetch other reads share ({@link #awaitShared}); the caller's array is handed back
 * only once they stopped writing into it.
 */
public final class StreamRequests {
  private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(StreamRequests.class);

  private final InFlight inFlight = new InFlight();
  private final AtomicBoolean closed = new AtomicBoolean();
  private final S3Location location;
  private final ReadStatistics stats;
  private final long closeWaitMillis;

  /** @param closeWaitMillis how long close (or an interrupted caller) waits for requests to end */
  public StreamRequests(ObjectHandle h, long closeWaitMillis) {
    this.location = h.location();
    this.stats = h.stats();
    this.closeWaitMillis = closeWaitMillis;
  }

  /** A new request's token, failing with the stream's closed error; cancelled at once if the stream is closed. */
  public CancelToken start(Purpose why) {
    return start(this::closedError, why);
  }

  /** A new request's token, failing with {@code error} once cancelled; cancelled at once if the stream is closed. */
  public CancelToken start(Supplier<IOException> error, Purpose why) {
    CancelToken token = new CancelToken(error, why);
    inFlight.add(token);
    if (closed.get()) {
      token.cancel(); // close() may have swept the set before this token was in it
    }
    return token;
  }

  /** The request of {@code token} has ended. */
  public void end(CancelToken token) {
    inFlight.remove(token);
  }

  public long closeWaitMillis() {
    return closeWaitMillis;
  }

  public boolean isClosed() {
    return closed.get();
  }

  /** Marks the stream closed; false if it already was. */
  public boolean close() {
    return closed.compareAndSet(false, true);
  }

  /** How many requests have not ended yet. */
  public int inFlight() {
    return inFlight.size();
  }

  /** Cancels the requests not yet ended and waits, bounded, until they have. */
  public void awaitEnd() {
    if (!inFlight.cancelAndAwait(closeWaitMillis) && !Thread.currentThread().isInterrupted()) {
      LOG.warn("{}: {} request(s) still ending {} ms after they were cancelled", location, inFlight.size(),
          closeWaitMillis);
    }
  }

  // ---- waiting for reads ---------------------------------------------------------------------

  /**
   * Waits on the caller's thread for {@code shared}, a fetch other reads may wait for too (a column chunk
   * fetched by prediction) and that writes into no array of the caller's: an interrupt ends the wait and
   * cancels nothing.
   */
  public void awaitShared(CompletableFuture<Void> shared) throws IOException {
    await(shared, null, "");
  }

  /**
   * Waits for {@code done}; if interrupted, runs {@code cancel} (if any: none for a shared fetch, which
   * writes into no array of the caller's), gives the work the stream's close wait to stop writing into the
   * caller's array, and ends with an {@link InterruptedIOException} naming the location and {@code what},
   * the interrupt status kept.
   */
  public void await(CompletableFuture<Void> done, Runnable cancel, String what) throws IOException {
    long t0 = System.nanoTime();
    try {
      done.get();
    } catch (InterruptedException e) {
      if (cancel != null) {
        cancel.run();
        try {
          done.get(closeWaitMillis, TimeUnit.MILLISECONDS);
        } catch (Exception ended) {
          // cancelled, failed or still ending: the interrupt is what the caller hears of
        }
      }
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted while reading " + location + what
          + (cancel != null ? ": the request was cancelled" : ""));
    } catch (ExecutionException e) {
      throw Failures.cause(e, location.toString()); // as the caller would have had it on its own thread
    } finally {
      long waited = System.nanoTime() - t0;
      stats.add(Counter.WAIT_NANOS, waited);
      stats.record(Latency.READ_WAIT, waited);
    }
  }

  public void checkOpen() throws IOException {
    if (closed.get()) {
      throw closedError();
    }
  }

  public IOException closedError() {
    return new IOException("stream closed: " + location);
  }
}
