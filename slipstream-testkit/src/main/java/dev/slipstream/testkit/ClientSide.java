/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.testkit;

import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.util.concurrent.TimeUnit;

/**
 * The client's socket of one connection, and the ways the shaper ends it other than a plain close: a
 * lingering close that protects a response already sent, a reset or a FIN in the middle of a body, and
 * a stall.
 */
final class ClientSide {
  private final Socket socket;
  private final Wire in;
  private final OutputStream out;
  /** The connection's buffer; what is read into it here is thrown away. */
  private final byte[] scratch;

  ClientSide(Socket socket, byte[] scratch) throws IOException {
    this.socket = socket;
    this.scratch = scratch;
    socket.setTcpNoDelay(true);
    this.in = new Wire(socket.getInputStream());
    this.out = socket.getOutputStream();
  }

  Wire in() {
    return in;
  }

  OutputStream out() {
    return out;
  }

  /**
   * Ends the connection when the client may still send a request body we will never read: a close
   * with unread input would reset the connection and could destroy the response in the client's
   * buffers, so send a FIN first and read what comes, briefly.
   */
  void lingeringClose() {
    try {
      socket.shutdownOutput();
      socket.setSoTimeout(500);
      long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(500);
      while (System.nanoTime() < deadline && in.read(scratch, 0, scratch.length) >= 0) {
        // discard
      }
    } catch (IOException e) {
      // the client closed or reset the connection itself: nothing left to protect
    }
  }

  /** Closes the connection, with a TCP reset if {@code reset}. */
  void abort(boolean reset) throws IOException {
    if (reset) {
      socket.setSoLinger(true, 0);
    }
    socket.close();
  }

  /** Sends a FIN: the client sees a clean end of stream wherever the response stands. */
  void shutdownOutput() throws IOException {
    socket.shutdownOutput();
  }

  /**
   * Keeps the connection silent for {@code millis}. Waits by reading the client socket, so that a
   * client that gives up ends the stall at once instead of counting as an active request until it
   * expires.
   */
  void stall(long millis, ShaperLifecycle lifecycle) {
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
    try {
      while (!lifecycle.isClosed()) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          return;
        }
        socket.setSoTimeout((int) Math.max(1, Math.min(Integer.MAX_VALUE, TimeUnit.NANOSECONDS.toMillis(left) + 1)));
        try {
          if (in.read(scratch, 0, scratch.length) < 0) {
            return;
          }
        } catch (SocketTimeoutException e) {
          // loop: the deadline check ends the stall
        }
      }
    } catch (IOException e) {
      // the client reset the connection or close() closed it
    }
  }
}
