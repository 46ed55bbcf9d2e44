/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.fetch;

import dev.slipstream.Counter;
import dev.slipstream.RetryCause;
import dev.slipstream.SlipstreamConfig;
import dev.slipstream.internal.store.Backoff;
import dev.slipstream.internal.store.ObjectStore;
import dev.slipstream.internal.store.TransientStoreException;
import java.io.IOException;
import java.io.InputStream;
import java.net.SocketException;
import java.net.SocketTimeoutException;

/**
 * The retry layer: reads one byte range into a buffer, whatever the network does.
 *
 * <p>Transient failures (see {@link RetryCause}) are retried with capped exponential backoff and full
 * jitter, up to {@code retry.max} times. A retry asks only for the bytes not yet received, so a reset
 * at 7 MiB of an 8 MiB block costs 1 MiB, not 8. Permanent failures (404, 403, 412, a response that
 * does not match the request) surface at once with their own type. Every response is checked against
 * the version pinned at open: never bytes of two versions in one stream.
 */
public final class RangeReader {
  private static final int READ_CHUNK = 1 << 20;

  private final ObjectStore store;
  private final Backoff backoff;
  private final StallWatchdog watchdog;

  public RangeReader(ObjectStore store, SlipstreamConfig config) {
    this.store = store;
    this.watchdog = new StallWatchdog(config.stallTimeout().toMillis());
    this.backoff = Backoff.of(config);
  }

  private volatile boolean closed;

  /** The client is closing: no new request, no retry; stops the stall watchdog's thread. */
  public void close() {
    closed = true;
    watchdog.shutdown();
  }

  private IOException clientClosed(ObjectHandle h, Throwable cause) {
    return new IOException("the Slipstream client is closed: cannot read " + h.location(), cause);
  }

  /** Reads bytes {@code [start, end)} of the object into {@code dst[off...]}. */
  public void read(ObjectHandle h, long start, long end, byte[] dst, int off, CancelToken token)
      throws IOException {
    final long total = end - start;
    long received = 0;
    int retries = 0;
    while (true) {
      token.check();
      if (closed) {
        throw clientClosed(h, null);
      }
      try {
        received += attempt(h, start + received, end, dst, off + (int) received, token);
        if (received != total) {
          throw new IllegalStateException("read " + received + " of " + total + " bytes");
        }
        return;
      } catch (TransientStoreException e) {
        received = progress(e, received);
        if (token.isCancelled()) {
          throw token.closedError();
        }
        if (closed) {
          throw clientClosed(h, e);
        }
        if (retries >= backoff.retryMax()) {
          throw new IOException("giving up on " + h.location() + " bytes " + (start + received) + "-" + (end - 1)
              + " after " + (retries + 1) + " attempts: " + e.getMessage(), e);
        }
        retries++;
        h.stats().retry(e.retryCause());
        try {
          token.sleep(backoffMillis(retries));
        } catch (java.io.InterruptedIOException e2) {
          throw closed ? clientClosed(h, e) : e2;
        }
      } catch (IOException e) {
        if (token.isCancelled()) {
          throw token.closedError();
        }
        if (closed) {
          throw clientClosed(h, e);
        }
        throw e;
      }
    }
  }

  /** How far a failed attempt got: carried on the exception by {@link #attempt}. */
  private static long progress(TransientStoreException e, long before) {
    return e instanceof PartialProgress p ? before + p.bytes : before;
  }

  long backoffMillis(int retry) {
    return backoff.millis(retry);
  }

  /** One GET; returns bytes received. On a transient failure mid-body, the progress rides the exception. */
  private long attempt(ObjectHandle h, long start, long end, byte[] dst, int off, CancelToken token)
      throws IOException {
    h.stats().increment(Counter.GET_REQUESTS);
    ObjectStore.Body body;
    try {
      body = store.get(h.location(), start, end, h.etag());
    } catch (java.io.EOFException e) {
      // Every range asked for lies inside the length this stream was opened with: a 416 means that
      // length is wrong, which is no end of data the caller should ever mistake for a clean EOF.
      throw h.shorterThanLength(start, e);
    }
    h.access().grant(); // a response with this process's credentials: cached bytes of this open may be served
    token.attach(body);
    long got = 0;
    boolean ok = false;
    StallWatchdog.Watch watch = watchdog.watch(body);
    try {
      h.checkLength(body.objectLength());
      h.checkVersion(body.etag());
      long want = end - start;
      if (body.contentLength() >= 0 && body.contentLength() != want) {
        throw new IOException("GET " + h.location() + " bytes " + start + "-" + (end - 1) + ": server returned "
            + body.contentLength() + " bytes instead of " + want + " (does it honour Range requests?)");
      }
      InputStream in = body.stream();
      while (got < want) {
        int n;
        try {
          n = in.read(dst, off + (int) got, (int) Math.min(want - got, READ_CHUNK));
        } catch (IOException | software.amazon.awssdk.core.exception.SdkClientException e) {
          // The SDK reports some failures of a body being read (an abort, among others) unchecked.
          RetryCause cause = watch.stalled() ? RetryCause.STALL
              : e instanceof IOException io ? classify(io) : RetryCause.OTHER;
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
        h.stats().add(Counter.BYTES_FETCHED, n);
      }
      ok = true;
      return got;
    } finally {
      watch.close();
      token.detach();
      if (ok) {
        body.close(); // fully read: the connection goes back to the pool
      } else {
        body.abort(); // never drain a body we no longer want
      }
    }
  }

  static RetryCause classify(IOException e) {
    if (e instanceof SocketTimeoutException) {
      return RetryCause.STALL;
    }
    String name = e.getClass().getName();
    String msg = String.valueOf(e.getMessage());
    if (name.endsWith("ConnectionClosedException") || name.endsWith("TruncatedChunkException")
        || msg.contains("Premature end")) {
      return RetryCause.TRUNCATED;
    }
    if (e instanceof SocketException || e instanceof javax.net.ssl.SSLException) {
      return RetryCause.CONNECTION_RESET;
    }
    return RetryCause.OTHER;
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
