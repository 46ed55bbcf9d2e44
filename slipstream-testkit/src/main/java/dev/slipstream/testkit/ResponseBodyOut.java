/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.testkit;

import java.io.IOException;
import java.io.OutputStream;

/**
 * The client side of one response body: throttles, counts, and stops at the fault's cut point. The
 * cut point is {@code fraction} of the way into the body, so always short of its end; when the body's
 * length is not known up front it is fixed inside the first read or the first data chunk.
 */
final class ResponseBodyOut {
  private final OutputStream client;
  private final Throttle throttle;
  private final TrafficCounters counters;
  /** Negative when the response has no body fault. */
  private final double fraction;
  private long cutAt = -1;
  private long sent;

  ResponseBodyOut(OutputStream client, Throttle throttle, TrafficCounters counters, double fraction) {
    this.client = client;
    this.throttle = throttle;
    this.counters = counters;
    this.fraction = fraction;
  }

  private boolean pending() {
    return fraction >= 0 && cutAt < 0;
  }

  /** A body of known length. */
  void setTotal(long total) {
    if (pending()) {
      cutAt = Math.min(total - 1, (long) (total * fraction));
    }
  }

  /** A body of unknown length: cut inside the first read. */
  void resolveCut(int firstRead) {
    if (pending()) {
      cutAt = sent + (long) (firstRead * fraction);
    }
  }

  /** A chunked body: cut inside the first data chunk, or before the last chunk if there is none. */
  void resolveCutInChunk(int sizeLineLength, long chunkSize) {
    if (pending()) {
      cutAt = chunkSize == 0 ? sent : sent + sizeLineLength + (long) (chunkSize * fraction);
    }
  }

  void write(byte[] b, int off, int len) throws IOException, CutReached {
    if (cutAt >= 0 && sent + len > cutAt) {
      int keep = (int) (cutAt - sent);
      if (keep > 0) {
        emit(b, off, keep);
      }
      throw CutReached.INSTANCE;
    }
    emit(b, off, len);
  }

  private void emit(byte[] b, int off, int len) throws IOException {
    throttle.take(len);
    client.write(b, off, len);
    sent += len;
    counters.bytesSent(len);
  }
}
