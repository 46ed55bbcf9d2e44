/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.testkit;

import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;

/**
 * Sends one request upstream — its head, then its body read from the client — and returns the final
 * response head, relaying 1xx interim responses to the client on the way. Handles
 * {@code Expect: 100-continue}, an upstream that answers before it has read the whole body, and a
 * kept-alive connection found dead, which is retried once on a fresh one as long as nothing of the
 * client's request has been consumed.
 */
final class RequestForwarder {
  /** How long to wait for the upstream's 100 Continue before letting the client send its body anyway. */
  private static final int EXPECT_WAIT_MILLIS = 1000;
  private static final byte[] CONTINUE_100 = "HTTP/1.1 100 Continue\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1);

  /**
   * The upstream's final response head.
   *
   * @param ambiguous the upstream answered before taking the whole request body, so the client may
   *     still be sending it: its connection cannot carry another request
   */
  record Forwarded(MessageHead response, boolean ambiguous) {}

  private final UpstreamConnection upstream;
  private final Wire clientIn;
  private final OutputStream clientOut;
  private final BodyRelay relay;
  private final ShaperLifecycle lifecycle;

  RequestForwarder(UpstreamConnection upstream, Wire clientIn, OutputStream clientOut, BodyRelay relay,
      ShaperLifecycle lifecycle) {
    this.upstream = upstream;
    this.clientIn = clientIn;
    this.clientOut = clientOut;
    this.relay = relay;
    this.lifecycle = lifecycle;
  }

  /** Sends the request upstream and returns the final response head; 1xx interim responses are relayed. */
  Forwarded forward(MessageHead request, Framing body, boolean expectContinue) throws IOException {
    boolean ambiguous = false;
    byte[] head = request.toBytes();
    boolean continueSent = false;
    MessageHead first;
    if (!body.hasBody()) {
      first = sendBodiless(head);
    } else {
      try {
        if (expectContinue) {
          first = sendExpectContinueHead(head);
          if (first == null || first.status() < 200) {
            // Either the upstream said go on, or it keeps quiet: the client needs a 100 to send its body.
            clientOut.write(first != null && first.status() == 100 ? first.toBytes() : CONTINUE_100);
            continueSent = true;
            first = null;
            copyRequestBody(body);
          } else {
            ambiguous = true;
          }
        } else {
          upstream.connect();
          upstream.out().write(head);
          first = null;
          copyRequestBody(body);
        }
        try {
          upstream.out().flush();
        } catch (IOException e) {
          throw new UpstreamWriteFailed(e);
        }
      } catch (UpstreamWriteFailed e) {
        // A server may answer (an error, typically) and close without reading the whole body: relay
        // that answer rather than a 502. The client's unread body makes its connection unusable.
        ambiguous = true;
        try {
          first = MessageHead.read(upstream.in(), false);
        } catch (IOException again) {
          e.addSuppressed(again);
          throw e;
        }
        if (first == null) {
          throw e;
        }
      }
    }
    MessageHead response = first;
    while (true) {
      if (response == null) {
        response = MessageHead.read(upstream.in(), false);
        if (response == null) {
          throw new EOFException("upstream closed the connection before responding");
        }
      }
      int status = response.status();
      if (status >= 200 || status == 101) {
        break;
      }
      if (!(status == 100 && continueSent)) {
        clientOut.write(response.toBytes());
      }
      response = null;
    }
    return new Forwarded(response, ambiguous);
  }

  /** Sends a request without body; retried once on a fresh connection if a reused one was dead. */
  private MessageHead sendBodiless(byte[] head) throws IOException {
    for (int attempt = 0; ; attempt++) {
      boolean reused = upstream.connect();
      Wire in = upstream.in();
      long mark = in.consumed();
      try {
        upstream.out().write(head);
        upstream.out().flush();
        MessageHead response = MessageHead.read(in, false);
        if (response == null) {
          throw new EOFException("upstream closed the connection before responding");
        }
        return response;
      } catch (IOException e) {
        upstream.close();
        if (attempt > 0 || !reused || in.consumed() != mark || lifecycle.isClosed()) {
          throw e;
        }
      }
    }
  }

  /**
   * Sends the head of an Expect: 100-continue request and waits for the upstream's reaction; null if
   * it stays silent. Retried once on a fresh connection if a reused one turns out dead, which is safe
   * because none of the client's body has been read yet.
   */
  private MessageHead sendExpectContinueHead(byte[] head) throws IOException {
    for (int attempt = 0; ; attempt++) {
      boolean reused = upstream.connect();
      long mark = upstream.in().consumed();
      try {
        upstream.out().write(head);
        upstream.out().flush();
        return upstream.readHeadWithin(EXPECT_WAIT_MILLIS);
      } catch (IOException e) {
        boolean nothingReceived = upstream.in() != null && upstream.in().consumed() == mark;
        upstream.close();
        if (attempt > 0 || !reused || !nothingReceived || lifecycle.isClosed()) {
          throw e;
        }
      }
    }
  }

  private void copyRequestBody(Framing body) throws IOException {
    relay.copyRequest(clientIn, body, this::writeUpstream);
  }

  /** Marks a failed write as the upstream's doing, so that forward() looks for an early answer. */
  private void writeUpstream(byte[] b, int off, int len) throws UpstreamWriteFailed {
    try {
      upstream.out().write(b, off, len);
    } catch (IOException e) {
      throw new UpstreamWriteFailed(e);
    }
  }
}
