/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.fetch;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import dev.slipstream.Counter;
import dev.slipstream.ReadStatistics;
import dev.slipstream.RecentLatencies;
import dev.slipstream.internal.store.ObjectStore;
import dev.slipstream.internal.util.DaemonThreads;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * Hedged requests against the store's tail latency ("The Tail at Scale", Dean and Barroso, 2013): a GET
 * whose response has not begun after a delay learnt from recent ones gets a second, identical GET; the first
 * response to arrive is read, the other is aborted as it arrives. Only the wait for the response head is
 * hedged: a body that stalls later is the stall timeout's and the retries' business.
 *
 * <p>The delay is twice the 95th percentile of the last {@value #WINDOW} first-byte latencies of GETs to
 * the endpoint (from every client of the JVM), and at least {@code hedge.delay.min}. Until
 * {@value #MIN_SAMPLES} are known it is {@link #INITIAL_DELAY} (or {@code hedge.delay.min} if longer): with
 * nothing learnt, only a wait far beyond any normal first byte is hedged, and a JVM's first GETs are not
 * left to the tail. Extra GETs stay within {@code hedge.budget} of the client's GETs, or one while that
 * share is less than one. A GET that cannot be hedged (the budget spent) is made on the calling fetch
 * thread; one that can be is made on a request thread of this client while the fetch thread waits, so
 * that either answer can be taken. No thread here is ever
 * interrupted: an interrupted S3 client drains the body it gives up.
 */
final class Hedging {
  static final int WINDOW = 512;
  static final int MIN_SAMPLES = 32;
  /** The delay before {@value #MIN_SAMPLES} latencies are known: 50 times s3-like's median first byte. */
  static final Duration INITIAL_DELAY = Duration.ofSeconds(1);
  private static final int RECOMPUTE_EVERY = 16;

  /**
   * The windows of the endpoints this JVM talks to: at most this many (a window is about 4.5 KiB, so
   * about 300 KiB in all), the least useful dropped; and one no client has created for {@link #IDLE}
   * goes, as its latencies are old by then. A client keeps its own window while it lives.
   */
  private static final int ENDPOINTS = 64;
  static final Duration IDLE = Duration.ofHours(1);
  private static final Cache<String, Window> WINDOWS = Caffeine.newBuilder()
      .maximumSize(ENDPOINTS)
      .expireAfterAccess(IDLE)
      .executor(Runnable::run)
      .build();

  private final double budget;
  private final Window window;
  private final ThreadPoolExecutor requests;
  private final AtomicLong gets = new AtomicLong();
  private final AtomicLong hedges = new AtomicLong();

  /**
   * @param endpoint where the GETs go: the first-byte latencies are learnt per endpoint and shared by
   *     every client of the JVM, so that a new client (a new Hadoop FileSystem, a task's) hedges from its
   *     first GET on a known endpoint
   * @param budget most hedges per GET, e.g. 0.05; 0 turns hedging off
   */
  Hedging(String endpoint, Duration floor, double budget) {
    this.budget = budget;
    this.window = WINDOWS.get(endpoint + " " + floor.toNanos(), k -> new Window(floor.toNanos()));
    if (budget <= 0) {
      this.requests = null;
      return;
    }
    this.requests = new ThreadPoolExecutor(0, Integer.MAX_VALUE, 1, TimeUnit.SECONDS,
        new java.util.concurrent.SynchronousQueue<>(), DaemonThreads.named("slipstream-request-"));
  }

  /**
   * Makes {@code request}, a GET up to its response head, hedged if its answer is late and the budget
   * allows; counts the extra GET in {@code stats}. {@code token} cancelled ends the wait with its closed
   * error, and a response that arrives after that is aborted.
   */
  ObjectStore.Body get(Callable<ObjectStore.Body> request, CancelToken token, ReadStatistics stats)
      throws IOException {
    long n = gets.incrementAndGet();
    long delay = window.delayNanos;
    long t0 = System.nanoTime();
    if (requests == null || hedges.get() + 1 > Math.max(1, budget * n)) {
      ObjectStore.Body body = call(request);
      window.sample(System.nanoTime() - t0);
      return body;
    }
    Race race = new Race(request);
    race.start(false);
    Race.Winner won = race.await(delay, token);
    if (won == null) {
      if (hedges.incrementAndGet() <= Math.max(1, budget * n) && race.start(true)) {
        stats.increment(Counter.GET_REQUESTS);
        stats.increment(Counter.HEDGED_REQUESTS);
      } else {
        hedges.decrementAndGet(); // over the budget, or answered meanwhile
      }
      won = race.await(Long.MAX_VALUE, token);
    }
    if (won.hedge()) {
      stats.increment(Counter.HEDGE_WINS);
    }
    window.sample(System.nanoTime() - t0);
    return won.body();
  }

  private static ObjectStore.Body call(Callable<ObjectStore.Body> request) throws IOException {
    try {
      return request.call();
    } catch (IOException | RuntimeException e) {
      throw e;
    } catch (Exception e) {
      throw new IOException(e);
    }
  }

  /** The last {@value #WINDOW} first-byte latencies of one endpoint, and the delay they give. */
  private static final class Window {
    private final long floorNanos;
    private final RecentLatencies recent = new RecentLatencies(WINDOW);
    private volatile long delayNanos;

    Window(long floorNanos) {
      this.floorNanos = floorNanos;
      this.delayNanos = Math.max(floorNanos, INITIAL_DELAY.toNanos());
    }

    /** Records a latency; every {@value #RECOMPUTE_EVERY} samples, the delay is computed again. */
    void sample(long nanos) {
      long n = recent.record(nanos);
      if (n >= MIN_SAMPLES && n % RECOMPUTE_EVERY == 0) {
        delayNanos = Math.max(floorNanos, 2 * recent.quantile(0.95));
      }
    }
  }

  /** Stops the request threads once their requests end; never interrupts one. */
  void close() {
    if (requests != null) {
      requests.shutdown();
    }
  }

  /** One GET and, if it is late, its hedge: the first response wins, a later one is aborted. */
  private final class Race {
    record Winner(ObjectStore.Body body, boolean hedge) {}

    private final Callable<ObjectStore.Body> request;
    private final CompletableFuture<Winner> first = new CompletableFuture<>();
    private int started; // guarded by this
    private int failed; // guarded by this
    private Throwable firstFailure; // guarded by this
    /** The thread in {@link #await}, woken when the race is decided; null while none waits. */
    private volatile Thread waiter;

    Race(Callable<ObjectStore.Body> request) {
      this.request = request;
    }

    /** Starts the GET (or its hedge); false if the race is already decided, or the client closing. */
    boolean start(boolean hedge) {
      synchronized (this) {
        if (first.isDone()) {
          return false;
        }
        started++;
      }
      try {
        requests.execute(() -> run(hedge));
      } catch (java.util.concurrent.RejectedExecutionException e) {
        failed(new IOException("the Slipstream client is closed", e));
        return false;
      }
      return true;
    }

    private void run(boolean hedge) {
      ObjectStore.Body body;
      try {
        body = request.call();
      } catch (Throwable t) {
        failed(t);
        return;
      }
      if (first.complete(new Winner(body, hedge))) {
        LockSupport.unpark(waiter);
      } else {
        body.abort(); // the other one answered first, or the wait was given up
      }
    }

    private synchronized void failed(Throwable t) {
      if (firstFailure == null) {
        firstFailure = t;
      }
      if (++failed == started && first.completeExceptionally(firstFailure)) {
        LockSupport.unpark(waiter);
      }
    }

    /**
     * The waiter leaves: a response that arrives later is aborted by its request thread, and one that
     * arrived between the last look and now (the future already complete) is aborted here, so that no
     * response is left open with no one to read or abort it.
     */
    private void giveUp() {
      if (!first.cancel(false) && !first.isCompletedExceptionally()) {
        first.join().body().abort();
      }
    }

    /**
     * The winner, or null if none within {@code nanos}; the GET's own failure if every request failed.
     * The waiting thread parks until the race is decided, the token is cancelled (both unpark it), it is
     * interrupted or the time is up: no timed {@code get} whose timeout would build an exception per look.
     */
    Winner await(long nanos, CancelToken token) throws IOException {
      long deadline = nanos == Long.MAX_VALUE ? Long.MAX_VALUE : System.nanoTime() + nanos;
      Thread me = Thread.currentThread();
      waiter = me;
      token.wakeOnCancel(me);
      try {
        while (true) {
          if (token.isCancelled()) {
            giveUp();
            throw token.closedError();
          }
          if (first.isDone()) {
            return decided(token);
          }
          if (Thread.interrupted()) {
            giveUp();
            me.interrupt();
            throw new InterruptedIOException("interrupted while waiting for a GET's response");
          }
          if (deadline == Long.MAX_VALUE) {
            LockSupport.park(this);
          } else {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
              return null;
            }
            LockSupport.parkNanos(this, left);
          }
        }
      } finally {
        token.wakeOnCancel(null);
        waiter = null;
      }
    }

    /** The outcome of a race that is over: {@code get} returns at once, without looking at interrupts. */
    private Winner decided(CancelToken token) throws IOException {
      try {
        return first.get();
      } catch (CancellationException e) {
        throw token.closedError();
      } catch (ExecutionException e) {
        throw Failures.cause(e, "a GET");
      } catch (InterruptedException e) {
        throw new AssertionError("a completed future never waits", e);
      }
    }
  }
}
