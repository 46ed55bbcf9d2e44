/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.fetch;

import dev.slipstream.Counter;
import dev.slipstream.Latency;
import dev.slipstream.ReadStatistics;
import dev.slipstream.RetryCause;
import dev.slipstream.internal.block.Block;
import dev.slipstream.internal.block.BufferPool;
import dev.slipstream.internal.store.ContentRange;
import dev.slipstream.internal.store.ObjectStore;
import dev.slipstream.internal.store.TransientStoreException;
import java.io.IOException;
import java.io.InputStream;

/**
 * The open of an object of unknown length that will be read from its start: one GET of its first block
 * in place of a HEAD, whose response says the length ({@code Content-Range}'s total, or a {@code 200}'s
 * {@code Content-Length}) and the version (ETag, Last-Modified), as a HEAD would, and brings the bytes the
 * first read wants. Rule 5: no request that is not needed.
 *
 * <p>Checked as every response is (rule 1) before a byte is used: a {@code 206} must start at byte 0,
 * state the object's length, and end where the request or the object does; a body of exactly that length.
 * A {@code 200} (a server that ignores {@code Range}) carries the whole object: its first block is kept and
 * the rest dropped with the connection. Where the response cannot say the length (a {@code 416}: S3 has no
 * byte 0 of an empty object; a chunked {@code 200}) the answer is null, and the caller asks with a HEAD.
 * Transient failures are retried from byte 0 by the client's retrier; 404, 403 come out typed.
 */
public final class FirstGet {
  private FirstGet() {}

  /**
   * What the first GET learnt: the object's length and version, and its first {@code min(block, length)}
   * bytes ({@code bytes.length} of them).
   */
  public record Got(ObjectStore.ObjectMetadata metadata, byte[] bytes) {
    /**
     * These bytes as the stream's first block of {@code blockLength} bytes, held as an open-ahead block is
     * handed over (the owner's reference and one pin); null if they are not that whole block (a larger
     * object: they are dropped, and the stream fetches its first block as any other), or the pool has no
     * room for them now (the stream fetches them again).
     */
    public Block asFirstBlock(long blockLength, BufferPool pool, ReadStatistics stats) {
      byte[] buffer = bytes.length == 0 || bytes.length != blockLength ? null : pool.tryAcquire(bytes.length);
      if (buffer == null) {
        return null;
      }
      System.arraycopy(bytes, 0, buffer, 0, bytes.length);
      Block b = new Block(0, 0, buffer, bytes.length, false, pool, stats, 1);
      b.complete();
      b.fetchEnded();
      return b;
    }
  }

  /**
   * One attempt: GET bytes {@code [0, max)} of {@code h}'s object ({@code h} names the stream in the request
   * log; its length is not known yet). Null where the response cannot state the length.
   */
  static Got attempt(ObjectStore store, Hedging hedging, StallWatchdog watchdog, ObjectHandle h, int max,
      CancelToken token, int attempt) throws IOException {
    long t0 = System.nanoTime();
    long[] firstByte = {-1};
    long[] got = {0};
    Throwable failure = null;
    try {
      return attempt(store, hedging, watchdog, h, max, token, t0, firstByte, got);
    } catch (IOException | RuntimeException | Error e) {
      failure = e;
      if (e instanceof java.io.FileNotFoundException || e instanceof java.nio.file.AccessDeniedException) {
        h.refused();
      }
      throw e;
    } finally {
      if (RequestLog.on()) {
        RequestLog.get(h, 0, max, got[0], firstByte[0], System.nanoTime() - t0, token.purpose(), attempt, failure);
      }
    }
  }

  private static Got attempt(ObjectStore store, Hedging hedging, StallWatchdog watchdog, ObjectHandle h, int max,
      CancelToken token, long t0, long[] firstByte, long[] got) throws IOException {
    h.stats().increment(Counter.GET_REQUESTS);
    ObjectStore.Body body;
    try {
      body = hedging.get(() -> store.get(h.location(), 0, max, ObjectStore.Version.ANY), token, h.stats());
    } catch (java.io.EOFException e) {
      return null; // 416: no byte 0, an empty object (S3 refuses every range of one); a HEAD says so
    }
    firstByte[0] = System.nanoTime() - t0;
    h.stats().record(Latency.GET_FIRST_BYTE, firstByte[0]);
    token.attach(body);
    boolean reuse = false;
    StallWatchdog.Watch watch = watchdog.watch(body);
    try {
      String request = "GET " + h.location() + " bytes 0-" + (max - 1);
      long length;
      int want;
      switch (body.status()) {
        case 206: {
          ContentRange range = ContentRange.parse(body.contentRange());
          if (range == null || range.total() < 0 || range.first() != 0
              || range.last() != Math.min(max, range.total()) - 1) {
            throw new IOException(request + ": the server answered 206 with "
                + (body.contentRange() == null ? "no Content-Range" : "Content-Range [" + body.contentRange() + "]")
                + ", not the first bytes with the object's length; its bytes are not used");
          }
          length = range.total();
          want = (int) range.length();
          if (body.contentLength() >= 0 && body.contentLength() != want) {
            throw new IOException(request + ": the server answered " + range + " with a Content-Length of "
                + body.contentLength() + " instead of " + want + "; its bytes are not used");
          }
          break;
        }
        case 200:
          if (body.contentLength() < 0) {
            return null; // the whole object, chunked: its length is not stated
          }
          length = body.contentLength();
          want = (int) Math.min(max, length);
          break;
        default:
          throw new IOException(request + ": the server answered " + body.status()
              + ", neither 206 (the range) nor 200 (the whole object); its bytes are not used");
      }
      byte[] bytes = new byte[want];
      InputStream in = body.stream();
      while (got[0] < want) {
        int n;
        try {
          n = in.read(bytes, (int) got[0], want - (int) got[0]);
        } catch (IOException | RuntimeException e) {
          RetryCause cause = watch.stalled() ? RetryCause.STALL
              : e instanceof IOException io ? BodyFailures.classify(io) : RetryCause.OTHER;
          throw new TransientStoreException(cause, "reading " + request + ": " + e, e);
        }
        watch.progress();
        if (n < 0) {
          throw new TransientStoreException(watch.stalled() ? RetryCause.STALL : RetryCause.TRUNCATED,
              "body of " + request + " ended after " + got[0] + " of " + want + " bytes", null);
        }
        got[0] += n;
        h.stats().add(Counter.BYTES_FETCHED, n);
      }
      if (body.status() == 206 && body.contentLength() < 0 && in.read() >= 0) {
        throw new IOException(request + ": the body goes on past the " + want + " bytes of the range; its bytes"
            + " are not used");
      }
      reuse = body.status() == 206 || want == length;
      h.stats().record(Latency.GET, System.nanoTime() - t0);
      return new Got(new ObjectStore.ObjectMetadata(length, body.etag(), body.lastModified(), true, body.versionId()), bytes);
    } finally {
      watch.end(token, reuse);
    }
  }
}
