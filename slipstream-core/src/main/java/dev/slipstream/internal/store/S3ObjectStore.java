/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.store;

import dev.slipstream.ObjectChangedException;
import dev.slipstream.RetryCause;
import dev.slipstream.S3Location;
import dev.slipstream.SlipstreamConfig;
import dev.slipstream.internal.util.ETag;
import java.io.EOFException;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InputStream;
import java.net.SocketTimeoutException;
import java.nio.file.AccessDeniedException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.core.io.SdkFilterInputStream;
import software.amazon.awssdk.core.sync.ResponseTransformer;
import software.amazon.awssdk.http.Abortable;
import software.amazon.awssdk.http.AbortableInputStream;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.GetObjectRequest;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;
import software.amazon.awssdk.services.s3.model.HeadObjectResponse;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Request;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Response;
import software.amazon.awssdk.services.s3.model.S3Exception;

/**
 * {@link ObjectStore} over a synchronous AWS SDK for Java v2 client: synchronous, because every call
 * already runs on the shared fetch executor, and abortable from another thread, which {@code close()}
 * needs. Uses only SDK calls present since 2.20, so that it also runs on the SDK that Hadoop 3.4.1
 * ships, with the client S3A built.
 *
 * <p>A GET's body is not the SDK's {@code ResponseInputStream}: from SDK 2.30 on, each of those schedules a
 * task that aborts it if it is not read within 60 s, on one JVM-wide scheduler that keeps a cancelled task
 * queued until its time (about 80 bytes a GET, for a minute: 4.8 MB at 1,000 GETs a second, in the samples
 * of a heap that should stay flat). Every body here is read at once or aborted, and a stalled one fails by
 * the socket timeout ({@code stall.timeout}), so {@link UntimedBody} reads it as that stream would, an
 * interrupt aborting it, without the task.
 */
public final class S3ObjectStore implements ObjectStore {
  private final S3Client s3;
  /** The client of GETs: {@link #s3}, or one built for them ({@link S3ClientFactory#createForReads}). */
  private final S3Client reads;
  private final boolean ownsClient;
  /** The SSE-C key every GET and HEAD carries, or {@link SseCustomerKey#NONE}. */
  private final SseCustomerKey customerKey;
  /**
   * The access point (ARN or alias) that requests for a bucket are sent to instead of the bucket, by the
   * bucket's name. Only the request's bucket changes: what is read, cached and reported stays the
   * object's own {@code s3://bucket/key}.
   */
  private final Map<String, String> accessPoints;

  private S3ObjectStore(S3Client s3, S3Client reads, boolean ownsClient, SseCustomerKey customerKey,
      Map<String, String> accessPoints) {
    this.s3 = s3;
    this.reads = reads;
    this.ownsClient = ownsClient;
    this.customerKey = customerKey;
    this.accessPoints = Map.copyOf(accessPoints);
  }

  /**
   * A store over a caller's clients, neither closed with it: {@code reads} for the GETs (ideally one
   * without a socket timeout, as {@link S3ClientFactory#createForReads} builds; or {@code s3} itself),
   * {@code s3} for HEAD and LIST; every GET and HEAD carrying {@code customerKey}; every request for a
   * bucket among {@code accessPoints}' keys sent to its access point instead; each request made inside
   * the scope that {@code enter} enters and returns the way out of; {@code enter} null: no scope.
   */
  public static ObjectStore over(S3Client s3, S3Client reads, SseCustomerKey customerKey,
      Map<String, String> accessPoints, java.util.function.Supplier<Runnable> enter) {
    return scoped(new S3ObjectStore(s3, reads, false, customerKey, accessPoints), enter);
  }

  /**
   * A store over new S3 clients built from {@code config} and closed with it: one for HEAD and LIST,
   * one for the GETs ({@link S3ClientFactory#createForReads}); every GET and HEAD carrying the config's
   * {@code sse.customer.key}, if any; requests sent to {@code accessPoints} and each made inside
   * {@code enter}'s scope as in {@link #over}.
   */
  public static ObjectStore create(SlipstreamConfig config, Map<String, String> accessPoints,
      java.util.function.Supplier<Runnable> enter) {
    return scoped(create(config, accessPoints), enter);
  }

  /** As {@link #create(SlipstreamConfig, Map, java.util.function.Supplier)}, with no access point nor scope. */
  public static S3ObjectStore create(SlipstreamConfig config) {
    return create(config, Map.of());
  }

  private static S3ObjectStore create(SlipstreamConfig config, Map<String, String> accessPoints) {
    S3Client s3 = S3ClientFactory.create(config);
    try {
      return new S3ObjectStore(s3, S3ClientFactory.createForReads(config), true,
          SseCustomerKey.of(config.sseCustomerKey()), accessPoints);
    } catch (RuntimeException | Error e) {
      s3.close();
      throw e;
    }
  }

  /** The bucket a request for {@code bucket} names: its access point, if it has one, else itself. */
  private String onWire(String bucket) {
    return accessPoints.getOrDefault(bucket, bucket);
  }

  /** For messages: which access point a request for {@code bucket} went to, if any. */
  private String through(String bucket) {
    String ap = accessPoints.get(bucket);
    return ap == null ? "" : " (through access point " + ap + ")";
  }

  private static ObjectStore scoped(S3ObjectStore store, java.util.function.Supplier<Runnable> enter) {
    return enter == null ? store : new ScopedObjectStore(store, enter);
  }

  @Override
  public ObjectMetadata head(S3Location location) throws IOException {
    HeadObjectResponse r;
    try {
      r = s3.headObject(h -> customerKey.addTo(h.bucket(onWire(location.bucket())).key(location.key())));
    } catch (RuntimeException e) {
      throw translate(location, through(location.bucket()), "HEAD", e);
    }
    ETag etag = ETag.fromServer(r.eTag());
    if (r.contentLength() != null) {
      return new ObjectMetadata(r.contentLength(), etag, r.lastModified(), headProvesRead(r),
          r.versionId());
    }
    // Some gateways answer HEAD without Content-Length: a 1-byte GET's Content-Range says the length.
    ObjectMetadata m = lengthFromRangedGet(location);
    return new ObjectMetadata(m.length(), etag != null ? etag : m.etag(),
        r.lastModified() != null ? r.lastModified() : m.lastModified(), true, // the GET proves it
        r.versionId() != null ? r.versionId() : m.versionId());
  }

  /**
   * Whether S3's answer {@code head} to a HEAD of an object proves that the same credentials may GET its
   * bytes, so that bytes a cache holds of that version may be served on it. S3 asks the same
   * {@code s3:GetObject} permission of both, with one exception: an object encrypted under a KMS key
   * ({@code x-amz-server-side-encryption: aws:kms} or {@code aws:kms:dsse}) needs {@code kms:Decrypt}
   * for a GET and not for a HEAD. A principal allowed the HEAD but not the key must not read what
   * another principal cached; for such an object the proof is a GET (a 1-byte one where nothing else is
   * to be fetched: it costs what a HEAD costs).
   */
  public static boolean headProvesRead(HeadObjectResponse head) {
    String sse = head.serverSideEncryptionAsString();
    return sse == null || !sse.toLowerCase(java.util.Locale.ROOT).startsWith("aws:kms");
  }

  private ObjectMetadata lengthFromRangedGet(S3Location location) throws IOException {
    String missing = "HEAD " + location + through(location.bucket()) + ": the server sent no Content-Length, so the object's length is unknown";
    Body b;
    try {
      b = get(location, 0, 1, Version.ANY);
    } catch (java.io.EOFException e) {
      throw new IOException(missing + ", and a GET of bytes 0-0 was refused (" + e.getMessage() + ")", e);
    }
    try {
      ContentRange cr = ContentRange.parse(b.contentRange());
      if (b.status() != 206 || cr == null || cr.total() < 0) {
        throw new IOException(missing + ", and a GET of bytes 0-0 answered " + b.status()
            + (b.contentRange() == null ? " without Content-Range" : " with Content-Range " + b.contentRange()));
      }
      return new ObjectMetadata(cr.total(), b.etag(), b.lastModified(), true, b.versionId());
    } finally {
      b.abort(); // one byte at most is left: not worth keeping the connection for
    }
  }

  @Override
  public Body get(S3Location location, long start, long end, Version version) throws IOException {
    GetObjectRequest.Builder req = GetObjectRequest.builder()
        .bucket(onWire(location.bucket()))
        .key(location.key())
        .range("bytes=" + start + "-" + (end - 1));
    if (version.ifMatch() != null) {
      req.ifMatch(version.ifMatch().toString());
    }
    if (version.ifUnmodifiedSince() != null) {
      req.ifUnmodifiedSince(version.ifUnmodifiedSince());
    }
    if (version.versionId() != null) {
      req.versionId(version.versionId());
    }
    customerKey.addTo(req);
    try {
      return reads.getObject(req.build(),
          ResponseTransformer.unmanaged((response, in) -> SdkBody.of(response, new UntimedBody(in))));
    } catch (RuntimeException e) {
      throw translate(location, through(location.bucket()), "GET bytes " + start + "-" + (end - 1), e);
    }
  }

  @Override
  public ListPage list(ListRequest request) throws IOException {
    ListObjectsV2Request.Builder b = ListObjectsV2Request.builder()
        .bucket(onWire(request.bucket()))
        .prefix(request.prefix())
        .maxKeys(request.maxKeys());
    if (request.continuationToken() != null) {
      b.continuationToken(request.continuationToken());
    } else if (request.startAfter() != null && !request.startAfter().isEmpty()) {
      b.startAfter(request.startAfter());
    }
    if (request.delimiter() != null) {
      b.delimiter(request.delimiter());
    }
    ListObjectsV2Response r;
    try {
      r = s3.listObjectsV2(b.build());
    } catch (RuntimeException e) {
      throw translateList(request, through(request.bucket()), e);
    }
    List<dev.slipstream.ListEntry> objects = new ArrayList<>(r.contents().size());
    for (var o : r.contents()) {
      objects.add(new dev.slipstream.ListEntry(o.key(), o.size() == null ? 0 : o.size(), o.eTag(), o.lastModified()));
    }
    List<String> prefixes = new ArrayList<>(r.commonPrefixes().size());
    for (var p : r.commonPrefixes()) {
      prefixes.add(p.prefix());
    }
    boolean truncated = Boolean.TRUE.equals(r.isTruncated());
    String next = truncated ? r.nextContinuationToken() : null;
    if (truncated && (next == null || next.isEmpty())) {
      throw new IOException("LIST s3://" + request.bucket() + "/" + request.prefix()
          + ": the server said the page is truncated but gave no continuation token");
    }
    return new ListPage(List.copyOf(objects), List.copyOf(prefixes), next);
  }

  /** A LIST failure: like {@link #translate}, but a 404 means the bucket is missing, not an object. */
  static IOException translateList(ListRequest request, String via, RuntimeException e) {
    String where = "s3://" + request.bucket() + "/" + request.prefix() + via;
    if (e instanceof S3Exception s3e && s3e.statusCode() == 404) {
      String code = s3e.awsErrorDetails() == null ? null : s3e.awsErrorDetails().errorCode();
      FileNotFoundException fnf = new FileNotFoundException("cannot list " + where + ": "
          + (code == null ? "404" : code) + " (no such bucket: " + request.bucket() + ")");
      fnf.initCause(e);
      return fnf;
    }
    if (e instanceof S3Exception s3e && s3e.statusCode() == 403) {
      String code = s3e.awsErrorDetails() == null ? null : s3e.awsErrorDetails().errorCode();
      AccessDeniedException ade = new AccessDeniedException(where, null,
          "access denied (403" + (code == null ? "" : " " + code) + ") on LIST");
      ade.initCause(e);
      return ade;
    }
    String key = request.prefix().isEmpty() ? "/" : request.prefix();
    return translate(new S3Location(request.bucket(), key), via, "LIST", e);
  }

  /**
   * Maps an SDK failure to the exception type the read path and its callers expect. The SDK lets some
   * failures of its HTTP client through unwrapped (a request on a client closed meanwhile: "Connection
   * pool shut down"): those too become an {@link IOException} naming the call, never an unchecked one.
   * Messages name the object, followed by {@code via} (the access point the request went to, or "").
   */
  static IOException translate(S3Location object, String via, String op, RuntimeException e) {
    String location = object + via;
    if (!(e instanceof SdkException)) {
      return new IOException(op + " " + location + " failed in the S3 client: " + e, e);
    }
    if (e instanceof S3Exception s3e) {
      int status = s3e.statusCode();
      String code = s3e.awsErrorDetails() == null ? null : s3e.awsErrorDetails().errorCode();
      String what = op + " " + location + ": " + status + (code == null ? "" : " " + code);
      switch (status) {
        case 404:
          FileNotFoundException fnf = new FileNotFoundException("no such object: " + location);
          fnf.initCause(e);
          return fnf;
        case 403:
          AccessDeniedException ade = new AccessDeniedException(location, null,
              "access denied (403" + (code == null ? "" : " " + code) + ") on " + op);
          ade.initCause(e);
          return ade;
        case 412:
          ObjectChangedException oce = new ObjectChangedException(object, "412 Precondition Failed on " + op);
          oce.initCause(e);
          return oce;
        case 416:
          EOFException eof = new EOFException("range not satisfiable: " + what);
          eof.initCause(e);
          return eof;
        case 429:
        case 503:
          return new TransientStoreException(RetryCause.THROTTLED, what, e);
        case 408:
          return new TransientStoreException(RetryCause.TIMEOUT, what, e);
        case 400:
          if ("RequestTimeout".equals(code)) {
            // S3 gave up waiting on an idle connection of ours: worth a new request.
            return new TransientStoreException(RetryCause.TIMEOUT, what, e);
          }
          return new IOException(what, e);
        case 500:
        case 502:
        case 504:
          return new TransientStoreException(RetryCause.SERVER_ERROR, what, e);
        default:
          return new IOException(what, e);
      }
    }
    if (e instanceof software.amazon.awssdk.core.exception.ApiCallAttemptTimeoutException) {
      // no response head within the connect and stall timeouts (the client of reads has no socket timeout)
      return new TransientStoreException(RetryCause.TIMEOUT, op + " " + location + ": no response within "
          + "the connect and stall timeouts", e);
    }
    if (e instanceof software.amazon.awssdk.core.exception.AbortedException
        || e.getCause() instanceof InterruptedException) {
      // The calling thread was interrupted (the S3 client keeps its interrupt status set).
      java.io.InterruptedIOException iio = new java.io.InterruptedIOException(op + " " + location
          + ": interrupted");
      iio.initCause(e);
      return iio;
    }
    if (e instanceof SdkClientException sce) {
      Throwable c = e.getCause();
      if (c instanceof SocketTimeoutException || (c != null && c.getClass().getSimpleName().contains("Timeout"))) {
        return new TransientStoreException(RetryCause.TIMEOUT, op + " " + location + ": " + c, e);
      }
      if (c instanceof IOException) {
        return new TransientStoreException(RetryCause.CONNECTION_RESET, op + " " + location + ": " + c, e);
      }
      if (sce.retryable()) {
        return new TransientStoreException(RetryCause.OTHER, op + " " + location + ": " + e.getMessage(), e);
      }
    }
    return new IOException(op + " " + location + ": " + e.getMessage(), e);
  }

  @Override
  public void close() {
    if (ownsClient) {
      s3.close();
      if (reads != s3) {
        reads.close();
      }
    }
  }

  /**
   * A response body read as the SDK's {@code ResponseInputStream} reads it ({@link SdkFilterInputStream}: a
   * read on an interrupted thread aborts the request and throws), without its timer task.
   */
  static final class UntimedBody extends SdkFilterInputStream implements Abortable {
    private final AbortableInputStream body;

    UntimedBody(AbortableInputStream body) {
      super(body);
      this.body = body;
    }

    /** Drops the connection, as {@code ResponseInputStream.abort()} does, and closes the stream. */
    @Override
    public void abort() {
      body.abort();
      try {
        body.close();
      } catch (IOException | RuntimeException ignored) {
        // aborted: nothing more to give back
      }
    }
  }

  private static final class SdkBody implements Body {
    private final UntimedBody in;
    private final GetObjectResponse r;
    private final java.time.Instant lastModified;

    private SdkBody(GetObjectResponse r, UntimedBody in, java.time.Instant lastModified) {
      this.in = in;
      this.r = r;
      this.lastModified = lastModified;
    }

    /** The body of {@code r}; a Last-Modified that is no date fails the GET, its connection dropped. */
    static SdkBody of(GetObjectResponse r, UntimedBody in) {
      try {
        return new SdkBody(r, in, LastModifiedHeader.of(r));
      } catch (RuntimeException e) {
        in.abort();
        throw e;
      }
    }

    @Override
    public InputStream stream() {
      return in;
    }

    @Override
    public int status() {
      return r.sdkHttpResponse().statusCode();
    }

    @Override
    public ETag etag() {
      return ETag.fromServer(r.eTag());
    }

    @Override
    public java.time.Instant lastModified() {
      return lastModified;
    }

    @Override
    public String versionId() {
      return r.versionId();
    }

    @Override
    public long contentLength() {
      return r.contentLength() == null ? -1 : r.contentLength();
    }

    @Override
    public String contentRange() {
      return r.contentRange();
    }

    @Override
    public void abort() {
      in.abort();
    }

    @Override
    public void close() throws IOException {
      in.close();
    }
  }
}
