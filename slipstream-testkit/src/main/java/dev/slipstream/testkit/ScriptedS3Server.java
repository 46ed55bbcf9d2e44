/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.testkit;

import com.sun.net.httpserver.Headers;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * A small S3 server that misbehaves on purpose, request by request, as a script says: the embedded
 * s3proxy is a well-behaved server, and the read path must also stand the others (see
 * {@link Misbehaviour}). HEAD and ranged GET of objects held in memory, path-style
 * ({@code /bucket/key}), no authentication, on an ephemeral port of 127.0.0.1. Well-behaved unless a
 * rule says otherwise: {@code 206} with {@code Content-Range}, quoted ETags, {@code Last-Modified},
 * {@code If-Match} and {@code If-Unmodified-Since} answered {@code 412} as S3 does. LIST (v1 and v2) as
 * {@link ScriptedListing} answers it, keeping the listing rules of directory buckets (a name ending in
 * {@code --x-s3}) and, after {@link #withoutListObjectsV2()}, of a store that knows only ListObjects v1.
 *
 * <p>The script: {@link #when} rules, each a misbehaviour for the requests a predicate picks (all rules
 * that match apply), and {@link #replaceAfterGets} to overwrite an object in the middle of a read.
 * Signatures are never checked, but who a request claims to be ({@link S3Wire#accessKeyOf}) may be refused:
 * {@link #denyKmsDecrypt} for objects under a KMS key, {@link #refuse} for any request, with S3's error
 * code; {@link #bucketInRegion} redirects requests signed for another region, as S3 does. After
 * {@link #storingWrites} it also takes PUTs and DELETEs of whole objects.
 */
public final class ScriptedS3Server implements AutoCloseable {
  private static final DateTimeFormatter HTTP_DATE = DateTimeFormatter.RFC_1123_DATE_TIME;

  /**
   * One version of an object.
   *
   * @param underKmsKey encrypted under a KMS key (SSE-KMS): its GETs need {@code kms:Decrypt}, its HEADs not
   * @param versionId its version id in a versioned bucket ({@link #versioned}), else null
   */
  private record Version(byte[] data, String etag, Instant lastModified, boolean underKmsKey, String versionId) {}

  private record Rule(Predicate<RequestInfo> when, Misbehaviour what) {}

  private record Replacement(String path, int afterGets, byte[] data) {}

  private final HttpServer http;
  private final ExecutorService threads;
  private final Map<String, Version> objects = new ConcurrentHashMap<>();
  private final List<Rule> rules = new CopyOnWriteArrayList<>();
  private final List<Replacement> replacements = new CopyOnWriteArrayList<>();
  private final Map<String, AtomicInteger> getsArrived = new ConcurrentHashMap<>();
  private final List<RequestInfo> requests = new CopyOnWriteArrayList<>();
  /** Every version of each object of a versioned bucket, oldest first. */
  private final Map<String, List<Version>> history = new ConcurrentHashMap<>();
  private final Set<String> versionedBuckets = ConcurrentHashMap.newKeySet();
  private final AtomicInteger versions = new AtomicInteger();
  /** Who is refused {@code kms:Decrypt}: see {@link #denyKmsDecrypt}. */
  private volatile Predicate<RequestInfo> noKmsDecrypt = r -> false;
  /** Ends the responses now stalled: counted down by {@link #reset()} (then replaced) and by close. */
  private volatile CountDownLatch release = new CountDownLatch(1);
  private final AtomicInteger stalled = new AtomicInteger();
  private volatile boolean listV2Known = true;
  /** Who is refused what, before anything else: see {@link #refuse}. */
  private volatile Function<RequestInfo, String> refusal = r -> null;
  /** Bucket to the region it is in: see {@link #bucketInRegion}. */
  private final Map<String, String> regions = new ConcurrentHashMap<>();
  /** Whether PUT and DELETE of an object are taken: see {@link #storingWrites}. */
  private volatile boolean storesWrites;

  private ScriptedS3Server(HttpServer http, ExecutorService threads) {
    this.http = http;
    this.threads = threads;
  }

  /** Starts a server on an ephemeral port of 127.0.0.1. */
  public static ScriptedS3Server start() {
    AtomicInteger n = new AtomicInteger();
    ExecutorService threads = Executors.newCachedThreadPool(r -> {
      Thread t = new Thread(r, "scripted-s3-" + n.incrementAndGet());
      t.setDaemon(true);
      return t;
    });
    try {
      HttpServer http = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 50);
      ScriptedS3Server server = new ScriptedS3Server(http, threads);
      http.setExecutor(threads);
      http.createContext("/", server::handle);
      http.start();
      return server;
    } catch (IOException e) {
      threads.shutdownNow();
      throw new UncheckedIOException(e);
    }
  }

  /** {@code http://127.0.0.1:port}: use with path-style access. */
  public URI endpoint() {
    return URI.create("http://127.0.0.1:" + http.getAddress().getPort());
  }

  /** Stores {@code data} as a new version of {@code bucket/key}: a new ETag, Last-Modified a minute later. */
  public void put(String bucket, String key, byte[] data) {
    put(bucket, key, data, false);
  }

  /**
   * Stores {@code data} as a new version encrypted under a KMS key (SSE-KMS), as S3 answers for one: HEAD
   * and GET say {@code x-amz-server-side-encryption: aws:kms}, and a GET by a principal that
   * {@link #denyKmsDecrypt} names is refused.
   */
  public void putUnderKmsKey(String bucket, String key, byte[] data) {
    put(bucket, key, data, true);
  }

  private void put(String bucket, String key, byte[] data, boolean underKmsKey) {
    put(bucket, key, data, S3Wire.md5(data), underKmsKey);
  }

  /**
   * Stores {@code data} as a new version with the ETag {@code etag}, whatever its bytes: as S3-compatible
   * stores whose ETags are not digests of the content may give two versions one ETag.
   */
  public void putWithEtag(String bucket, String key, byte[] data, String etag) {
    put(bucket, key, data, etag, false);
  }

  private void put(String bucket, String key, byte[] data, String etag, boolean underKmsKey) {
    String path = bucket + "/" + key;
    String id = versionedBuckets.contains(bucket) ? "v" + versions.incrementAndGet() : null;
    Version v = objects.compute(path, (p, old) -> new Version(data.clone(), etag,
        old == null ? Instant.now().truncatedTo(ChronoUnit.SECONDS).minus(1, ChronoUnit.HOURS)
            : old.lastModified.plus(1, ChronoUnit.MINUTES), underKmsKey, id));
    if (id != null) {
      history.computeIfAbsent(path, p -> new CopyOnWriteArrayList<>()).add(v);
    }
  }

  /**
   * Turns versioning on for {@code bucket}: each later version of an object gets a version id, sent as
   * {@code x-amz-version-id}, and a HEAD or GET with {@code ?versionId=} is answered from that version.
   */
  public ScriptedS3Server versioned(String bucket) {
    versionedBuckets.add(bucket);
    return this;
  }

  /**
   * The principals {@code who} picks (see {@link S3Wire#accessKeyOf}) may not use the KMS key: as S3 does, their
   * GETs of an object under it are refused with {@code 403 AccessDenied}, while their HEADs are answered,
   * since S3 asks {@code kms:Decrypt} of a GET only. Kept across {@link #reset}.
   */
  public ScriptedS3Server denyKmsDecrypt(Predicate<RequestInfo> who) {
    noKmsDecrypt = who;
    return this;
  }

  /**
   * Refuses every request (HEAD, GET, LIST, PUT, DELETE) for which {@code why} names an S3 error code, as S3
   * refuses a principal before looking at the object: {@code AccessDenied} and {@code InvalidAccessKeyId}
   * with 403, {@code ExpiredToken}, {@code InvalidToken} and any other code with 400, as S3 answers them.
   * {@code why} returns null to let the request through. Kept across {@link #reset}.
   */
  public ScriptedS3Server refuse(Function<RequestInfo, String> why) {
    refusal = why;
    return this;
  }

  /**
   * From now on a PUT of an object stores its body as a new version (an {@code aws-chunked} body decoded, as
   * the AWS SDK sends one over plain HTTP) and a DELETE removes the object: enough for a client that writes
   * small files whole. Multipart uploads and bulk deletes stay refused. Kept across {@link #reset}.
   */
  public ScriptedS3Server storingWrites() {
    storesWrites = true;
    return this;
  }

  /**
   * {@code bucket} is in {@code region}: as S3 answers a request for a bucket of another region, a request
   * signed for any other region is answered {@code 301 PermanentRedirect} with {@code x-amz-bucket-region}.
   * Kept across {@link #reset}.
   */
  public ScriptedS3Server bucketInRegion(String bucket, String region) {
    regions.put(bucket, region);
    return this;
  }

  /**
   * From now on this server is an old store that knows only ListObjects v1: a request with
   * {@code list-type=2} is refused with 400. Kept across {@link #reset()}.
   */
  public ScriptedS3Server withoutListObjectsV2() {
    listV2Known = false;
    return this;
  }

  /** Adds a rule: requests {@code when} picks get {@code what}. */
  public ScriptedS3Server when(Predicate<RequestInfo> when, Misbehaviour what) {
    rules.add(new Rule(when, what));
    return this;
  }

  /** Adds a rule for every request. */
  public ScriptedS3Server always(Misbehaviour what) {
    return when(r -> true, what);
  }

  /**
   * Once {@code n} GETs of {@code bucket/key} have arrived, the object is overwritten by {@code data}: the
   * first {@code n} GETs are answered from the old version, every later one from the new, whichever
   * finishes first. Deterministic when a client sends GETs in parallel: with more than {@code n} of them,
   * some see each version.
   */
  public ScriptedS3Server replaceAfterGets(String bucket, String key, int n, byte[] data) {
    replacements.add(new Replacement(bucket + "/" + key, n, data.clone()));
    return this;
  }

  /** Drops every rule and replacement; objects stay. */
  public void reset() {
    rules.clear();
    replacements.clear();
    getsArrived.clear();
    requests.clear();
    releaseStalled();
  }

  /** Ends every stalled response and waits (up to 5 s) until none is counted any more. */
  private void releaseStalled() {
    CountDownLatch old = release;
    release = new CountDownLatch(1);
    old.countDown();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
    while (stalled.get() > 0 && System.nanoTime() < deadline) {
      try {
        Thread.sleep(1);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
  }

  /** Every request received so far, in order. */
  public List<RequestInfo> requests() {
    return List.copyOf(requests);
  }

  /** Responses now stalled by {@link Misbehaviour#STALL_BODY} or {@link Misbehaviour#STALL_HEAD}. */
  public int stalledNow() {
    return stalled.get();
  }

  @Override
  public void close() {
    release.countDown();
    http.stop(0);
    threads.shutdownNow();
    try {
      threads.awaitTermination(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private void handle(HttpExchange ex) throws IOException {
    try (ex) {
      RequestInfo req = S3Wire.info(ex);
      requests.add(req);
      Set<Misbehaviour> bad = EnumSet.noneOf(Misbehaviour.class);
      for (Rule r : rules) {
        if (r.when.test(req)) {
          bad.add(r.what);
        }
      }
      String path = URLDecoder.decode(ex.getRequestURI().getRawPath().substring(1).replace("+", "%2B"),
          StandardCharsets.UTF_8);
      String refused = refusal.apply(req);
      if (refused != null) {
        boolean forbidden = refused.equals("AccessDenied") || refused.equals("InvalidAccessKeyId");
        S3Wire.error(ex, forbidden ? 403 : 400, refused, req.isHead());
        return;
      }
      int slash = path.indexOf('/');
      String region = regions.get(slash < 0 ? path : path.substring(0, slash));
      if (region != null && !region.equals(S3Wire.signingRegionOf(req))) {
        ex.getResponseHeaders().set("x-amz-bucket-region", region);
        S3Wire.error(ex, 301, "PermanentRedirect", req.isHead());
        return;
      }
      if (req.isGet()) {
        arrived(path);
      }
      if (storesWrites && slash > 0 && slash < path.length() - 1 && req.query() == null
          && (req.method().equals("PUT") || req.method().equals("DELETE"))) {
        write(ex, req, path, slash);
        return;
      }
      if (req.isGet() && (slash < 0 || slash == path.length() - 1)) {
        bucketRequest(ex, req, slash < 0 ? path : path.substring(0, slash));
        return;
      }
      Version v = objects.get(path);
      String askedId = S3Wire.queryParam(req.query(), "versionId");
      if (askedId != null) {
        v = history.getOrDefault(path, List.of()).stream().filter(o -> askedId.equals(o.versionId))
            .findFirst().orElse(null);
      }
      boolean head = req.isHead();
      if (!head && !req.isGet()) {
        S3Wire.error(ex, 405, "MethodNotAllowed", head);
        return;
      }
      if (v == null) {
        S3Wire.error(ex, 404, "NoSuchKey", head);
        return;
      }
      Headers h = ex.getResponseHeaders();
      if (!bad.contains(Misbehaviour.NO_ETAG)) {
        h.set("ETag", !head && bad.contains(Misbehaviour.BARE_ETAG) ? v.etag : '"' + v.etag + '"');
      }
      h.set("Last-Modified", HTTP_DATE.format(ZonedDateTime.ofInstant(v.lastModified, ZoneOffset.UTC)));
      h.set("Accept-Ranges", "bytes");
      h.set("Content-Type", "application/octet-stream");
      if (v.versionId != null) {
        h.set("x-amz-version-id", v.versionId);
      }
      if (v.underKmsKey) {
        h.set("x-amz-server-side-encryption", "aws:kms");
        h.set("x-amz-server-side-encryption-aws-kms-key-id", "arn:aws:kms:us-east-1:111122223333:key/test");
      }
      if (head) {
        if (!bad.contains(Misbehaviour.NO_CONTENT_LENGTH)) {
          h.set("Content-Length", Long.toString(v.data.length));
        }
        ex.sendResponseHeaders(200, -1);
        return;
      }
      if (bad.contains(Misbehaviour.REFUSE_CONDITIONS)
          && (req.header("if-match") != null || req.header("if-unmodified-since") != null)) {
        h.remove("ETag");
        h.remove("Last-Modified");
        S3Wire.error(ex, 501, "NotImplemented", false);
        return;
      }
      if (!bad.contains(Misbehaviour.IGNORE_CONDITIONS) && !S3Wire.conditionsHold(req, v.etag, v.lastModified)) {
        h.remove("ETag");
        h.remove("Last-Modified");
        S3Wire.error(ex, 412, "PreconditionFailed", false);
        return;
      }
      if (v.underKmsKey && noKmsDecrypt.test(req)) {
        for (String name : List.of("ETag", "Last-Modified", "x-amz-server-side-encryption",
            "x-amz-server-side-encryption-aws-kms-key-id")) {
          h.remove(name);
        }
        S3Wire.error(ex, 403, "AccessDenied", false); // as S3 answers a GET whose principal may not decrypt
        return;
      }
      if (bad.contains(Misbehaviour.STALL_HEAD)) {
        stall();
        throw new IOException("stalled request ended by reset or close");
      }
      get(ex, req, path, v, bad);
    }
  }

  /** A PUT (stores the body as a new version, answered with its ETag) or a DELETE (204, whether or not it was there). */
  private void write(HttpExchange ex, RequestInfo req, String path, int slash) throws IOException {
    if (req.method().equals("DELETE")) {
      objects.remove(path);
      ex.sendResponseHeaders(204, -1);
      return;
    }
    byte[] body = ex.getRequestBody().readAllBytes();
    String sha = req.header("x-amz-content-sha256");
    String encoding = req.header("content-encoding");
    if ((sha != null && sha.startsWith("STREAMING-")) || (encoding != null && encoding.contains("aws-chunked"))) {
      body = S3Wire.awsChunked(body);
    }
    put(path.substring(0, slash), path.substring(slash + 1), body);
    ex.getResponseHeaders().set("ETag", '"' + objects.get(path).etag + '"');
    ex.sendResponseHeaders(200, -1);
  }

  /**
   * A GET of the bucket itself: a LIST. S3 Express's CreateSession ({@code ?session}) is refused: this
   * server has no sessions, so a client must sign each request itself
   * ({@code disableS3ExpressSessionAuth}).
   */
  private void bucketRequest(HttpExchange ex, RequestInfo req, String bucket) throws IOException {
    if (req.query() != null && (req.query().equals("session") || req.query().startsWith("session&"))) {
      S3Wire.error(ex, 501, "NotImplemented", false);
      return;
    }
    List<ScriptedListing.Entry> listed = new java.util.ArrayList<>();
    String under = bucket + "/";
    objects.forEach((p, v) -> {
      if (p.startsWith(under)) {
        listed.add(new ScriptedListing.Entry(p.substring(under.length()), v.data.length, v.etag, v.lastModified));
      }
    });
    ScriptedListing.Answer a = ScriptedListing.answer(bucket, req.query(), listed, listV2Known);
    byte[] body = a.xml().getBytes(StandardCharsets.UTF_8);
    ex.getResponseHeaders().set("Content-Type", "application/xml");
    ex.sendResponseHeaders(a.status(), body.length);
    ex.getResponseBody().write(body);
  }

  /** Waits, counted as stalled, until the script is reset or the server closed. */
  private void stall() {
    CountDownLatch until = release;
    stalled.incrementAndGet();
    try {
      until.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      stalled.decrementAndGet();
    }
  }

  private void get(HttpExchange ex, RequestInfo req, String path, Version v, Set<Misbehaviour> bad)
      throws IOException {
    long[] range = S3Wire.parseRange(req.range(), v.data.length);
    boolean withLength = bad.contains(Misbehaviour.IGNORE_RANGE_WITH_LENGTH);
    if (range == null || bad.contains(Misbehaviour.IGNORE_RANGE) || withLength) {
      // The whole object; chunked when a ranged request was ignored, as the proxies that do it send it,
      // unless the script says it comes with its length.
      boolean chunked = (range != null || req.range() != null) && !withLength;
      ex.sendResponseHeaders(200, chunked ? 0 : (v.data.length == 0 ? -1 : v.data.length));
      body(ex, v.data, 0, v.data.length, bad);
      return;
    }
    if (range[0] >= v.data.length) {
      ex.getResponseHeaders().remove("ETag");
      ex.getResponseHeaders().set("Content-Range", "bytes */" + v.data.length);
      S3Wire.error(ex, 416, "InvalidRange", false);
      return;
    }
    long first = range[0];
    long last = range[1];
    if (bad.contains(Misbehaviour.SHIFT_RANGE)) {
      long len = last - first + 1;
      first = Math.min(first + 4096, v.data.length - 1);
      last = Math.min(first + len - 1, v.data.length - 1);
    }
    ex.getResponseHeaders().set("Content-Range", "bytes " + first + "-" + last + "/" + v.data.length);
    ex.sendResponseHeaders(206, last - first + 1);
    body(ex, v.data, (int) first, (int) (last - first + 1), bad);
  }

  private void body(HttpExchange ex, byte[] data, int off, int len, Set<Misbehaviour> bad) throws IOException {
    OutputStream out = ex.getResponseBody();
    if (bad.contains(Misbehaviour.STALL_BODY)) {
      out.write(data, off, len / 2);
      out.flush();
      stall();
      throw new IOException("stalled response ended by reset or close");
    }
    out.write(data, off, len);
    out.flush();
  }

  /** A GET of {@code path} arrived: replace the object first if the script says this GET sees the new one. */
  private void arrived(String path) {
    int n = getsArrived.computeIfAbsent(path, p -> new AtomicInteger()).incrementAndGet();
    for (Replacement r : replacements) {
      if (r.path.equals(path) && r.afterGets + 1 == n) {
        int slash = path.indexOf('/');
        put(path.substring(0, slash), path.substring(slash + 1), r.data);
      }
    }
  }
}
