/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.store;

import dev.slipstream.ObjectChangedException;
import dev.slipstream.RetryCause;
import dev.slipstream.S3Location;
import dev.slipstream.SlipstreamConfig;
import java.io.EOFException;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InputStream;
import java.net.SocketTimeoutException;
import java.nio.file.AccessDeniedException;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.auth.credentials.AwsSessionCredentials;
import software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.ResponseInputStream;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.http.apache.ApacheHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.regions.providers.DefaultAwsRegionProviderChain;
import software.amazon.awssdk.retries.DefaultRetryStrategy;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.S3ClientBuilder;
import software.amazon.awssdk.services.s3.model.GetObjectRequest;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;
import software.amazon.awssdk.services.s3.model.HeadObjectResponse;
import software.amazon.awssdk.services.s3.model.S3Exception;

/**
 * {@link ObjectStore} over the AWS SDK for Java v2 with its Apache HTTP client: synchronous, because
 * every call already runs on the shared fetch executor, and abortable from another thread, which
 * {@code close()} needs. The SDK's own retries are off (the fetcher retries per block, resuming at
 * the last byte received); its socket timeout is the stall timeout, so a body that stops delivering
 * bytes fails instead of hanging. Checksums are computed and validated only where S3 requires them,
 * as S3-compatible servers do not all support the newer checksum headers.
 */
public final class S3ObjectStore implements ObjectStore {
  private final S3Client s3;

  public S3ObjectStore(S3Client s3) {
    this.s3 = s3;
  }

  public static S3ObjectStore create(SlipstreamConfig config) {
    return new S3ObjectStore(buildClient(config));
  }

  /** The S3 client this configuration describes; the CLI uses it for its plain-GET comparison too. */
  public static S3Client buildClient(SlipstreamConfig config) {
    S3ClientBuilder b = S3Client.builder()
        .httpClientBuilder(ApacheHttpClient.builder()
            // Prefetch and direct reads can both be in flight; leave headroom over the executor size.
            .maxConnections(config.fetchThreads() * 2 + 8)
            .socketTimeout(config.stallTimeout())
            .connectionTimeout(config.connectTimeout())
            .connectionAcquisitionTimeout(config.stallTimeout().plus(config.connectTimeout())))
        .overrideConfiguration(o -> o.retryStrategy(DefaultRetryStrategy.doNotRetry()))
        .requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED)
        .responseChecksumValidation(ResponseChecksumValidation.WHEN_REQUIRED)
        .forcePathStyle(config.pathStyleAccess())
        .region(region(config))
        .credentialsProvider(credentials(config));
    config.endpoint().ifPresent(b::endpointOverride);
    return b.build();
  }

  private static Region region(SlipstreamConfig config) {
    if (config.region().isPresent()) {
      return Region.of(config.region().get());
    }
    try {
      return new DefaultAwsRegionProviderChain().getRegion();
    } catch (SdkClientException e) {
      return Region.US_EAST_1;
    }
  }

  private static AwsCredentialsProvider credentials(SlipstreamConfig config) {
    if (config.accessKey().isPresent()) {
      String id = config.accessKey().get();
      String secret = config.secretKey().orElseThrow();
      return StaticCredentialsProvider.create(config.sessionToken()
          .<software.amazon.awssdk.auth.credentials.AwsCredentials>map(
              t -> AwsSessionCredentials.create(id, secret, t))
          .orElseGet(() -> AwsBasicCredentials.create(id, secret)));
    }
    return DefaultCredentialsProvider.builder().build();
  }

  @Override
  public ObjectMetadata head(S3Location location) throws IOException {
    try {
      HeadObjectResponse r = s3.headObject(h -> h.bucket(location.bucket()).key(location.key()));
      return new ObjectMetadata(r.contentLength(), r.eTag());
    } catch (SdkException e) {
      throw translate(location, "HEAD", e);
    }
  }

  @Override
  public Body get(S3Location location, long start, long end, String ifMatch) throws IOException {
    GetObjectRequest.Builder req = GetObjectRequest.builder()
        .bucket(location.bucket())
        .key(location.key())
        .range("bytes=" + start + "-" + (end - 1));
    if (ifMatch != null) {
      req.ifMatch(ifMatch);
    }
    ResponseInputStream<GetObjectResponse> in;
    try {
      in = s3.getObject(req.build());
    } catch (SdkException e) {
      throw translate(location, "GET bytes " + start + "-" + (end - 1), e);
    }
    GetObjectResponse r = in.response();
    return new SdkBody(in, r.eTag(), r.contentLength() == null ? -1 : r.contentLength(), totalLength(r.contentRange()));
  }

  private static long totalLength(String contentRange) {
    // "bytes 0-99/1234"
    if (contentRange == null) {
      return -1;
    }
    int slash = contentRange.lastIndexOf('/');
    if (slash < 0 || contentRange.endsWith("*")) {
      return -1;
    }
    try {
      return Long.parseLong(contentRange.substring(slash + 1).trim());
    } catch (NumberFormatException e) {
      return -1;
    }
  }

  /** Maps an SDK failure to the exception type the read path and its callers expect. */
  static IOException translate(S3Location location, String op, SdkException e) {
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
          AccessDeniedException ade = new AccessDeniedException(location.toString(), null,
              "access denied (403" + (code == null ? "" : " " + code) + ") on " + op);
          ade.initCause(e);
          return ade;
        case 412:
          ObjectChangedException oce = new ObjectChangedException(location, "412 Precondition Failed on " + op);
          oce.initCause(e);
          return oce;
        case 416:
          EOFException eof = new EOFException("range not satisfiable: " + what);
          eof.initCause(e);
          return eof;
        case 429:
        case 503:
          return new TransientStoreException(RetryCause.THROTTLED, what, e);
        case 500:
        case 502:
        case 504:
          return new TransientStoreException(RetryCause.SERVER_ERROR, what, e);
        default:
          return new IOException(what, e);
      }
    }
    if (e instanceof SdkClientException) {
      Throwable c = e.getCause();
      if (c instanceof SocketTimeoutException || (c != null && c.getClass().getSimpleName().contains("Timeout"))) {
        return new TransientStoreException(RetryCause.TIMEOUT, op + " " + location + ": " + c, e);
      }
      if (c instanceof IOException) {
        return new TransientStoreException(RetryCause.CONNECTION_RESET, op + " " + location + ": " + c, e);
      }
      if (e.retryable()) {
        return new TransientStoreException(RetryCause.OTHER, op + " " + location + ": " + e.getMessage(), e);
      }
    }
    return new IOException(op + " " + location + ": " + e.getMessage(), e);
  }

  @Override
  public void close() {
    s3.close();
  }

  private static final class SdkBody implements Body {
    private final ResponseInputStream<GetObjectResponse> in;
    private final String etag;
    private final long contentLength;
    private final long objectLength;

    SdkBody(ResponseInputStream<GetObjectResponse> in, String etag, long contentLength, long objectLength) {
      this.in = in;
      this.etag = etag;
      this.contentLength = contentLength;
      this.objectLength = objectLength;
    }

    @Override
    public InputStream stream() {
      return in;
    }

    @Override
    public String etag() {
      return etag;
    }

    @Override
    public long contentLength() {
      return contentLength;
    }

    @Override
    public long objectLength() {
      return objectLength;
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
