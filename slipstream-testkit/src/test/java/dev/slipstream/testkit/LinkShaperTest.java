/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.CRC32;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 60, unit = TimeUnit.SECONDS)
class LinkShaperTest {
  private static final long DATA_SEED = 7;
  private static final int SIZE = 3 * 1024 * 1024 + 17;
  private static final byte[] DATA = TestData.bytes(DATA_SEED, SIZE);
  private static final Pattern RANGE = Pattern.compile("bytes=(\\d+)-(\\d*)");

  private HttpServer upstream;
  private ExecutorService upstreamExecutor;
  private final Map<String, byte[]> objects = new ConcurrentHashMap<>();
  private final AtomicInteger upstreamRequests = new AtomicInteger();
  private final Set<Integer> upstreamClientPorts = ConcurrentHashMap.newKeySet();
  private final List<LinkShaper> shapers = new ArrayList<>();
  private HttpClient client;

  @BeforeEach
  void startUpstream() throws IOException {
    objects.put("/b/obj", DATA);
    objects.put("/b/empty", new byte[0]);
    upstream = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 64);
    upstreamExecutor = Executors.newCachedThreadPool();
    upstream.setExecutor(upstreamExecutor);
    upstream.createContext("/b/", this::serve);
    upstream.start();
    client = newClient();
  }

  @AfterEach
  void stopAll() {
    shapers.forEach(LinkShaper::close);
    upstream.stop(0);
    upstreamExecutor.shutdownNow();
  }

  private static HttpClient newClient() {
    return HttpClient.newBuilder()
        .version(HttpClient.Version.HTTP_1_1)
        .connectTimeout(Duration.ofSeconds(10))
        .build();
  }

  private URI upstreamUri() {
    return URI.create("http://127.0.0.1:" + upstream.getAddress().getPort());
  }

  private LinkShaper shaper(LinkProfile profile, long seed) {
    LinkShaper s = LinkShaper.start(upstreamUri(), profile, seed);
    shapers.add(s);
    return s;
  }

  /** GET/HEAD of stored objects with single ranges, PUT echoing "length crc32", chunked GET at /b/chunked. */
  private void serve(HttpExchange ex) throws IOException {
    try (ex) {
      upstreamRequests.incrementAndGet();
      upstreamClientPorts.add(ex.getRemoteAddress().getPort());
      String path = ex.getRequestURI().getRawPath();
      String method = ex.getRequestMethod();
      if (method.equals("PUT") && path.equals("/b/reject")) {
        // Answers without reading the body, as S3 does on a bad signature; the server then drops the
        // connection because the unread body is too large to drain.
        byte[] answer = "<Error><Code>AccessDenied</Code></Error>".getBytes(StandardCharsets.US_ASCII);
        ex.sendResponseHeaders(403, answer.length);
        ex.getResponseBody().write(answer);
        return;
      }
      if (method.equals("PUT")) {
        byte[] body = ex.getRequestBody().readAllBytes();
        CRC32 crc = new CRC32();
        crc.update(body);
        byte[] answer = (body.length + " " + crc.getValue()).getBytes(StandardCharsets.US_ASCII);
        ex.sendResponseHeaders(200, answer.length);
        ex.getResponseBody().write(answer);
        return;
      }
      if (path.equals("/b/chunked")) {
        ex.sendResponseHeaders(200, 0);
        try (OutputStream out = ex.getResponseBody()) {
          for (int off = 0; off < SIZE; off += 100_000) {
            out.write(DATA, off, Math.min(100_000, SIZE - off));
            out.flush();
          }
        }
        return;
      }
      byte[] data = objects.get(path);
      if (data == null) {
        ex.sendResponseHeaders(404, -1);
        return;
      }
      int from = 0;
      int to = data.length - 1;
      int status = 200;
      String range = ex.getRequestHeaders().getFirst("Range");
      if (range != null) {
        Matcher m = RANGE.matcher(range);
        if (!m.matches()) {
          ex.sendResponseHeaders(416, -1);
          return;
        }
        from = Integer.parseInt(m.group(1));
        to = m.group(2).isEmpty() ? data.length - 1 : Math.min(data.length - 1, Integer.parseInt(m.group(2)));
        status = 206;
        ex.getResponseHeaders().set("Content-Range", "bytes " + from + "-" + to + "/" + data.length);
      }
      int length = to - from + 1;
      if (method.equals("HEAD")) {
        ex.getResponseHeaders().set("Content-Length", Integer.toString(length));
        ex.sendResponseHeaders(status, -1);
        return;
      }
      ex.sendResponseHeaders(status, length == 0 ? -1 : length);
      ex.getResponseBody().write(data, from, length);
    }
  }

  /** What the client saw: a status and body, or a failure after {@code body} bytes. */
  private record Outcome(int status, long declaredLength, byte[] body, IOException failure) {
    boolean completed() {
      return failure == null && (declaredLength < 0 || body.length == declaredLength);
    }

    String summary() {
      return completed() ? Integer.toString(status) : "failed";
    }
  }

  private static Outcome fetch(HttpClient c, URI base, String method, String path, String range) {
    HttpRequest.Builder b = HttpRequest.newBuilder(base.resolve(path)).timeout(Duration.ofSeconds(20))
        .method(method, HttpRequest.BodyPublishers.noBody());
    if (range != null) {
      b.header("Range", range);
    }
    HttpResponse<InputStream> response;
    try {
      response = c.send(b.build(), HttpResponse.BodyHandlers.ofInputStream());
    } catch (IOException e) {
      return new Outcome(-1, -1, new byte[0], e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
    long declared = response.headers().firstValueAsLong("Content-Length").orElse(-1);
    if (method.equals("HEAD")) {
      declared = 0;
    }
    ByteArrayOutputStream body = new ByteArrayOutputStream();
    byte[] buf = new byte[65536];
    try (InputStream in = response.body()) {
      for (int n; (n = in.read(buf)) >= 0; ) {
        body.write(buf, 0, n);
      }
    } catch (IOException e) {
      return new Outcome(response.statusCode(), declared, body.toByteArray(), e);
    }
    return new Outcome(response.statusCode(), declared, body.toByteArray(), null);
  }

  private Outcome get(LinkShaper s, String path, String range) {
    return fetch(client, s.endpoint(), "GET", path, range);
  }

  private static void assertBytes(byte[] actual, int from, int length) {
    assertThat(actual).hasSize(length);
    assertThat(TestData.firstMismatch(DATA_SEED, from, actual, 0, length)).as("first mismatching offset").isEqualTo(-1);
  }

  private static void await(BooleanSupplier condition, String what) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("timed out waiting until " + what);
      }
      Thread.sleep(10);
    }
  }

  // ---------------------------------------------------------------------------------------------

  @Test
  void passesFullAndRangedReadsUnchangedOverOneKeptAliveConnection() throws Exception {
    LinkShaper s = shaper(LinkProfile.LOOPBACK, 1);

    Outcome full = get(s, "/b/obj", null);
    assertThat(full.status()).isEqualTo(200);
    assertBytes(full.body(), 0, SIZE);

    Outcome ranged = get(s, "/b/obj", "bytes=100-200099");
    assertThat(ranged.status()).isEqualTo(206);
    assertBytes(ranged.body(), 100, 200_000);

    Outcome tail = get(s, "/b/obj", "bytes=" + (SIZE - 10) + "-");
    assertBytes(tail.body(), SIZE - 10, 10);

    Outcome head = fetch(client, s.endpoint(), "HEAD", "/b/obj", null);
    assertThat(head.status()).isEqualTo(200);
    assertThat(head.body()).isEmpty();

    Outcome empty = get(s, "/b/empty", null);
    assertThat(empty.status()).isEqualTo(200);
    assertThat(empty.body()).isEmpty();

    Outcome missing = get(s, "/b/missing", null);
    assertThat(missing.status()).isEqualTo(404);

    for (int i = 0; i < 5; i++) {
      assertBytes(get(s, "/b/obj", "bytes=" + (i * 1000) + "-" + (i * 1000 + 4095)).body(), i * 1000, 4096);
    }

    assertThat(s.requests()).isEqualTo(11);
    assertThat(s.requests("GET")).isEqualTo(10);
    assertThat(s.requests("head")).isEqualTo(1);
    assertThat(s.faultsInjected()).isZero();
    assertThat(s.openClientConnections()).as("keep-alive: one client connection").isEqualTo(1);
    assertThat(upstreamClientPorts).as("one upstream connection per client connection").hasSize(1);
    // The client may see the last bytes an instant before the shaper counts them.
    long expectedBytes = SIZE + 200_000 + 10 + 5 * 4096;
    await(() -> s.bytesSent() == expectedBytes, "bytesSent() is " + expectedBytes);
  }

  @Test
  void servesSeveralConnectionsAtOnce() throws Exception {
    LinkShaper s = shaper(LinkProfile.LOOPBACK, 1);
    ExecutorService threads = Executors.newFixedThreadPool(8);
    try {
      List<CompletableFuture<Void>> all = new ArrayList<>();
      for (int i = 0; i < 16; i++) {
        int from = i * 150_000;
        int length = 150_000 + i;
        all.add(CompletableFuture.runAsync(() -> {
          Outcome o = get(s, "/b/obj", "bytes=" + from + "-" + (from + length - 1));
          assertThat(o.status()).isEqualTo(206);
          assertBytes(o.body(), from, length);
        }, threads));
      }
      CompletableFuture.allOf(all.toArray(new CompletableFuture<?>[0])).get(30, TimeUnit.SECONDS);
    } finally {
      threads.shutdownNow();
    }
    assertThat(s.requests()).isEqualTo(16);
    assertThat(upstreamClientPorts.size()).isGreaterThan(1);
  }

  @Test
  void forwardsRequestBodiesWithLengthChunkedAndExpectContinue() throws Exception {
    LinkShaper s = shaper(LinkProfile.LOOPBACK, 1);
    byte[] payload = TestData.bytes(99, 1_500_000);
    CRC32 crc = new CRC32();
    crc.update(payload);
    String expected = payload.length + " " + crc.getValue();
    URI put = s.endpoint().resolve("/b/put");

    HttpResponse<String> sized = client.send(HttpRequest.newBuilder(put)
        .PUT(HttpRequest.BodyPublishers.ofByteArray(payload)).build(), HttpResponse.BodyHandlers.ofString());
    assertThat(sized.body()).isEqualTo(expected);

    HttpResponse<String> chunked = client.send(HttpRequest.newBuilder(put)
        .PUT(HttpRequest.BodyPublishers.ofInputStream(() -> new ByteArrayInputStream(payload))).build(),
        HttpResponse.BodyHandlers.ofString());
    assertThat(chunked.body()).isEqualTo(expected);

    HttpResponse<String> continued = client.send(HttpRequest.newBuilder(put).expectContinue(true)
        .PUT(HttpRequest.BodyPublishers.ofByteArray(payload)).build(), HttpResponse.BodyHandlers.ofString());
    assertThat(continued.statusCode()).isEqualTo(200);
    assertThat(continued.body()).isEqualTo(expected);

    // The connection is still in step after all three.
    assertBytes(get(s, "/b/obj", "bytes=0-999").body(), 0, 1000);
    assertThat(s.requests("PUT")).isEqualTo(3);
  }

  @Test
  void relaysAnAnswerGivenBeforeTheRequestBodyWasRead() throws Exception {
    LinkShaper s = shaper(LinkProfile.LOOPBACK, 1);
    byte[] payload = TestData.bytes(99, 4_000_000);
    for (boolean expect : new boolean[] {false, true}) {
      HttpResponse<String> r = newClient().send(HttpRequest.newBuilder(s.endpoint().resolve("/b/reject"))
          .expectContinue(expect).timeout(Duration.ofSeconds(20))
          .PUT(HttpRequest.BodyPublishers.ofByteArray(payload)).build(), HttpResponse.BodyHandlers.ofString());
      assertThat(r.statusCode()).as("expect %s", expect).isEqualTo(403);
      assertThat(r.body()).contains("AccessDenied");
    }
    assertBytes(get(s, "/b/obj", "bytes=0-9").body(), 0, 10);
  }

  @Test
  void relaysChunkedResponses() {
    LinkShaper s = shaper(LinkProfile.LOOPBACK, 1);
    Outcome o = get(s, "/b/chunked", null);
    assertThat(o.status()).isEqualTo(200);
    assertBytes(o.body(), 0, SIZE);
    assertBytes(get(s, "/b/obj", "bytes=5-9").body(), 5, 5);
  }

  @Test
  void relaysBodiesDelimitedByTheConnectionClosing() throws Exception {
    byte[] payload = TestData.bytes(DATA_SEED, 200_000);
    try (ServerSocket raw = new ServerSocket(0, 8, InetAddress.getLoopbackAddress())) {
      Thread t = new Thread(() -> {
        try (Socket s = raw.accept()) {
          InputStream in = s.getInputStream();
          // Read the request head up to the empty line.
          int state = 0;
          while (state < 4) {
            int c = in.read();
            if (c < 0) {
              return;
            }
            state = (c == '\r' && (state == 0 || state == 2)) || (c == '\n' && (state == 1 || state == 3))
                ? state + 1 : 0;
          }
          OutputStream out = s.getOutputStream();
          out.write("HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
          out.write(payload);
        } catch (IOException e) {
          // the test fails on the client side
        }
      }, "raw-upstream");
      t.setDaemon(true);
      t.start();
      LinkShaper s = LinkShaper.start(URI.create("http://127.0.0.1:" + raw.getLocalPort()), LinkProfile.LOOPBACK, 1);
      shapers.add(s);
      Outcome o = get(s, "/x", null);
      assertThat(o.failure()).isNull();
      assertBytes(o.body(), 0, payload.length);
      t.join(10_000);
    }
  }

  @Test
  void status503AnswersWithSlowDownWithoutAskingTheServer() {
    LinkShaper s = shaper(LinkProfile.LOOPBACK, 1);
    s.injectNext(FaultKind.STATUS_503, RequestInfo::isGet);

    HttpResponse<String> r = sendString(s, "/b/obj");
    assertThat(r.statusCode()).isEqualTo(503);
    assertThat(r.body()).isEqualTo(
        "<Error><Code>SlowDown</Code><Message>Please reduce your request rate.</Message></Error>");
    assertThat(r.headers().firstValue("Content-Type")).hasValue("application/xml");
    assertThat(r.headers().firstValueAsLong("Content-Length")).hasValue(r.body().length());
    assertThat(upstreamRequests.get()).as("not forwarded").isZero();
    assertThat(s.faultsInjected(FaultKind.STATUS_503)).isEqualTo(1);

    // One shot, and the connection stays usable.
    assertBytes(get(s, "/b/obj", "bytes=0-99").body(), 0, 100);
    assertThat(s.openClientConnections()).isEqualTo(1);
  }

  @Test
  void status403AnswersWithAccessDeniedWithoutAskingTheServer() {
    LinkShaper s = shaper(LinkProfile.LOOPBACK, 1);
    s.injectNext(FaultKind.STATUS_403, RequestInfo::isGet);

    HttpResponse<String> r = sendString(s, "/b/obj");
    assertThat(r.statusCode()).isEqualTo(403);
    assertThat(r.body()).isEqualTo("<Error><Code>AccessDenied</Code><Message>Access Denied</Message></Error>");
    assertThat(upstreamRequests.get()).as("not forwarded").isZero();
    assertThat(s.faultsInjected(FaultKind.STATUS_403)).isEqualTo(1);
    assertBytes(get(s, "/b/obj", "bytes=0-99").body(), 0, 100);
  }

  @Test
  void status500AnswersWithInternalErrorAlsoForHead() {
    LinkShaper s = shaper(LinkProfile.LOOPBACK, 1);
    s.injectNext(FaultKind.STATUS_500, RequestInfo::isGet);
    s.injectNext(FaultKind.STATUS_500, RequestInfo::isHead);

    HttpResponse<String> r = sendString(s, "/b/obj");
    assertThat(r.statusCode()).isEqualTo(500);
    assertThat(r.body()).startsWith("<Error><Code>InternalError</Code>");
    assertThat(r.headers().firstValue("Content-Type")).hasValue("application/xml");

    Outcome head = fetch(client, s.endpoint(), "HEAD", "/b/obj", null);
    assertThat(head.status()).isEqualTo(500);
    assertThat(head.body()).isEmpty();
    assertThat(upstreamRequests.get()).isZero();
    assertThat(s.faultsInjected(FaultKind.STATUS_500)).isEqualTo(2);
    assertThat(s.faultsInjected()).isEqualTo(2);
  }

  @Test
  void queuedFaultsApplyInOrderToMatchingRequestsOnly() {
    LinkShaper s = shaper(LinkProfile.LOOPBACK, 1);
    s.injectNext(FaultKind.STATUS_503, r -> r.path().equals("/b/obj"));
    s.injectNext(FaultKind.STATUS_500, r -> r.path().equals("/b/obj"));
    s.injectNext(FaultKind.STATUS_500, r -> "bytes=1-2".equals(r.range()));

    assertThat(get(s, "/b/empty", null).status()).isEqualTo(200);
    assertThat(get(s, "/b/obj", null).status()).isEqualTo(503);
    assertThat(get(s, "/b/obj", null).status()).isEqualTo(500);
    assertThat(get(s, "/b/obj", "bytes=0-1").status()).isEqualTo(206);
    assertThat(get(s, "/b/empty", "bytes=1-2").status()).isEqualTo(500);
    assertThat(get(s, "/b/obj", "bytes=1-2").status()).isEqualTo(206);
  }

  @Test
  void responseListenersSeeEachResponseRelayedWholeWithItsLatencies() throws Exception {
    // Latency median and max 40 ms: every sample lies in [10, 40] ms (a quarter of the median is the floor).
    LinkShaper s = shaper(LinkProfile.LOOPBACK.withLatency(40, 40), 5);
    List<long[]> seen = new java.util.concurrent.CopyOnWriteArrayList<>();
    s.onResponse((info, status, firstByte, total) -> seen.add(new long[] {status, firstByte, total}));
    for (int i = 0; i < 5; i++) {
      assertBytes(get(s, "/b/obj", "bytes=0-99999").body(), 0, 100_000);
    }
    await(() -> seen.size() == 5, "five responses reported");
    for (long[] r : seen) {
      assertThat(r[0]).isEqualTo(206);
      assertThat(r[1]).as("first byte, ns").isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(10));
      assertThat(r[2]).as("total, ns").isGreaterThanOrEqualTo(r[1]);
    }
    // A response a fault cut is not one relayed whole: not reported.
    s.injectNext(FaultKind.TRUNCATE, RequestInfo::isGet);
    assertThat(get(s, "/b/obj", null).completed()).isFalse();
    assertBytes(get(s, "/b/obj", "bytes=10-19").body(), 10, 10);
    await(() -> seen.size() == 6, "the next whole response reported");
    assertThat(seen).hasSize(6);
  }

  @Test
  void truncateSendsLessThanContentLengthThenCloses() {
    LinkShaper s = shaper(LinkProfile.LOOPBACK, 1);
    s.injectNext(FaultKind.TRUNCATE, RequestInfo::isGet);

    Outcome o = get(s, "/b/obj", null);
    assertThat(o.status()).isEqualTo(200);
    assertThat(o.declaredLength()).isEqualTo(SIZE);
    assertThat(o.completed()).isFalse();
    assertThat(o.body().length).isLessThan(SIZE);
    assertBytes(o.body(), 0, o.body().length);
    assertThat(s.faultsInjected(FaultKind.TRUNCATE)).isEqualTo(1);

    assertBytes(get(s, "/b/obj", "bytes=10-19").body(), 10, 10);
  }

  @Test
  void resetMidBodyFailsTheRead() {
    LinkShaper s = shaper(LinkProfile.LOOPBACK, 1);
    s.injectNext(FaultKind.RESET_MID_BODY, RequestInfo::isGet);

    Outcome o = get(s, "/b/obj", null);
    assertThat(o.failure()).isNotNull();
    assertThat(o.body().length).isLessThan(SIZE);
    assertBytes(o.body(), 0, o.body().length);
    assertThat(s.faultsInjected(FaultKind.RESET_MID_BODY)).isEqualTo(1);

    assertBytes(get(s, "/b/obj", null).body(), 0, SIZE);
  }

  @Test
  void stallStopsTheBodyThenCloses() throws Exception {
    LinkShaper s = shaper(LinkProfile.LOOPBACK, 1);
    s.stallMillis(300);
    assertThat(s.stallMillis()).isEqualTo(300);
    s.injectNext(FaultKind.STALL, RequestInfo::isGet);

    Outcome o = get(s, "/b/obj", null);
    assertThat(o.status()).isEqualTo(200);
    assertThat(o.completed()).isFalse();
    assertBytes(o.body(), 0, o.body().length);
    assertThat(s.faultsInjected(FaultKind.STALL)).isEqualTo(1);
    await(() -> s.activeRequests() == 0, "the stalled request is over");

    assertBytes(get(s, "/b/obj", "bytes=0-9").body(), 0, 10);
  }

  @Test
  void bodyFaultOnAnEmptyBodyClosesBeforeTheHead() throws Exception {
    LinkShaper s = shaper(LinkProfile.LOOPBACK, 1);
    for (FaultKind kind : new FaultKind[] {FaultKind.TRUNCATE, FaultKind.STALL, FaultKind.RESET_MID_BODY}) {
      s.injectNext(kind, RequestInfo::isGet);
      byte[] answer = rawExchange(s, "GET /b/empty HTTP/1.1\r\nHost: example\r\n\r\n", Integer.MAX_VALUE, false);
      assertThat(answer).as(kind.name()).isEmpty();
    }
    assertThat(s.faultsInjected()).isEqualTo(3);
  }

  @Test
  void onRequestHookRunsBeforeTheRequestIsForwarded() {
    LinkShaper s = shaper(LinkProfile.LOOPBACK, 1);
    byte[] replacement = TestData.bytes(1234, 5000);
    objects.put("/b/mutable", TestData.bytes(DATA_SEED, 5000));
    assertBytes(get(s, "/b/mutable", null).body(), 0, 5000);

    AtomicInteger upstreamSeenByHook = new AtomicInteger(-1);
    s.onRequest(r -> r.path().equals("/b/mutable") && "bytes=0-99".equals(r.range()), () -> {
      upstreamSeenByHook.set(upstreamRequests.get());
      objects.put("/b/mutable", replacement);
    });
    int before = upstreamRequests.get();
    assertBytes(get(s, "/b/mutable", "bytes=100-199").body(), 100, 100);

    Outcome changed = get(s, "/b/mutable", "bytes=0-99");
    assertThat(changed.body()).containsExactly(Arrays.copyOfRange(replacement, 0, 100));
    assertThat(upstreamSeenByHook.get()).as("upstream requests when the hook ran").isEqualTo(before + 1);

    // One shot: putting the old contents back is not undone.
    objects.put("/b/mutable", TestData.bytes(DATA_SEED, 5000));
    assertBytes(get(s, "/b/mutable", "bytes=0-99").body(), 0, 100);
  }

  @Test
  void randomFaultsAreDeterministicGivenTheSeedAndFreshOnRetry() {
    LinkProfile profile = LinkProfile.FLAKY.withFaultProbability(0.3);
    List<String> first = runSequence(shaper(profile, 42));
    List<String> second = runSequence(shaper(profile, 42));
    assertThat(second).isEqualTo(first);
    for (FaultKind kind : FaultKind.values()) {
      assertThat(shapers.get(1).faultsInjected(kind)).as(kind.name()).isEqualTo(shapers.get(0).faultsInjected(kind));
    }
    assertThat(shapers.get(0).faultsInjected()).isPositive();
    assertThat(first).contains("206");
    // The last 16 entries are one identical request repeated: retries get fresh decisions.
    assertThat(new HashSet<>(first.subList(first.size() - 16, first.size()))).hasSizeGreaterThan(1);
  }

  private static List<String> runSequence(LinkShaper s) {
    s.stallMillis(50);
    HttpClient c = newClient();
    List<String> outcomes = new ArrayList<>();
    for (int i = 0; i < 24; i++) {
      String method = i % 6 == 5 ? "HEAD" : "GET";
      int from = (i % 4) * 10_000;
      Outcome o = fetch(c, s.endpoint(), method, "/b/obj", "bytes=" + from + "-" + (from + 20_000 - 1));
      if (o.completed() && o.status() == 206 && method.equals("GET")) {
        assertBytes(o.body(), from, 20_000);
      }
      outcomes.add(method + " " + o.summary());
    }
    for (int i = 0; i < 16; i++) {
      outcomes.add(fetch(c, s.endpoint(), "GET", "/b/obj", "bytes=0-9999").summary());
    }
    return outcomes;
  }

  @Test
  void shapedLinksStillDeliverEveryByte() throws Exception {
    LinkShaper slow = shaper(LinkProfile.LOOPBACK.withBandwidth(4_000_000, 8_000_000), 3);
    ExecutorService threads = Executors.newFixedThreadPool(3);
    try {
      List<CompletableFuture<Void>> all = new ArrayList<>();
      for (int i = 0; i < 3; i++) {
        int from = i * 300_000;
        all.add(CompletableFuture.runAsync(() -> {
          Outcome o = get(slow, "/b/obj", "bytes=" + from + "-" + (from + 700_000 - 1));
          assertBytes(o.body(), from, 700_000);
        }, threads));
      }
      CompletableFuture.allOf(all.toArray(new CompletableFuture<?>[0])).get(30, TimeUnit.SECONDS);
    } finally {
      threads.shutdownNow();
    }
    await(() -> slow.bytesSent() == 3 * 700_000, "every byte is counted");

    LinkShaper s3 = shaper(LinkProfile.S3_LIKE, 3);
    for (int i = 0; i < 4; i++) {
      assertBytes(get(s3, "/b/obj", "bytes=" + i + "-" + (i + 65_535)).body(), i, 65_536);
    }
    assertBytes(get(s3, "/b/obj", null).body(), 0, SIZE);
  }

  @Test
  void aClientThatGoesAwayMidResponseLeavesNothingInFlight() throws Exception {
    LinkShaper s = shaper(LinkProfile.LOOPBACK.withBandwidth(2_000_000, 0), 1);
    byte[] partial = rawExchange(s, "GET /b/obj HTTP/1.1\r\nHost: example\r\n\r\n", 100_000, true);
    assertThat(partial.length).isGreaterThanOrEqualTo(100_000);
    await(() -> s.activeRequests() == 0 && s.openClientConnections() == 0, "the aborted exchange is cleaned up");

    // And after an orderly close too.
    rawExchange(s, "GET /b/obj HTTP/1.1\r\nHost: example\r\n\r\n", 50_000, false);
    await(() -> s.activeRequests() == 0 && s.openClientConnections() == 0, "the closed exchange is cleaned up");
  }

  @Test
  void closeStopsEveryThreadAndIsIdempotent() throws Exception {
    LinkShaper s = LinkShaper.start(upstreamUri(), LinkProfile.S3_LIKE, 1);
    assertBytes(get(s, "/b/obj", "bytes=0-999").body(), 0, 1000);
    assertThat(s.openClientConnections()).isEqualTo(1);
    assertThat(liveShaperThreads()).isNotEmpty();
    s.close();
    s.close();
    await(() -> liveShaperThreads().isEmpty(), "no link-shaper thread is left");
    assertThat(s.activeRequests()).isZero();
    assertThat(s.openClientConnections()).isZero();
  }

  private static List<String> liveShaperThreads() {
    List<String> names = new ArrayList<>();
    for (Thread t : Thread.getAllStackTraces().keySet()) {
      if (t.isAlive() && t.getName().startsWith("link-shaper")) {
        names.add(t.getName());
      }
    }
    return names;
  }

  @Test
  void profilesByName() {
    assertThat(LinkProfile.named("s3-like")).isEqualTo(LinkProfile.S3_LIKE);
    assertThat(LinkProfile.named("flaky").faultProbability()).isEqualTo(0.02);
    assertThat(LinkProfile.named("loopback")).isEqualTo(LinkProfile.LOOPBACK);
    assertThat(LinkProfile.named("heavy-tail").withTail(0, 0, 0).withName("s3-like")).isEqualTo(LinkProfile.S3_LIKE);
    assertThat(LinkProfile.S3_LIKE.perConnectionBytesPerSecond()).isEqualTo(25_000_000L);
    assertThat(LinkProfile.S3_LIKE.aggregateBytesPerSecond()).isEqualTo(300_000_000L);
    assertThatThrownBy(() -> LinkProfile.named("fast"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("fast")
        .hasMessageContaining("s3-like, flaky, heavy-tail, loopback");
    assertThat(LinkProfile.FLAKY.withoutLatency().latencyMedianMillis()).isZero();
    assertThatThrownBy(() -> LinkProfile.LOOPBACK.withFaultProbability(1.5))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void requestInfoHelpers() {
    RequestInfo info = new RequestInfo("GET", "/b/k", null, Map.of("Range", "bytes=0-1"));
    assertThat(info.range()).isEqualTo("bytes=0-1");
    assertThat(info.isGet()).isTrue();
    assertThat(info.header("RANGE")).isEqualTo("bytes=0-1");
    assertThat(new RequestInfo("HEAD", "/", "a=b", Map.of()).range()).isNull();
  }

  // ---------------------------------------------------------------------------------------------

  private HttpResponse<String> sendString(LinkShaper s, String path) {
    try {
      return client.send(HttpRequest.newBuilder(s.endpoint().resolve(path)).timeout(Duration.ofSeconds(20)).build(),
          HttpResponse.BodyHandlers.ofString());
    } catch (IOException e) {
      throw new AssertionError(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }

  /**
   * Sends {@code request} on a fresh socket and reads until {@code limit} bytes, the end of the stream
   * or a failure; then closes the socket, with a reset if {@code reset}.
   */
  private static byte[] rawExchange(LinkShaper s, String request, int limit, boolean reset) throws IOException {
    ByteArrayOutputStream got = new ByteArrayOutputStream();
    try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), s.port())) {
      socket.setSoTimeout(20_000);
      socket.getOutputStream().write(request.getBytes(StandardCharsets.US_ASCII));
      InputStream in = socket.getInputStream();
      byte[] buf = new byte[16384];
      try {
        while (got.size() < limit) {
          int n = in.read(buf);
          if (n < 0) {
            break;
          }
          got.write(buf, 0, n);
        }
      } catch (IOException e) {
        // a reset: what arrived before it is the answer
      }
      if (reset) {
        socket.setSoLinger(true, 0);
      }
    }
    return got.toByteArray();
  }
}
