/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.util.Objects;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
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

  private static final long CLOSE_WAIT_MILLIS = 5_000;

  private final URI upstream;
  private final LinkProfile profile;
  private final long seed;
  private final ServerSocket server;
  private final ExecutorService pool;
  private volatile long stallMillis = 10_000;

  // Shared by every ClientConnection, which reads them directly; none is part of the public API.
  final InetSocketAddress upstreamAddress;
  final ShaperLifecycle lifecycle = new ShaperLifecycle();
  final TrafficCounters counters = new TrafficCounters();
  final FaultScript script = new FaultScript();
  final RequestHooks hooks = new RequestHooks();
  final SeededDraws draws;
  final RandomFaults randomFaults;
  final LatencySampler latency;
  final LocalResponses localResponses = new LocalResponses();
  /** Null when the profile leaves aggregate bandwidth unlimited. */
  final TokenBucket aggregateBucket;
  /** The last {@link #REQUEST_LOG_SIZE} requests received, oldest first. */
  private final java.util.concurrent.ConcurrentLinkedDeque<RequestInfo> requestLog =
      new java.util.concurrent.ConcurrentLinkedDeque<>();
  private final AtomicInteger requestLogSize = new AtomicInteger();
  /** Requests {@link #requestLog()} keeps. */
  public static final int REQUEST_LOG_SIZE = 10_000;

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
    this.draws = new SeededDraws(seed);
    this.randomFaults = new RandomFaults(profile.faultProbability());
    this.latency = new LatencySampler(profile);
    this.aggregateBucket = profile.aggregateBytesPerSecond() > 0
        ? new TokenBucket(profile.aggregateBytesPerSecond(), BodyRelay.CHUNK) : null;
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
    script.add(kind, match);
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
    hooks.add(match, action);
  }

  /** Told of every response the shaper relayed whole: for latency measured alike for every client. */
  public interface ResponseListener {
    /**
     * @param status the response's status
     * @param firstByteNanos from the request's head received to the response's head sent to the client
     * @param totalNanos from the request's head received to the response's last byte sent
     */
    void responded(RequestInfo request, int status, long firstByteNanos, long totalNanos);
  }

  private final java.util.List<ResponseListener> responseListeners = new java.util.concurrent.CopyOnWriteArrayList<>();

  /**
   * Calls {@code listener} on the proxy thread after each response relayed whole (not those a fault cut
   * or replaced); it must be quick and must not throw.
   */
  public void onResponse(ResponseListener listener) {
    responseListeners.add(Objects.requireNonNull(listener, "listener"));
  }

  void responded(RequestInfo info, int status, long firstByteNanos, long totalNanos) {
    for (ResponseListener l : responseListeners) {
      l.responded(info, status, firstByteNanos, totalNanos);
    }
  }

  /**
   * The requests received so far (at most the last {@link #REQUEST_LOG_SIZE}), oldest first, whatever
   * became of them: for tests that assert which requests a read made.
   */
  public java.util.List<RequestInfo> requestLog() {
    return java.util.List.copyOf(requestLog);
  }

  /** Forgets the requests logged so far. */
  public void clearRequestLog() {
    while (requestLog.pollFirst() != null) {
      requestLogSize.decrementAndGet();
    }
  }

  /**
   * Forgets how many times each request was seen (what gives a retry fresh draws, see {@link SeededDraws}):
   * that count grows by about 80 bytes with every distinct request, so a caller that measures the heap
   * between phases clears it, or a reader that sends more distinct requests would look heavier.
   */
  public void forgetRequestCounts() {
    draws.forget();
  }

  void recordRequest(RequestInfo info) {
    requestLog.addLast(info);
    if (requestLogSize.incrementAndGet() > REQUEST_LOG_SIZE && requestLog.pollFirst() != null) {
      requestLogSize.decrementAndGet();
    }
  }

  /** All requests received, whatever became of them. */
  public long requests() {
    return counters.requests();
  }

  /** Requests received with {@code method} (case ignored). */
  public long requests(String method) {
    return counters.requests(method);
  }

  /** Faults of {@code kind} injected so far, scripted or random. */
  public long faultsInjected(FaultKind kind) {
    return counters.faultsInjected(kind);
  }

  /** Faults of all kinds injected so far. */
  public long faultsInjected() {
    return counters.faultsInjected();
  }

  /** Requests received whose response has been neither fully sent nor aborted. */
  public int activeRequests() {
    return counters.activeRequests();
  }

  public int openClientConnections() {
    return counters.openClientConnections();
  }

  /** Response body bytes written to clients (including error bodies the shaper made up). */
  public long bytesSent() {
    return counters.bytesSent();
  }

  /** Stops accepting, closes every connection and waits (bounded) for the threads to end. Idempotent. */
  @Override
  public void close() {
    if (!lifecycle.markClosed()) {
      return;
    }
    ShaperLifecycle.closeQuietly(server);
    lifecycle.closeSockets();
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

  private void acceptLoop() {
    while (!lifecycle.isClosed()) {
      Socket s;
      try {
        s = server.accept();
      } catch (IOException e) {
        if (!lifecycle.isClosed()) {
          LOG.warn("link shaper stopped accepting connections", e);
        }
        return;
      }
      counters.clientConnectionOpened();
      if (!lifecycle.register(s)) {
        counters.clientConnectionClosed();
        continue;
      }
      try {
        pool.execute(new ClientConnection(this, s));
      } catch (RejectedExecutionException e) {
        lifecycle.unregister(s);
        ShaperLifecycle.closeQuietly(s);
        counters.clientConnectionClosed();
      }
    }
  }
}
