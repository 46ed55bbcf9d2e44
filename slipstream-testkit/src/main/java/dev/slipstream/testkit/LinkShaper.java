/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.testkit;

import java.io.BufferedOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ProtocolException;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A link shaper and fault injector: an HTTP/1.1 proxy on 127.0.0.1 that sits between an S3 client and
 * an S3 server (normally {@link EmbeddedS3Server}) and makes the loopback link behave like a real S3
 * link, as described by a {@link LinkProfile}. Point the client's endpoint at {@link #endpoint()}
 * (path-style, plain http); the shaper forwards to the upstream given to {@link #start}.
 *
 * <h2>Forwarding</h2>
 * Each client connection gets its own upstream connection, opened lazily and reopened when the upstream
 * closed it, and carries one request at a time (keep-alive, no pipelining). Requests and responses are
 * relayed unchanged — in particular the {@code Host} header, which request signatures cover. Request
 * bodies framed by Content-Length or chunked encoding, response bodies framed by Content-Length,
 * chunked encoding or the end of the connection, and {@code Expect: 100-continue} are supported;
 * protocol upgrades are not.
 *
 * <h2>Shaping</h2>
 * <ul>
 *   <li>First-byte latency: the response head is held until the latency sampled for the request has
 *       passed since the request head arrived, so the upstream's own time counts towards it.
 *   <li>Bandwidth: response bodies pass through a per-connection and a shared token bucket. Request
 *       bodies (uploads) are not shaped: the read path is what this models.
 * </ul>
 *
 * <h2>Faults</h2>
 * A request gets at most one {@link FaultKind fault}: first a scripted one ({@link #injectNext}), else
 * with {@link LinkProfile#faultProbability()} a random one — any kind for a GET, {@code 503} or
 * {@code 500} for a HEAD, none for other methods. Random decisions, the latency sample and the point
 * where a body fault cuts the body are all functions of the seed and of the request's method, path,
 * query, {@code Range} header and how many identical requests came before it. So two shapers with the
 * same seed treat the same request sequence identically whatever the thread interleaving, and a retry
 * of a failed request gets a fresh decision.
 *
 * <h2>Threads and closing</h2>
 * All work runs on daemon threads named {@code link-shaper-N}, one per client connection plus the
 * acceptor. A client that goes away mid-response ends the exchange at the next write, which also
 * closes its upstream connection. {@link #close()} closes every socket and waits (bounded) for the
 * threads to end. Nothing is logged per request above DEBUG.
 */
public final class LinkShaper implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(LinkShaper.class);

  /** Large enough that a 300 MB/s aggregate costs only a few thousand writes per second. */
  private static final int CHUNK = 64 * 1024;
  private static final int MAX_HEAD_BYTES = 64 * 1024;
  /** How long to wait for the upstream's 100 Continue before letting the client send its body anyway. */
  private static final int EXPECT_WAIT_MILLIS = 1000;
  /** An upstream connection idle for this long may have been closed by the server: probe it before use. */
  private static final long STALE_CHECK_NANOS = TimeUnit.SECONDS.toNanos(1);
  private static final int CONNECT_TIMEOUT_MILLIS = 10_000;
  private static final long CLOSE_WAIT_MILLIS = 5_000;

  private static final byte[] CRLF = {'\r', '\n'};
  private static final byte[] CONTINUE_100 = "HTTP/1.1 100 Continue\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1);
  private static final String SLOW_DOWN_BODY =
      "<Error><Code>SlowDown</Code><Message>Please reduce your request rate.</Message></Error>";
  private static final String INTERNAL_ERROR_BODY =
      "<Error><Code>InternalError</Code><Message>We encountered an internal error. Please try again."
          + "</Message></Error>";

  // Salts keep the per-request random draws independent of one another.
  private static final long SALT_FAULT = 0x1F3D5B79A2C4E6F8L;
  private static final long SALT_KIND = 0x2B4D6F8193A5C7E9L;
  private static final long SALT_CUT = 0x3C5E7092B4D6F81AL;
  private static final long SALT_LATENCY_1 = 0x4D6F81A3C5E7092BL;
  private static final long SALT_LATENCY_2 = 0x5E7092B4D6F81A3CL;
  private static final double LATENCY_SIGMA = 0.5;

  private static final FaultKind[] ALL_KINDS = FaultKind.values();
  private static final FaultKind[] STATUS_KINDS = {FaultKind.STATUS_503, FaultKind.STATUS_500};

  private final URI upstream;
  private final InetSocketAddress upstreamAddress;
  private final LinkProfile profile;
  private final long seed;
  private final ServerSocket server;
  private final ExecutorService pool;
  private final TokenBucket aggregateBucket;
  private final AtomicBoolean closed = new AtomicBoolean();
  private final Set<Socket> sockets = ConcurrentHashMap.newKeySet();
  private volatile long stallMillis = 10_000;

  /** Occurrences so far of each (method, path, query, range), by a 64-bit hash of it. */
  private final ConcurrentHashMap<Long, Long> seen = new ConcurrentHashMap<>();
  private final Deque<Scripted> scripted = new ArrayDeque<>();
  private final List<Hook> hooks = new ArrayList<>();
  private final AtomicInteger requestIds = new AtomicInteger();

  private final LongAdder requests = new LongAdder();
  private final ConcurrentHashMap<String, LongAdder> requestsByMethod = new ConcurrentHashMap<>();
  private final LongAdder[] faults = new LongAdder[ALL_KINDS.length];
  private final AtomicInteger activeRequests = new AtomicInteger();
  private final AtomicInteger openClientConnections = new AtomicInteger();
  private final LongAdder bytesSent = new LongAdder();

  private record Scripted(FaultKind kind, Predicate<RequestInfo> match) {}

  private record Hook(Predicate<RequestInfo> match, Runnable action) {}

  private LinkShaper(URI upstream, LinkProfile profile, long seed) throws IOException {
    this.upstream = upstream;
    String host = upstream.getHost();
    if (host == null) {
      throw new IllegalArgumentException("upstream has no host: " + upstream);
    }
    if (upstream.getScheme() != null && !"http".equalsIgnoreCase(upstream.getScheme())) {
      throw new IllegalArgumentException("only plain http upstreams are supported: " + upstream);
    }
    this.upstreamAddress = new InetSocketAddress(host, upstream.getPort() < 0 ? 80 : upstream.getPort());
    this.profile = profile;
    this.seed = seed;
    for (int i = 0; i < faults.length; i++) {
      faults[i] = new LongAdder();
    }
    this.aggregateBucket = profile.aggregateBytesPerSecond() > 0
        ? new TokenBucket(profile.aggregateBytesPerSecond()) : null;
    this.server = new ServerSocket();
    server.setReuseAddress(true);
    server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 128);
    AtomicInteger threadIds = new AtomicInteger();
    ThreadFactory threads = r -> {
      Thread t = new Thread(r, "link-shaper-" + threadIds.incrementAndGet());
      t.setDaemon(true);
      return t;
    };
    this.pool = Executors.newCachedThreadPool(threads);
    pool.execute(this::acceptLoop);
  }

  /**
   * Starts a shaper listening on an ephemeral port of 127.0.0.1 that forwards to {@code upstream}
   * ({@code http://host:port}) and shapes the link as {@code profile} says, with every random decision
   * derived from {@code seed}.
   */
  public static LinkShaper start(URI upstream, LinkProfile profile, long seed) {
    Objects.requireNonNull(upstream, "upstream");
    Objects.requireNonNull(profile, "profile");
    try {
      return new LinkShaper(upstream, profile, seed);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start the link shaper", e);
    }
  }

  /** {@code http://127.0.0.1:PORT}: the endpoint clients should use instead of the upstream's. */
  public URI endpoint() {
    return URI.create("http://127.0.0.1:" + port());
  }

  public int port() {
    return server.getLocalPort();
  }

  public URI upstream() {
    return upstream;
  }

  public LinkProfile profile() {
    return profile;
  }

  public long seed() {
    return seed;
  }

  /** Sets how long a {@link FaultKind#STALL} keeps the connection silent before closing it. */
  public void stallMillis(long millis) {
    if (millis < 0) {
      throw new IllegalArgumentException("stallMillis must not be negative: " + millis);
    }
    this.stallMillis = millis;
  }

  public long stallMillis() {
    return stallMillis;
  }

  /**
   * The next request matching {@code match} gets fault {@code kind}, in place of any random decision.
   * One shot; several may be queued, and a request takes the oldest queued fault it matches.
   */
  public void injectNext(FaultKind kind, Predicate<RequestInfo> match) {
    Objects.requireNonNull(kind, "kind");
    Objects.requireNonNull(match, "match");
    synchronized (scripted) {
      scripted.addLast(new Scripted(kind, match));
    }
  }

  /** {@link #injectNext(FaultKind, Predicate)} for whatever request comes next. */
  public void injectNext(FaultKind kind) {
    injectNext(kind, r -> true);
  }

  /**
   * One shot: runs {@code action} on the proxy thread before the next request matching {@code match}
   * is forwarded upstream, and holds that request until it returns — e.g. to overwrite an object between
   * two reads. A request that a status fault answers is not forwarded and does not trigger the hook. An
   * exception from the action is logged and the request forwarded anyway.
   */
  public void onRequest(Predicate<RequestInfo> match, Runnable action) {
    Objects.requireNonNull(match, "match");
    Objects.requireNonNull(action, "action");
    synchronized (hooks) {
      hooks.add(new Hook(match, action));
    }
  }

  /** All requests received, whatever became of them. */
  public long requests() {
    return requests.sum();
  }

  /** Requests received with {@code method} (case ignored). */
  public long requests(String method) {
    LongAdder n = requestsByMethod.get(method.toUpperCase(Locale.ROOT));
    return n == null ? 0 : n.sum();
  }

  /** Faults of {@code kind} injected so far, scripted or random. */
  public long faultsInjected(FaultKind kind) {
    return faults[kind.ordinal()].sum();
  }

  /** Faults of all kinds injected so far. */
  public long faultsInjected() {
    long total = 0;
    for (LongAdder f : faults) {
      total += f.sum();
    }
    return total;
  }

  /** Requests received whose response has been neither fully sent nor aborted. */
  public int activeRequests() {
    return activeRequests.get();
  }

  public int openClientConnections() {
    return openClientConnections.get();
  }

  /** Response body bytes written to clients (including error bodies the shaper made up). */
  public long bytesSent() {
    return bytesSent.sum();
  }

  /** Stops accepting, closes every connection and waits (bounded) for the threads to end. Idempotent. */
  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    closeQuietly(server);
    for (Socket s : sockets) {
      closeQuietly(s);
    }
    pool.shutdownNow();
    try {
      if (!pool.awaitTermination(CLOSE_WAIT_MILLIS, TimeUnit.MILLISECONDS)) {
        LOG.warn("link shaper threads still running {} ms after close", CLOSE_WAIT_MILLIS);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  @Override
  public String toString() {
    return "LinkShaper[" + endpoint() + " -> " + upstream + ", " + profile.name() + "]";
  }

  // ---------------------------------------------------------------------------------------------
  // Connections

  private void acceptLoop() {
    while (!closed.get()) {
      Socket s;
      try {
        s = server.accept();
      } catch (IOException e) {
        if (!closed.get()) {
          LOG.warn("link shaper stopped accepting connections", e);
        }
        return;
      }
      openClientConnections.incrementAndGet();
      if (!register(s)) {
        openClientConnections.decrementAndGet();
        continue;
      }
      try {
        pool.execute(new Connection(s));
      } catch (RejectedExecutionException e) {
        unregister(s);
        closeQuietly(s);
        openClientConnections.decrementAndGet();
      }
    }
  }

  /** Tracks a socket so that close() can break every blocked read; false if already closed. */
  private boolean register(Socket s) {
    sockets.add(s);
    if (closed.get()) {
      sockets.remove(s);
      closeQuietly(s);
      return false;
    }
    return true;
  }

  private void unregister(Socket s) {
    sockets.remove(s);
  }

  /** One client connection and its upstream connection, served by one thread. */
  private final class Connection implements Runnable {
    private final Socket client;
    private Wire clientIn;
    private OutputStream clientOut;
    private final TokenBucket connectionBucket;
    private final byte[] buf = new byte[CHUNK];

    private Socket upstreamSocket;
    private Wire upstreamIn;
    private OutputStream upstreamOut;
    private long upstreamIdleSince;

    /** Whether anything of the current response has gone to the client, so a 502 would be too late. */
    private boolean responseStarted;

    Connection(Socket client) {
      this.client = client;
      this.connectionBucket = profile.perConnectionBytesPerSecond() > 0
          ? new TokenBucket(profile.perConnectionBytesPerSecond()) : null;
    }

    @Override
    public void run() {
      try {
        client.setTcpNoDelay(true);
        clientIn = new Wire(client.getInputStream());
        clientOut = client.getOutputStream();
        while (!closed.get()) {
          Head request = Head.read(clientIn, true);
          if (request == null) {
            return;
          }
          long receivedAt = System.nanoTime();
          activeRequests.incrementAndGet();
          try {
            if (!exchange(request, receivedAt)) {
              return;
            }
          } finally {
            activeRequests.decrementAndGet();
          }
        }
      } catch (IOException | RuntimeException e) {
        // A client going away, an upstream failure or close(): the connection ends either way.
        LOG.debug("link shaper connection ended", e);
      } finally {
        closeUpstream();
        unregister(client);
        closeQuietly(client);
        openClientConnections.decrementAndGet();
      }
    }

    /** Serves one request; false when the client connection must not be reused. */
    private boolean exchange(Head request, long receivedAt) throws IOException {
      responseStarted = false;
      String method = request.method();
      RequestInfo info = request.toRequestInfo();
      requests.increment();
      requestsByMethod.computeIfAbsent(method, m -> new LongAdder()).increment();

      long key = requestKey(info);
      long n = seen.merge(key, 1L, Long::sum) - 1;
      FaultKind fault = takeScripted(info);
      if (fault == null) {
        fault = randomFault(method, key, n);
      }
      if (fault != null) {
        faults[fault.ordinal()].increment();
      }
      long firstByteAt = receivedAt + latencyNanos(key, n);
      boolean headRequest = "HEAD".equals(method);

      Framing requestBody;
      try {
        requestBody = Framing.ofRequest(request);
      } catch (IOException e) {
        sendLocal(400, "Bad Request", "<Error><Code>InvalidRequest</Code><Message>" + e.getMessage()
            + "</Message></Error>", headRequest, true);
        lingeringClose();
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
            discardRequestBody(requestBody);
          }
        }
        sleepUntil(firstByteAt);
        if (fault == FaultKind.STATUS_503) {
          sendLocal(503, "Slow Down", SLOW_DOWN_BODY, headRequest, close);
        } else {
          sendLocal(500, "Internal Server Error", INTERNAL_ERROR_BODY, headRequest, close);
        }
        if (close) {
          lingeringClose();
        }
        return !close;
      }

      runHooks(info);

      Head response;
      boolean ambiguous;
      try {
        Forwarded f = forward(request, requestBody, expectContinue);
        response = f.response;
        ambiguous = f.ambiguous;
      } catch (IOException e) {
        closeUpstream();
        if (!responseStarted && !closed.get()) {
          LOG.debug("upstream exchange failed", e);
          try {
            sendLocal(502, "Bad Gateway", "<Error><Code>BadGateway</Code><Message>link shaper: "
                + e + "</Message></Error>", headRequest, true);
            lingeringClose();
          } catch (IOException ignored) {
            // the client may be the one that failed
          }
          return false;
        }
        throw e;
      }

      Framing responseBody = Framing.ofResponse(response, headRequest);
      boolean closeAfter = ambiguous || clientWantsClose || responseBody.toClose() || response.wantsClose();

      if (fault != null && responseBody.isEmpty()) {
        sleepUntil(firstByteAt);
        abortClient(fault == FaultKind.RESET_MID_BODY);
        return false;
      }

      sleepUntil(firstByteAt);
      responseStarted = true;
      clientOut.write(response.toBytes());
      if (connectionBucket != null) {
        // Each response streams at the link rate from its first byte; credit saved while the connection
        // idled (or waited out the latency) would make small reads free.
        connectionBucket.drain();
      }
      BodyOut out = new BodyOut(fault == null ? -1.0 : cutFraction(key, n));
      try {
        relayBody(responseBody, out);
      } catch (CutReached cut) {
        applyBodyFault(fault);
        return false;
      }
      upstreamIdleSince = System.nanoTime();
      if (closeAfter) {
        closeUpstream();
        if (ambiguous) {
          lingeringClose();
        }
        return false;
      }
      return true;
    }

    /**
     * Ends the client connection when the client may still send a request body we will never read:
     * a close with unread input would reset the connection and could destroy the response in the
     * client's buffers, so send a FIN first and read what comes, briefly.
     */
    private void lingeringClose() {
      try {
        client.shutdownOutput();
        client.setSoTimeout(500);
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(500);
        while (System.nanoTime() < deadline && clientIn.read(buf, 0, buf.length) >= 0) {
          // discard
        }
      } catch (IOException e) {
        // the client closed or reset the connection itself: nothing left to protect
      }
    }

    private final class Forwarded {
      Head response;
      boolean ambiguous;
    }

    /** Sends the request upstream and returns the final response head; 1xx interim responses are relayed. */
    private Forwarded forward(Head request, Framing body, boolean expectContinue) throws IOException {
      Forwarded result = new Forwarded();
      byte[] head = request.toBytes();
      boolean continueSent = false;
      Head first;
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
              result.ambiguous = true;
            }
          } else {
            connectUpstream();
            upstreamOut.write(head);
            first = null;
            copyRequestBody(body);
          }
          try {
            upstreamOut.flush();
          } catch (IOException e) {
            throw new UpstreamWriteFailed(e);
          }
        } catch (UpstreamWriteFailed e) {
          // A server may answer (an error, typically) and close without reading the whole body: relay
          // that answer rather than a 502. The client's unread body makes its connection unusable.
          result.ambiguous = true;
          try {
            first = Head.read(upstreamIn, false);
          } catch (IOException again) {
            e.addSuppressed(again);
            throw e;
          }
          if (first == null) {
            throw e;
          }
        }
      }
      Head response = first;
      while (true) {
        if (response == null) {
          response = Head.read(upstreamIn, false);
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
      result.response = response;
      return result;
    }

    /** Sends a request without body; retried once on a fresh connection if a reused one was dead. */
    private Head sendBodiless(byte[] head) throws IOException {
      for (int attempt = 0; ; attempt++) {
        boolean reused = connectUpstream();
        Wire in = upstreamIn;
        long mark = in.consumed();
        try {
          upstreamOut.write(head);
          upstreamOut.flush();
          Head response = Head.read(in, false);
          if (response == null) {
            throw new EOFException("upstream closed the connection before responding");
          }
          return response;
        } catch (IOException e) {
          closeUpstream();
          if (attempt > 0 || !reused || in.consumed() != mark || closed.get()) {
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
    private Head sendExpectContinueHead(byte[] head) throws IOException {
      for (int attempt = 0; ; attempt++) {
        boolean reused = connectUpstream();
        long mark = upstreamIn.consumed();
        try {
          upstreamOut.write(head);
          upstreamOut.flush();
          return awaitUpstreamHead();
        } catch (IOException e) {
          boolean nothingReceived = upstreamIn != null && upstreamIn.consumed() == mark;
          closeUpstream();
          if (attempt > 0 || !reused || !nothingReceived || closed.get()) {
            throw e;
          }
        }
      }
    }

    /** Waits a little for the upstream's reaction to Expect: 100-continue; null if it stays silent. */
    private Head awaitUpstreamHead() throws IOException {
      upstreamSocket.setSoTimeout(EXPECT_WAIT_MILLIS);
      try {
        if (upstreamIn.fill() < 0) {
          throw new EOFException("upstream closed the connection before responding");
        }
      } catch (SocketTimeoutException e) {
        return null;
      } finally {
        if (!upstreamSocket.isClosed()) {
          upstreamSocket.setSoTimeout(0);
        }
      }
      Head head = Head.read(upstreamIn, false);
      if (head == null) {
        throw new EOFException("upstream closed the connection before responding");
      }
      return head;
    }

    /** Makes sure an upstream connection is open; true if it is one used before. */
    private boolean connectUpstream() throws IOException {
      if (upstreamSocket != null && !upstreamSocket.isClosed()
          && System.nanoTime() - upstreamIdleSince > STALE_CHECK_NANOS && isStale()) {
        closeUpstream();
      }
      if (upstreamSocket != null && !upstreamSocket.isClosed()) {
        return true;
      }
      Socket s = new Socket();
      if (!register(s)) {
        throw new InterruptedIOException("link shaper closed");
      }
      try {
        s.setTcpNoDelay(true);
        s.connect(upstreamAddress, CONNECT_TIMEOUT_MILLIS);
        upstreamSocket = s;
        upstreamIn = new Wire(s.getInputStream());
        upstreamOut = new BufferedOutputStream(s.getOutputStream(), CHUNK);
      } catch (IOException e) {
        unregister(s);
        closeQuietly(s);
        throw e;
      }
      return false;
    }

    /** An idle keep-alive connection the server has closed reads EOF at once; a live one times out. */
    private boolean isStale() {
      try {
        upstreamSocket.setSoTimeout(1);
        try {
          upstreamIn.fill();
          return true;
        } finally {
          upstreamSocket.setSoTimeout(0);
        }
      } catch (SocketTimeoutException e) {
        return false;
      } catch (IOException e) {
        return true;
      }
    }

    private void closeUpstream() {
      Socket s = upstreamSocket;
      if (s != null) {
        unregister(s);
        closeQuietly(s);
        upstreamSocket = null;
        upstreamIn = null;
        upstreamOut = null;
      }
    }

    private void copyRequestBody(Framing body) throws IOException {
      if (body.chunked()) {
        copyChunkedRequest(this::writeUpstream);
      } else {
        long left = body.length();
        while (left > 0) {
          int r = clientIn.read(buf, 0, (int) Math.min(buf.length, left));
          if (r < 0) {
            throw new EOFException("client ended the request body early");
          }
          writeUpstream(buf, 0, r);
          left -= r;
        }
      }
    }

    private void writeUpstream(byte[] b, int off, int len) throws UpstreamWriteFailed {
      try {
        upstreamOut.write(b, off, len);
      } catch (IOException e) {
        throw new UpstreamWriteFailed(e);
      }
    }

    private void discardRequestBody(Framing body) throws IOException {
      if (body.chunked()) {
        copyChunkedRequest((b, off, len) -> { });
      } else {
        long left = body.length();
        while (left > 0) {
          int r = clientIn.read(buf, 0, (int) Math.min(buf.length, left));
          if (r < 0) {
            throw new EOFException("client ended the request body early");
          }
          left -= r;
        }
      }
    }

    private void copyChunkedRequest(Sink sink) throws IOException {
      try {
        copyChunked(clientIn, sink, null);
      } catch (CutReached e) {
        throw new IllegalStateException("request bodies are never cut", e);
      }
    }

    private void relayBody(Framing body, BodyOut out) throws IOException, CutReached {
      if (body.isEmpty()) {
        return;
      }
      if (body.chunked()) {
        copyChunked(upstreamIn, out::write, out);
      } else if (body.toClose()) {
        while (true) {
          int r = upstreamIn.read(buf, 0, buf.length);
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
          int r = upstreamIn.read(buf, 0, (int) Math.min(buf.length, left));
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
    private void copyChunked(Wire in, Sink sink, BodyOut cut) throws IOException, CutReached {
      while (true) {
        String sizeLine = in.readLine(MAX_HEAD_BYTES);
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
            String trailer = in.readLine(MAX_HEAD_BYTES);
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
        String end = in.readLine(MAX_HEAD_BYTES);
        if (end == null || !end.isEmpty()) {
          throw new IOException("malformed chunked body: no CRLF after a chunk");
        }
        sink.write(CRLF, 0, CRLF.length);
      }
    }

    private void applyBodyFault(FaultKind fault) throws IOException {
      closeUpstream();
      switch (fault) {
        case RESET_MID_BODY:
          abortClient(true);
          break;
        case TRUNCATE:
          client.shutdownOutput();
          break;
        case STALL:
          stall();
          break;
        default:
          throw new IllegalStateException("not a body fault: " + fault);
      }
    }

    /** Closes the client connection, with a TCP reset if {@code reset}. */
    private void abortClient(boolean reset) throws IOException {
      closeUpstream();
      if (reset) {
        client.setSoLinger(true, 0);
      }
      client.close();
    }

    /**
     * Keeps the connection silent for stallMillis. Waits by reading the client socket, so that a client
     * that gives up ends the stall at once instead of counting as an active request until it expires.
     */
    private void stall() {
      long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(stallMillis);
      try {
        while (!closed.get()) {
          long left = deadline - System.nanoTime();
          if (left <= 0) {
            return;
          }
          client.setSoTimeout((int) Math.max(1, Math.min(Integer.MAX_VALUE, TimeUnit.NANOSECONDS.toMillis(left) + 1)));
          try {
            if (clientIn.read(buf, 0, buf.length) < 0) {
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

    private void runHooks(RequestInfo info) {
      List<Hook> matched = new ArrayList<>();
      synchronized (hooks) {
        for (Iterator<Hook> it = hooks.iterator(); it.hasNext(); ) {
          Hook h = it.next();
          if (h.match().test(info)) {
            matched.add(h);
            it.remove();
          }
        }
      }
      for (Hook h : matched) {
        try {
          h.action().run();
        } catch (RuntimeException e) {
          LOG.warn("link shaper onRequest action failed for {} {}", info.method(), info.path(), e);
        }
      }
    }

    /** Answers the client without asking the upstream. */
    private void sendLocal(int status, String reason, String xml, boolean headRequest, boolean close)
        throws IOException {
      byte[] body = xml.getBytes(StandardCharsets.UTF_8);
      StringBuilder head = new StringBuilder(256)
          .append("HTTP/1.1 ").append(status).append(' ').append(reason).append("\r\n")
          .append("Content-Type: application/xml\r\n")
          .append("Content-Length: ").append(body.length).append("\r\n")
          .append("x-amz-request-id: SLIPSTREAMSHAPER").append(requestIds.incrementAndGet()).append("\r\n");
      if (close) {
        head.append("Connection: close\r\n");
      }
      head.append("\r\n");
      responseStarted = true;
      clientOut.write(head.toString().getBytes(StandardCharsets.ISO_8859_1));
      if (!headRequest) {
        clientOut.write(body);
        bytesSent.add(body.length);
      }
    }

    /**
     * The client side of a response body: throttles, counts, and stops at the fault's cut point. The
     * cut point is {@code fraction} of the way into the body, so always short of its end.
     */
    private final class BodyOut {
      private final double fraction;
      private long cutAt = -1;
      private long sent;

      BodyOut(double fraction) {
        this.fraction = fraction;
      }

      private boolean pending() {
        return fraction >= 0 && cutAt < 0;
      }

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
        throttle(len);
        clientOut.write(b, off, len);
        sent += len;
        bytesSent.add(len);
      }
    }

    private void throttle(int len) throws IOException {
      long wait = 0;
      if (connectionBucket != null) {
        wait = connectionBucket.take(len);
      }
      if (aggregateBucket != null) {
        wait = Math.max(wait, aggregateBucket.take(len));
      }
      if (wait > 0) {
        sleepUntil(System.nanoTime() + wait);
      }
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Decisions

  private FaultKind takeScripted(RequestInfo info) {
    synchronized (scripted) {
      for (Iterator<Scripted> it = scripted.iterator(); it.hasNext(); ) {
        Scripted s = it.next();
        if (s.match().test(info)) {
          it.remove();
          return s.kind();
        }
      }
    }
    return null;
  }

  private FaultKind randomFault(String method, long key, long n) {
    double p = profile.faultProbability();
    if (p <= 0) {
      return null;
    }
    FaultKind[] kinds;
    if ("GET".equals(method)) {
      kinds = ALL_KINDS;
    } else if ("HEAD".equals(method)) {
      kinds = STATUS_KINDS;
    } else {
      return null;
    }
    if (uniform(draw(key, n, SALT_FAULT)) >= p) {
      return null;
    }
    return kinds[(int) Long.remainderUnsigned(draw(key, n, SALT_KIND), kinds.length)];
  }

  /** Lognormal around the median, clamped to [median / 4, max]. */
  private long latencyNanos(long key, long n) {
    long median = profile.latencyMedianMillis();
    if (median <= 0) {
      return 0;
    }
    double u1 = 1.0 - uniform(draw(key, n, SALT_LATENCY_1)); // (0, 1]: log() stays finite
    double u2 = uniform(draw(key, n, SALT_LATENCY_2));
    double z = Math.sqrt(-2.0 * Math.log(u1)) * Math.cos(2.0 * Math.PI * u2);
    double millis = median * Math.exp(LATENCY_SIGMA * z);
    millis = Math.max(median / 4.0, Math.min(profile.latencyMaxMillis(), millis));
    return (long) (millis * 1_000_000.0);
  }

  /** Where a body fault cuts: a fraction in [0.25, 0.75) of the body. */
  private double cutFraction(long key, long n) {
    return 0.25 + 0.5 * uniform(draw(key, n, SALT_CUT));
  }

  private long requestKey(RequestInfo info) {
    long h = 0xCBF29CE484222325L;
    h = hashField(h, info.method());
    h = hashField(h, info.path());
    h = hashField(h, info.query());
    h = hashField(h, info.range());
    return mix(h ^ mix(seed));
  }

  /** FNV-1a over the UTF-16 units, with a marker that tells null from "" and separates fields. */
  private static long hashField(long h, String s) {
    final long prime = 0x100000001B3L;
    if (s == null) {
      return (h ^ 0x1FF) * prime;
    }
    for (int i = 0; i < s.length(); i++) {
      h = (h ^ s.charAt(i)) * prime;
    }
    return (h ^ 0x1FE) * prime;
  }

  private static long draw(long key, long n, long salt) {
    return mix(key + mix(n * 0x9E3779B97F4A7C15L + salt));
  }

  /** The SplitMix64 finaliser: a cheap, well-mixed bijection on 64 bits. */
  private static long mix(long z) {
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    return z ^ (z >>> 31);
  }

  /** [0, 1) from the top 53 bits. */
  private static double uniform(long bits) {
    return (bits >>> 11) * 0x1.0p-53;
  }

  // ---------------------------------------------------------------------------------------------
  // Helpers

  private void sleepUntil(long deadlineNanos) throws IOException {
    while (true) {
      long left = deadlineNanos - System.nanoTime();
      if (left <= 0) {
        return;
      }
      if (closed.get() || Thread.currentThread().isInterrupted()) {
        throw new InterruptedIOException("link shaper closed");
      }
      LockSupport.parkNanos(left);
    }
  }

  private static void closeQuietly(AutoCloseable c) {
    try {
      c.close();
    } catch (Exception e) {
      // nothing useful to do about a failing close
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

  private interface Sink {
    void write(byte[] b, int off, int len) throws IOException, CutReached;
  }

  /** The upstream stopped taking the request body: it may have answered already. */
  private static final class UpstreamWriteFailed extends IOException {
    private static final long serialVersionUID = 1L;

    UpstreamWriteFailed(IOException cause) {
      super("upstream stopped reading the request body: " + cause.getMessage(), cause);
    }
  }

  /** Signals that a body fault's cut point was reached; stackless because it is control flow. */
  private static final class CutReached extends Exception {
    private static final long serialVersionUID = 1L;
    static final CutReached INSTANCE = new CutReached();

    private CutReached() {
      super("cut point reached", null, false, false);
    }
  }

  /**
   * A token bucket in the "debt" style: a taker may overdraw and then sleeps for the debt, so several
   * threads sharing a bucket queue up behind one another at the configured rate without a lock held
   * while sleeping. The small capacity absorbs sleep overshoot without allowing real bursts.
   */
  private static final class TokenBucket {
    private final double bytesPerNano;
    private final double capacity;
    private double tokens;
    private long last;

    TokenBucket(long bytesPerSecond) {
      this.bytesPerNano = bytesPerSecond / 1e9;
      this.capacity = Math.max(CHUNK, bytesPerSecond / 50.0);
      this.last = System.nanoTime();
    }

    /** Takes {@code n} bytes' worth; returns how many nanoseconds the caller must wait. */
    synchronized long take(int n) {
      refill();
      tokens -= n;
      return tokens >= 0 ? 0 : (long) Math.ceil(-tokens / bytesPerNano);
    }

    synchronized void drain() {
      refill();
      tokens = Math.min(tokens, 0);
    }

    private void refill() {
      long now = System.nanoTime();
      tokens = Math.min(capacity, tokens + (now - last) * bytesPerNano);
      last = now;
    }
  }

  /** How a message body is delimited. */
  private record Framing(boolean hasBody, boolean chunked, long length, boolean toClose) {
    static final Framing NONE = new Framing(false, false, 0, false);

    boolean isEmpty() {
      return !hasBody || (!chunked && !toClose && length == 0);
    }

    static Framing ofRequest(Head h) throws IOException {
      String te = h.get("transfer-encoding");
      if (te != null) {
        if (!lastCodingIsChunked(te)) {
          throw new IOException("request Transfer-Encoding without chunked: " + te);
        }
        return new Framing(true, true, -1, false);
      }
      long length = contentLength(h);
      return length > 0 ? new Framing(true, false, length, false) : NONE;
    }

    static Framing ofResponse(Head h, boolean headRequest) throws IOException {
      int status = h.status();
      if (headRequest || status < 200 || status == 204 || status == 304) {
        return NONE;
      }
      String te = h.get("transfer-encoding");
      if (te != null) {
        return lastCodingIsChunked(te) ? new Framing(true, true, -1, false) : new Framing(true, false, -1, true);
      }
      long length = contentLength(h);
      return length >= 0 ? new Framing(true, false, length, false) : new Framing(true, false, -1, true);
    }

    private static boolean lastCodingIsChunked(String te) {
      String[] codings = te.split(",");
      return codings[codings.length - 1].trim().equalsIgnoreCase("chunked");
    }

    /** -1 when absent; repeated identical values ("5, 5") are accepted. */
    private static long contentLength(Head h) throws IOException {
      String v = h.get("content-length");
      if (v == null) {
        return -1;
      }
      long length = -1;
      for (String part : v.split(",")) {
        try {
          long l = Long.parseLong(part.trim());
          if (l < 0 || (length >= 0 && l != length)) {
            throw new NumberFormatException();
          }
          length = l;
        } catch (NumberFormatException e) {
          throw new IOException("bad Content-Length: " + v);
        }
      }
      return length;
    }
  }

  /** A request or response head as received, relayed byte for byte up to line endings. */
  private static final class Head {
    private final String startLine;
    private final List<String> lines;
    private final Map<String, String> byName;

    private Head(String startLine, List<String> lines, Map<String, String> byName) {
      this.startLine = startLine;
      this.lines = lines;
      this.byName = byName;
    }

    /** Reads a head; null on a clean end of stream before its first byte. */
    static Head read(Wire in, boolean request) throws IOException {
      String start = in.readLine(MAX_HEAD_BYTES);
      // Robustness: a client may send stray empty lines between requests.
      while (start != null && request && start.isEmpty()) {
        start = in.readLine(MAX_HEAD_BYTES);
      }
      if (start == null) {
        return null;
      }
      List<String> lines = new ArrayList<>();
      Map<String, String> byName = new LinkedHashMap<>();
      int total = start.length();
      while (true) {
        String line = in.readLine(MAX_HEAD_BYTES);
        if (line == null) {
          throw new EOFException("connection closed inside a message head");
        }
        if (line.isEmpty()) {
          break;
        }
        total += line.length() + 2;
        if (total > MAX_HEAD_BYTES) {
          throw new IOException("message head larger than " + MAX_HEAD_BYTES + " bytes");
        }
        lines.add(line);
        int colon = line.indexOf(':');
        if (colon > 0) {
          String name = line.substring(0, colon).trim().toLowerCase(Locale.ROOT);
          String value = line.substring(colon + 1).trim();
          byName.merge(name, value, (a, b) -> a + ", " + b);
        }
      }
      Head head = new Head(start, lines, byName);
      try {
        if (request) {
          head.requestParts();
        } else {
          head.status();
        }
      } catch (IllegalArgumentException e) {
        throw new ProtocolException(e.getMessage());
      }
      return head;
    }

    String get(String lowerName) {
      return byName.get(lowerName);
    }

    boolean hasToken(String lowerName, String token) {
      String v = byName.get(lowerName);
      if (v == null) {
        return false;
      }
      for (String t : v.split(",")) {
        if (t.trim().equalsIgnoreCase(token)) {
          return true;
        }
      }
      return false;
    }

    /** Whether this message ends its connection, by HTTP/1.1 and HTTP/1.0 rules. */
    boolean wantsClose() {
      if (hasToken("connection", "close")) {
        return true;
      }
      String version = isRequestLine() ? requestParts()[2] : startLine.substring(0, startLine.indexOf(' '));
      return version.equalsIgnoreCase("HTTP/1.0") && !hasToken("connection", "keep-alive");
    }

    private boolean isRequestLine() {
      return !startLine.startsWith("HTTP/");
    }

    private String[] requestParts() {
      String[] parts = startLine.split(" ");
      if (parts.length != 3 || !parts[2].startsWith("HTTP/1.")) {
        throw new IllegalArgumentException("malformed request line: " + startLine);
      }
      return parts;
    }

    String method() {
      return requestParts()[0].toUpperCase(Locale.ROOT);
    }

    int status() {
      if (startLine.length() < 12 || !startLine.startsWith("HTTP/1.")) {
        throw new IllegalArgumentException("malformed status line: " + startLine);
      }
      try {
        return Integer.parseInt(startLine.substring(9, 12));
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException("malformed status line: " + startLine, e);
      }
    }

    RequestInfo toRequestInfo() {
      String target = requestParts()[1];
      // Absolute form (http://host/path) only comes from clients that think we are a forward proxy.
      int scheme = target.indexOf("://");
      if (scheme > 0 && !target.startsWith("/")) {
        int slash = target.indexOf('/', scheme + 3);
        target = slash < 0 ? "/" : target.substring(slash);
      }
      int q = target.indexOf('?');
      String path = q < 0 ? target : target.substring(0, q);
      String query = q < 0 ? null : target.substring(q + 1);
      return new RequestInfo(method(), path, query, byName);
    }

    byte[] toBytes() {
      StringBuilder sb = new StringBuilder(startLine.length() + 32 * lines.size() + 4);
      sb.append(startLine).append("\r\n");
      for (String line : lines) {
        sb.append(line).append("\r\n");
      }
      sb.append("\r\n");
      return sb.toString().getBytes(StandardCharsets.ISO_8859_1);
    }
  }

  /** A buffered input that reads head lines and then hands out body bytes without another copy when it can. */
  private static final class Wire {
    private final InputStream in;
    private final byte[] buf = new byte[8192];
    private int pos;
    private int lim;
    private long consumed;

    Wire(InputStream in) {
      this.in = in;
    }

    long consumed() {
      return consumed;
    }

    /** Buffered bytes available, reading if there are none; -1 at end of stream. */
    int fill() throws IOException {
      if (pos < lim) {
        return lim - pos;
      }
      pos = 0;
      lim = 0;
      int n = in.read(buf, 0, buf.length);
      if (n > 0) {
        lim = n;
      }
      return n;
    }

    int read(byte[] b, int off, int len) throws IOException {
      if (len == 0) {
        return 0;
      }
      int n;
      if (pos < lim) {
        n = Math.min(len, lim - pos);
        System.arraycopy(buf, pos, b, off, n);
        pos += n;
      } else {
        n = in.read(b, off, len);
      }
      if (n > 0) {
        consumed += n;
      }
      return n;
    }

    /** A line without its CR LF (a bare LF is accepted); null on end of stream before its first byte. */
    String readLine(int maxLength) throws IOException {
      StringBuilder sb = null;
      while (true) {
        if (fill() < 0) {
          if (sb == null) {
            return null;
          }
          throw new EOFException("connection closed inside a line");
        }
        int start = pos;
        int i = start;
        while (i < lim && buf[i] != '\n') {
          i++;
        }
        int end = i;
        boolean found = i < lim;
        if (sb == null) {
          sb = new StringBuilder(Math.max(16, end - start));
        }
        for (int k = start; k < end; k++) {
          sb.append((char) (buf[k] & 0xff));
        }
        int used = (found ? i + 1 : i) - start;
        pos += used;
        consumed += used;
        if (found) {
          int len = sb.length();
          if (len > 0 && sb.charAt(len - 1) == '\r') {
            sb.setLength(len - 1);
          }
          return sb.toString();
        }
        if (sb.length() > maxLength) {
          throw new IOException("line longer than " + maxLength + " bytes");
        }
      }
    }
  }
}
