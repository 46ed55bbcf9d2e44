/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.testkit;

import java.io.IOException;
import java.net.Socket;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One client connection and its upstream connection, served by one thread, one request at a time. Each
 * exchange decides the request's fault and latency, then either answers with a status fault or
 * forwards the request, holds the response head until the latency has passed, and relays the body
 * through the throttle, cutting it where a body fault says.
 */
final class ClientConnection implements Runnable {
  // Logged under LinkShaper's name, which is what users configure.
  private static final Logger LOG = LoggerFactory.getLogger(LinkShaper.class);

  private final LinkShaper shaper;
  private final ShaperLifecycle lifecycle;
  private final TrafficCounters counters;
  private final Socket socket;
  private final byte[] buf = new byte[BodyRelay.CHUNK];
  private final BodyRelay relay = new BodyRelay(buf);
  private final Throttle throttle;
  private final UpstreamConnection upstream;

  /** Set up by run(), on the connection's own thread. */
  private ClientSide client;
  private RequestForwarder forwarder;

  /** Whether anything of the current response has gone to the client, so a 502 would be too late. */
  private boolean responseStarted;

  ClientConnection(LinkShaper shaper, Socket socket) {
    this.shaper = shaper;
    this.lifecycle = shaper.lifecycle;
    this.counters = shaper.counters;
    this.socket = socket;
    long perConnection = shaper.profile().perConnectionBytesPerSecond();
    TokenBucket connectionBucket = perConnection > 0 ? new TokenBucket(perConnection, BodyRelay.CHUNK) : null;
    this.throttle = new Throttle(connectionBucket, shaper.aggregateBucket, lifecycle);
    this.upstream = new UpstreamConnection(shaper.upstreamAddress, lifecycle);
  }

  @Override
  public void run() {
    try {
      client = new ClientSide(socket, buf);
      forwarder = new RequestForwarder(upstream, client.in(), client.out(), relay, lifecycle);
      while (!lifecycle.isClosed()) {
        MessageHead request = MessageHead.read(client.in(), true);
        if (request == null) {
          return;
        }
        long receivedAt = System.nanoTime();
        counters.requestStarted();
        try {
          if (!exchange(request, receivedAt)) {
            return;
          }
        } finally {
          counters.requestEnded();
        }
      }
    } catch (IOException | RuntimeException e) {
      // A client going away, an upstream failure or close(): the connection ends either way.
      LOG.debug("link shaper connection ended", e);
    } finally {
      upstream.close();
      lifecycle.unregister(socket);
      ShaperLifecycle.closeQuietly(socket);
      counters.clientConnectionClosed();
    }
  }

  /** Serves one request; false when the client connection must not be reused. */
  private boolean exchange(MessageHead request, long receivedAt) throws IOException {
    responseStarted = false;
    String method = request.method();
    RequestInfo info = request.toRequestInfo();
    counters.requestReceived(method);
    shaper.recordRequest(info);

    RequestDraws draws = shaper.draws.next(info);
    FaultKind fault = shaper.script.take(info);
    if (fault == null) {
      fault = shaper.randomFaults.pick(method, draws);
    }
    if (fault != null) {
      counters.faultInjected(fault);
    }
    long firstByteAt = receivedAt + shaper.latency.sampleNanos(draws);
    boolean headRequest = "HEAD".equals(method);

    Framing requestBody;
    try {
      requestBody = Framing.ofRequest(request);
    } catch (IOException e) {
      sendLocal(400, "Bad Request", "<Error><Code>InvalidRequest</Code><Message>" + e.getMessage()
          + "</Message></Error>", headRequest, true);
      client.lingeringClose();
      return false;
    }
    boolean expectContinue = requestBody.hasBody()
        && request.hasToken("expect", "100-continue");
    boolean clientWantsClose = request.wantsClose();

    if (fault != null && fault.isStatus()) {
      boolean close = clientWantsClose;
      if (requestBody.hasBody()) {
        if (expectContinue) {
          // The client waits for our verdict before sending its body; after a final status it may
          // or may not send it, so only a fresh connection is unambiguous.
          close = true;
        } else {
          relay.copyRequest(client.in(), requestBody, BodyRelay.DISCARD);
        }
      }
      lifecycle.sleepUntil(firstByteAt);
      if (fault == FaultKind.STATUS_503) {
        sendLocal(503, "Slow Down", LocalResponses.SLOW_DOWN_BODY, headRequest, close);
      } else if (fault == FaultKind.STATUS_403) {
        sendLocal(403, "Forbidden", LocalResponses.ACCESS_DENIED_BODY, headRequest, close);
      } else {
        sendLocal(500, "Internal Server Error", LocalResponses.INTERNAL_ERROR_BODY, headRequest, close);
      }
      if (close) {
        client.lingeringClose();
      }
      return !close;
    }

    shaper.hooks.runMatching(info);

    RequestForwarder.Forwarded forwarded;
    try {
      forwarded = forwarder.forward(request, requestBody, expectContinue);
    } catch (IOException e) {
      upstream.close();
      if (!responseStarted && !lifecycle.isClosed()) {
        LOG.debug("upstream exchange failed", e);
        try {
          sendLocal(502, "Bad Gateway", "<Error><Code>BadGateway</Code><Message>link shaper: "
              + e + "</Message></Error>", headRequest, true);
          client.lingeringClose();
        } catch (IOException ignored) {
          // the client may be the one that failed
        }
        return false;
      }
      throw e;
    }
    MessageHead response = forwarded.response();
    boolean ambiguous = forwarded.ambiguous();

    Framing responseBody = Framing.ofResponse(response, headRequest);
    boolean closeAfter = ambiguous || clientWantsClose || responseBody.toClose() || response.wantsClose();

    if (fault != null && responseBody.isEmpty()) {
      lifecycle.sleepUntil(firstByteAt);
      abortClient(fault == FaultKind.RESET_MID_BODY);
      return false;
    }

    lifecycle.sleepUntil(firstByteAt);
    responseStarted = true;
    client.out().write(response.toBytes());
    long headSentAt = System.nanoTime();
    throttle.responseStarting();
    ResponseBodyOut out = new ResponseBodyOut(client.out(), throttle, counters,
        fault == null ? -1.0 : RandomFaults.cutFraction(draws));
    try {
      relay.relayResponse(upstream.in(), responseBody, out);
    } catch (CutReached cut) {
      applyBodyFault(fault);
      return false;
    }
    shaper.responded(info, response.status(), headSentAt - receivedAt, System.nanoTime() - receivedAt);
    upstream.markIdle();
    if (closeAfter) {
      upstream.close();
      if (ambiguous) {
        client.lingeringClose();
      }
      return false;
    }
    return true;
  }

  private void applyBodyFault(FaultKind fault) throws IOException {
    upstream.close();
    switch (fault) {
      case RESET_MID_BODY:
        abortClient(true);
        break;
      case TRUNCATE:
        client.shutdownOutput();
        break;
      case STALL:
        client.stall(shaper.stallMillis(), lifecycle);
        break;
      default:
        throw new IllegalStateException("not a body fault: " + fault);
    }
  }

  /** Closes the client connection, with a TCP reset if {@code reset}. */
  private void abortClient(boolean reset) throws IOException {
    upstream.close();
    client.abort(reset);
  }

  /** Answers the client without asking the upstream. */
  private void sendLocal(int status, String reason, String xml, boolean headRequest, boolean close)
      throws IOException {
    responseStarted = true;
    counters.bytesSent(shaper.localResponses.write(client.out(), status, reason, xml, headRequest, close));
  }
}
