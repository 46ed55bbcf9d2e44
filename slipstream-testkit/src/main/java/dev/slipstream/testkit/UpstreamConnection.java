/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.testkit;

import java.io.BufferedOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.util.concurrent.TimeUnit;

/**
 * The upstream half of one client connection: opened lazily, kept alive between requests, probed after
 * an idle spell because the server may have closed it meanwhile, and reopened when it has.
 */
final class UpstreamConnection {
  /** An upstream connection idle for this long may have been closed by the server: probe it before use. */
  private static final long STALE_CHECK_NANOS = TimeUnit.SECONDS.toNanos(1);
  private static final int CONNECT_TIMEOUT_MILLIS = 10_000;

  private final InetSocketAddress address;
  private final ShaperLifecycle lifecycle;

  private Socket socket;
  private Wire in;
  private OutputStream out;
  private long idleSince;

  UpstreamConnection(InetSocketAddress address, ShaperLifecycle lifecycle) {
    this.address = address;
    this.lifecycle = lifecycle;
  }

  /** The open connection's input; null when closed. */
  Wire in() {
    return in;
  }

  /** The open connection's output, buffered; null when closed. */
  OutputStream out() {
    return out;
  }

  /** A response has been read to its end: the connection idles from now. */
  void markIdle() {
    idleSince = System.nanoTime();
  }

  /** Makes sure an upstream connection is open; true if it is one used before. */
  boolean connect() throws IOException {
    if (socket != null && !socket.isClosed()
        && System.nanoTime() - idleSince > STALE_CHECK_NANOS && isStale()) {
      close();
    }
    if (socket != null && !socket.isClosed()) {
      return true;
    }
    Socket s = new Socket();
    if (!lifecycle.register(s)) {
      throw new InterruptedIOException("link shaper closed");
    }
    try {
      s.setTcpNoDelay(true);
      s.connect(address, CONNECT_TIMEOUT_MILLIS);
      socket = s;
      in = new Wire(s.getInputStream());
      out = new BufferedOutputStream(s.getOutputStream(), BodyRelay.CHUNK);
    } catch (IOException e) {
      lifecycle.unregister(s);
      ShaperLifecycle.closeQuietly(s);
      throw e;
    }
    return false;
  }

  /** An idle keep-alive connection the server has closed reads EOF at once; a live one times out. */
  private boolean isStale() {
    try {
      socket.setSoTimeout(1);
      try {
        in.fill();
        return true;
      } finally {
        socket.setSoTimeout(0);
      }
    } catch (SocketTimeoutException e) {
      return false;
    } catch (IOException e) {
      return true;
    }
  }

  /**
   * Waits up to {@code millis} for the upstream to start answering and reads the head; null if it
   * stays silent that long.
   */
  MessageHead readHeadWithin(int millis) throws IOException {
    socket.setSoTimeout(millis);
    try {
      if (in.fill() < 0) {
        throw new EOFException("upstream closed the connection before responding");
      }
    } catch (SocketTimeoutException e) {
      return null;
    } finally {
      if (!socket.isClosed()) {
        socket.setSoTimeout(0);
      }
    }
    MessageHead head = MessageHead.read(in, false);
    if (head == null) {
      throw new EOFException("upstream closed the connection before responding");
    }
    return head;
  }

  void close() {
    Socket s = socket;
    if (s != null) {
      lifecycle.unregister(s);
      ShaperLifecycle.closeQuietly(s);
      socket = null;
      in = null;
      out = null;
    }
  }
}
