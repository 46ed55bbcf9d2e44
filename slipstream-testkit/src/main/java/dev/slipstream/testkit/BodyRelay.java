/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.testkit;

import java.io.EOFException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;

/**
 * Copies one message body as its {@link Framing} delimits it, bytes unchanged — a chunked body keeps
 * its chunk lines and trailers, whose sizes are read only to find its end. Request bodies go from the
 * client to the upstream (or nowhere, to skip one); response bodies go from the upstream to a
 * {@link ResponseBodyOut}, which may cut them.
 */
final class BodyRelay {
  /** Large enough that a 300 MB/s aggregate costs only a few thousand writes per second. */
  static final int CHUNK = 64 * 1024;

  private static final byte[] CRLF = {'\r', '\n'};

  /** Where copied bytes go. */
  interface Sink {
    void write(byte[] b, int off, int len) throws IOException, CutReached;
  }

  /** A sink that drops what it gets: reads a request body only to get past it. */
  static final Sink DISCARD = (b, off, len) -> { };

  private final byte[] buf;

  /** {@code buf} is the connection's buffer, shared because one thread does all of its copying. */
  BodyRelay(byte[] buf) {
    this.buf = buf;
  }

  /** Copies a request body from {@code in} to {@code sink}, which must never signal a cut. */
  void copyRequest(Wire in, Framing body, Sink sink) throws IOException {
    try {
      if (body.chunked()) {
        copyChunked(in, sink, null);
      } else {
        long left = body.length();
        while (left > 0) {
          int r = in.read(buf, 0, (int) Math.min(buf.length, left));
          if (r < 0) {
            throw new EOFException("client ended the request body early");
          }
          sink.write(buf, 0, r);
          left -= r;
        }
      }
    } catch (CutReached e) {
      throw new IllegalStateException("request bodies are never cut", e);
    }
  }

  /** Relays a response body from {@code in} to {@code out}; CutReached when out's cut point is reached. */
  void relayResponse(Wire in, Framing body, ResponseBodyOut out) throws IOException, CutReached {
    if (body.isEmpty()) {
      return;
    }
    if (body.chunked()) {
      copyChunked(in, out::write, out);
    } else if (body.toClose()) {
      while (true) {
        int r = in.read(buf, 0, buf.length);
        if (r < 0) {
          return;
        }
        out.resolveCut(r);
        out.write(buf, 0, r);
      }
    } else {
      out.setTotal(body.length());
      long left = body.length();
      while (left > 0) {
        int r = in.read(buf, 0, (int) Math.min(buf.length, left));
        if (r < 0) {
          throw new EOFException("upstream ended the response body early");
        }
        out.write(buf, 0, r);
        left -= r;
      }
    }
  }

  /**
   * Relays a chunked body as-is, reading the chunk sizes only to find its end. With {@code cut} set,
   * a pending cut point is fixed inside the first data chunk.
   */
  private void copyChunked(Wire in, Sink sink, ResponseBodyOut cut) throws IOException, CutReached {
    while (true) {
      String sizeLine = in.readLine(MessageHead.MAX_HEAD_BYTES);
      if (sizeLine == null) {
        throw new EOFException("chunked body ended early");
      }
      long size = parseChunkSize(sizeLine);
      byte[] line = (sizeLine + "\r\n").getBytes(StandardCharsets.ISO_8859_1);
      if (cut != null) {
        cut.resolveCutInChunk(line.length, size);
      }
      sink.write(line, 0, line.length);
      if (size == 0) {
        // Trailer section, up to and including the empty line.
        while (true) {
          String trailer = in.readLine(MessageHead.MAX_HEAD_BYTES);
          if (trailer == null) {
            throw new EOFException("chunked body ended in its trailers");
          }
          byte[] t = (trailer + "\r\n").getBytes(StandardCharsets.ISO_8859_1);
          sink.write(t, 0, t.length);
          if (trailer.isEmpty()) {
            return;
          }
        }
      }
      long left = size;
      while (left > 0) {
        int r = in.read(buf, 0, (int) Math.min(buf.length, left));
        if (r < 0) {
          throw new EOFException("chunked body ended inside a chunk");
        }
        sink.write(buf, 0, r);
        left -= r;
      }
      String end = in.readLine(MessageHead.MAX_HEAD_BYTES);
      if (end == null || !end.isEmpty()) {
        throw new IOException("malformed chunked body: no CRLF after a chunk");
      }
      sink.write(CRLF, 0, CRLF.length);
    }
  }

  private static long parseChunkSize(String line) throws IOException {
    int semi = line.indexOf(';');
    String hex = (semi < 0 ? line : line.substring(0, semi)).trim();
    try {
      long size = Long.parseLong(hex, 16);
      if (size < 0) {
        throw new NumberFormatException();
      }
      return size;
    } catch (NumberFormatException e) {
      throw new IOException("malformed chunk size line: " + line);
    }
  }
}
