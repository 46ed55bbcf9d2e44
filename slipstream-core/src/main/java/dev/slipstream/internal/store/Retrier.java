/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.store;

import dev.slipstream.ReadStatistics;
import java.io.IOException;
import java.util.function.Supplier;

/**
 * The one retry loop of the client's requests, GETs, HEADs and LISTs alike. It owns how many attempts
 * an operation gets ({@code retry.max} retries after the first), which failures are retried (a
 * {@link TransientStoreException}; any other failure surfaces at once), the wait before each retry
 * ({@link Backoff}, slept through the caller's {@link Stop} so that a cancel can cut it short), the end
 * of an operation stopped meanwhile, the retry counters by {@link dev.slipstream.RetryCause}, and the
 * "giving up ... after N attempts" error naming the operation. The caller says what one attempt does.
 */
public final class Retrier {
  private final Backoff backoff;

  public Retrier(Backoff backoff) {
    this.backoff = backoff;
  }

  public Backoff backoff() {
    return backoff;
  }

  /** One attempt of an operation: one request. */
  @FunctionalInterface
  public interface Attempt<T> {
    T run() throws IOException;
  }

  /** What may stop an operation between its attempts (a cancelled read, a closed client), and how it waits. */
  public interface Stop {
    /** Before each attempt: throws if no attempt may start any more. */
    default void check() throws IOException {}

    /**
     * After an attempt failed with {@code failure}: the error that ends the operation in its place,
     * because the operation was stopped meanwhile; or null to handle {@code failure} as it is.
     */
    default IOException stopped(IOException failure) {
      return null;
    }

    /**
     * Waits {@code millis} before the next attempt, or less if the operation is stopped meanwhile (then it
     * throws). {@code retrying} is the failure about to be retried.
     */
    void sleep(long millis, TransientStoreException retrying) throws IOException;
  }

  /**
   * Runs {@code attempt} until it succeeds, fails permanently, is stopped, or has failed transiently
   * {@code retry.max + 1} times; each retry counts in {@code stats} by its cause.
   *
   * @param what the operation and where, as the giving-up error names it after "giving up ": e.g.
   *     {@code "on HEAD s3://b/k"}; asked for only then
   */
  public <T> T run(Supplier<String> what, ReadStatistics stats, Stop stop, Attempt<T> attempt) throws IOException {
    int retries = 0;
    while (true) {
      stop.check();
      try {
        return attempt.run();
      } catch (TransientStoreException e) {
        IOException stopped = stop.stopped(e);
        if (stopped != null) {
          throw stopped;
        }
        if (retries >= backoff.retryMax()) {
          throw new IOException("giving up " + what.get() + " after " + (retries + 1) + " attempts: "
              + e.getMessage(), e);
        }
        retries++;
        stats.retry(e.retryCause());
        stop.sleep(backoff.millis(retries), e);
      } catch (IOException e) {
        IOException stopped = stop.stopped(e);
        throw stopped != null ? stopped : e;
      }
    }
  }
}
