/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.fetch;

import dev.slipstream.Counter;
import dev.slipstream.Latency;
import dev.slipstream.RetryCause;
import dev.slipstream.SlipstreamConfig;
import dev.slipstream.internal.block.Destination;
import dev.slipstream.internal.store.Backoff;
import dev.slipstream.internal.store.ObjectStore;
import dev.slipstream.internal.store.Retrier;
import dev.slipstream.internal.store.TransientStoreException;
import java.io.IOException;
import java.io.InputStream;

/**
 * The retry layer: reads one byte range into a buffer, whatever the network does.
 *
 * <p>Transient failures (see {@link RetryCause}) are retried with capped exponential backoff and full
 * jitter, up to {@code retry.max} times, by the client's {@link Retrier}; this class says what one
 * attempt is, and what stops a read. A retry asks only for the bytes not yet received, so a reset
 * at 7 MiB of an 8 MiB block costs 1 MiB, not 8. Permanent failures (404, 403, 412, a response that
 * does not match the request) surface at once with their own type. Every response is checked against
 * its request and the version pinned at open before a byte of it is used ({@link ResponseCheck}):
 * never bytes of two versions in one stream, never bytes of another range.
 */
public final class RangeReader {
  private static final int READ_CHUNK = 1 << 20;

  private final ObjectStore store;
  private final Retrier retrier;
  private final StallWatchdog watchdog;
  private final Hedging hedging;
  /** The largest object whose 200 to a ranged GET is read through to the range: one block. */
  private final long readThroughMax;
  /** What each GET asks of the version it reads ({@code change.detection}, {@code change.detection.source}). */
  private final dev.slipstream.ChangeDetection detection;
  private final dev.slipstream.ChangeSource source;

  public RangeReader(ObjectStore store, SlipstreamConfig config) {
    this.store = store;
    this.watchdog = new StallWatchdog(config.stallTimeout().toMillis());
    this.retrier = new Retrier(Backoff.of(config));
    this.hedging = new Hedging(config.endpoint().map(Object::toString).orElse("aws " + config.region().orElse("")),
        config.hedgeDelayMin(), config.hedgeBudget());
    this.readThroughMax = config.blockSize();
    this.detection = config.changeDetection();
    this.source = config.changeSource();
  }

  private volatile boolean closed;

  /** The client is closing: no new request, no retry; stops the stall watchdog's and hedging's threads. */
  public void close() {
    closed = true;
    watchdog.shutdown();
    hedging.close();
  }

  private IOException clientClosed(ObjectHandle h, Throwable cause) {
    return new IOException("the Slipstream client is closed: cannot read " + h.location(), cause);
  }

  /**
   * Reads bytes {@code [start, end)} of the object into {@code dst[off...]}, on a fetch thread (never a
   * caller's: an S3 client interrupted mid-request drains the body before it gives up). {@code token}
   * stops it from another thread.
   */
  public void read(ObjectHandle h, long start, long end, byte[] dst, int off, CancelToken token)
      throws IOException {
    read(h, start, end, Destination.of(dst, off), token);
  }

  /**
   * Reads bytes {@code [start, end)} of the object into {@code dst}, which may be several buffers end to
   * end ({@link Destination#pieces}): one GET fills them all, and a retry resumes in the buffer where the
   * failed attempt stopped. On a fetch thread, as {@link #read(ObjectHandle, long, long, byte[], int,
   * CancelToken)}.
   */
  public void read(ObjectHandle h, long start, long end, Destination dst, CancelToken token) throws IOException {
    final long total = end - start;
    final long[] received = {0}; // how far the attempts got: a retry asks only for the rest
    final int[] attempts = {0};
    retrier.run(() -> "on " + h.location() + " bytes " + (start + received[0]) + "-" + (end - 1), h.stats(),
        stop(h, token), () -> {
          try {
            received[0] += attempt(h, start + received[0], end, dst.from(received[0]), token, ++attempts[0]);
          } catch (PartialProgress e) {
            received[0] += e.bytes;
            throw e;
          }
          if (received[0] != total) {
            throw new IllegalStateException("read " + received[0] + " of " + total + " bytes");
          }
          return null;
        });
  }

  /**
   * What stops a read between attempts: its token, cancelled (its closed error), or this client, closed
   * (the closed-client error). An interrupt during the backoff wait ends the read with an
   * {@link java.io.InterruptedIOException} naming the location.
   */
  private Retrier.Stop stop(ObjectHandle h, CancelToken token) {
    return new Retrier.Stop() {
      @Override
      public void check() throws IOException {
        token.check();
        if (closed) {
          throw clientClosed(h, null);
        }
      }

      @Override
      public IOException stopped(IOException failure) {
        if (token.isCancelled()) {
          return token.closedError();
        }
        return closed ? clientClosed(h, failure) : null;
      }

      @Override
      public void sleep(long millis, TransientStoreException retrying) throws IOException {
        try {
          token.sleep(millis);
        } catch (java.io.InterruptedIOException e2) {
          if (closed) {
            throw clientClosed(h, retrying);
          }
          java.io.InterruptedIOException named = new java.io.InterruptedIOException("interrupted while reading "
              + h.location() + " (waiting to retry: " + retrying.getMessage() + ")");
          named.initCause(e2);
          throw named;
        }
      }
    };
  }

  /**
   * The first GET of an object opened with no length, in place of a HEAD ({@link FirstGet}): its first
   * {@code max} bytes, its length and version; null where the response cannot state the length. {@code h}
   * names the stream; its length is not known yet.
   */
  public FirstGet.Got first(ObjectHandle h, int max, CancelToken token) throws IOException {
    int[] attempts = {0};
    return retrier.run(() -> "on " + h.location() + " bytes 0-" + (max - 1), h.stats(), stop(h, token),
        () -> FirstGet.attempt(store, hedging, watchdog, h, max, token, ++attempts[0]));
  }

  /** The retry rules of this client's requests: HEADs go through them too. */
  Retrier retrier() {
    return retrier;
  }

  /**
   * One GET; returns bytes received. On a transient failure mid-body, the progress rides the exception.
   * Written to the request log when it ends, well or not.
   */
  private long attempt(ObjectHandle h, long start, long end, Destination dst, CancelToken token, int attempt)
      throws IOException {
    long t0 = System.nanoTime();
    long[] firstByte = {-1};
    long[] got = {0};
    Throwable failure = null;
    try {
      return attempt(h, start, end, dst, token, t0, firstByte, got);
    } catch (IOException | RuntimeException | Error e) {
      failure = e;
      if (e instanceof dev.slipstream.ObjectChangedException || e instanceof java.io.FileNotFoundException
          || e instanceof java.nio.file.AccessDeniedException) {
        h.refused();
      }
      throw e;
    } finally {
      if (RequestLog.on()) {
        RequestLog.get(h, start, end, got[0], firstByte[0], System.nanoTime() - t0, token.purpose(), attempt, failure);
      }
    }
  }

  private long attempt(ObjectHandle h, long start, long end, Destination dst, CancelToken token, long t0,
      long[] firstByte, long[] received) throws IOException {
    h.stats().increment(Counter.GET_REQUESTS);
    long sentAt = h.beforeRequest();
    ObjectStore.Body body;
    try {
      body = hedging.get(() -> store.get(h.location(), start, end, h.asked(detection, source)), token,
          h.stats());
    } catch (java.io.EOFException e) {
      // Every range asked for lies inside the length this stream was opened with: a 416 means that
      // length is wrong, which is no end of data the caller should ever mistake for a clean EOF.
      throw h.shorterThanLength(start, e);
    }
    firstByte[0] = System.nanoTime() - t0;
    h.stats().record(Latency.GET_FIRST_BYTE, firstByte[0]);
    token.attach(body);
    long got = 0;
    boolean reuse = false;
    StallWatchdog.Watch watch = watchdog.watch(body);
    try {
      // Not a byte is used before the response proved to be the range asked for, of this version.
      ResponseCheck.Around around = ResponseCheck.check(h, start, end, body, readThroughMax);
      // A response with this client's credentials, and of this version (checked just now, not trusted
      // to If-Match, which some servers ignore): cached bytes of this version may be served.
      h.answered(sentAt);
      long want = end - start;
      InputStream in = body.stream();
      if (around.before() > 0) {
        skipBytes(h, in, around.before(), watch, start, end);
      }
      while (got < want) {
        int n;
        try {
          int max = (int) Math.min(Math.min(want - got, READ_CHUNK), dst.room(got));
          n = in.read(dst.array(got), dst.offset(got), max);
        } catch (IOException | RuntimeException e) {
          // The SDK reports some failures of a body being read (an abort, among others) unchecked.
          RetryCause cause = watch.stalled() ? RetryCause.STALL
              : e instanceof IOException io ? BodyFailures.classify(io) : RetryCause.OTHER;
          throw new PartialProgress(cause, got, "reading " + h.location() + " bytes " + start + "-" + (end - 1)
              + (watch.stalled() ? ": no bytes for the stall timeout" : ": " + e), e);
        }
        watch.progress();
        if (n < 0) {
          if (watch.stalled()) {
            throw new PartialProgress(RetryCause.STALL, got, "reading " + h.location() + ": no bytes for the stall"
                + " timeout", null);
          }
          throw new PartialProgress(RetryCause.TRUNCATED, got, "body of " + h.location() + " bytes " + start + "-"
              + (end - 1) + " ended after " + got + " of " + want + " bytes", null);
        }
        got += n;
        received[0] = got;
        h.stats().add(Counter.BYTES_FETCHED, n);
      }
      if (around.after() > 0) {
        // A whole object read for a range that ends before it does (a first part, a range from byte 0):
        // the rest is dropped with the connection (aborted below), never read, never taken for a body
        // too long for its range, and never drained to keep the connection.
        h.stats().record(Latency.GET, System.nanoTime() - t0);
        return got;
      }
      if (body.contentLength() < 0 && in.read() >= 0) {
        // A chunked body states no length up front: it must end where the range (or the object) does.
        throw new IOException("GET " + h.location() + " bytes " + start + "-" + (end - 1)
            + ": the body goes on past the " + want + " bytes of the range; its bytes are not used");
      }
      reuse = true;
      h.stats().record(Latency.GET, System.nanoTime() - t0);
      return got;
    } finally {
      watch.end(token, reuse);
    }
  }

  /** Reads and drops the {@code n} bytes of a whole-object body that come before the range. */
  private void skipBytes(ObjectHandle h, InputStream in, long n, StallWatchdog.Watch watch, long start, long end)
      throws IOException {
    byte[] scratch = new byte[(int) Math.min(n, 64 * 1024)];
    long left = n;
    while (left > 0) {
      int r;
      try {
        r = in.read(scratch, 0, (int) Math.min(left, scratch.length));
      } catch (IOException | RuntimeException e) {
        throw new TransientStoreException(watch.stalled() ? RetryCause.STALL : RetryCause.OTHER, "reading "
            + h.location() + " up to byte " + start + " of a whole-object response: " + e, e);
      }
      watch.progress();
      if (r < 0) {
        throw new TransientStoreException(RetryCause.TRUNCATED, "body of " + h.location()
            + " (the whole object, for bytes " + start + "-" + (end - 1) + ") ended after " + (n - left) + " bytes",
            null);
      }
      left -= r;
    }
  }

  /** A transient failure in the middle of a body, with the bytes received before it. */
  static final class PartialProgress extends TransientStoreException {
    final long bytes;

    PartialProgress(RetryCause cause, long bytes, String message, Throwable t) {
      super(cause, message, t);
      this.bytes = bytes;
    }
  }
}
