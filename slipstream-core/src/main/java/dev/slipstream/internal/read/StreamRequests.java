/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.read;

import dev.slipstream.S3Location;
import dev.slipstream.internal.fetch.CancelToken;
import dev.slipstream.internal.fetch.Purpose;
import java.io.IOException;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;

/**
 * Whether one stream is closed, and every request of it that has not ended (block fetches, direct and
 * asynchronous reads), each by its cancel token: {@code close()} cancels them all and waits, bounded,
 * until they have ended, so that no request outlives its stream (docs/architecture.md, rule 6).
 */
final class StreamRequests {
  private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(StreamRequests.class);

  private final Set<CancelToken> inFlight = ConcurrentHashMap.newKeySet();
  private final AtomicBoolean closed = new AtomicBoolean();
  private final S3Location location;
  private final long closeWaitMillis;

  StreamRequests(S3Location location, long closeWaitMillis) {
    this.location = location;
    this.closeWaitMillis = closeWaitMillis;
  }

  /** A new request's token, failing with the stream's closed error; cancelled at once if the stream is closed. */
  CancelToken start(Purpose why) {
    return start(this::closedError, why);
  }

  /** A new request's token, failing with {@code error} once cancelled; cancelled at once if the stream is closed. */
  CancelToken start(Supplier<IOException> error, Purpose why) {
    CancelToken token = new CancelToken(error, why);
    inFlight.add(token);
    if (closed.get()) {
      token.cancel(); // close() may have swept the set before this token was in it
    }
    return token;
  }

  /** The request of {@code token} has ended. */
  void end(CancelToken token) {
    inFlight.remove(token);
  }

  /** Cancels every request not yet ended (an interrupted caller, whose buffer the parts write into). */
  void cancelAll() {
    for (CancelToken t : inFlight) {
      t.cancel();
    }
  }

  long closeWaitMillis() {
    return closeWaitMillis;
  }

  boolean isClosed() {
    return closed.get();
  }

  /** Marks the stream closed; false if it already was. */
  boolean close() {
    return closed.compareAndSet(false, true);
  }

  /** Cancels the requests not yet ended and waits, bounded, until they have. */
  void awaitEnd() {
    long deadline = System.nanoTime() + closeWaitMillis * 1_000_000L;
    while (!inFlight.isEmpty()) {
      cancelAll();
      if (System.nanoTime() > deadline) {
        LOG.warn("{}: {} request(s) still ending {} ms after they were cancelled", location, inFlight.size(),
            closeWaitMillis);
        return;
      }
      try {
        Thread.sleep(1);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
  }

  void checkOpen() throws IOException {
    if (closed.get()) {
      throw closedError();
    }
  }

  IOException closedError() {
    return new IOException("stream closed: " + location);
  }
}
