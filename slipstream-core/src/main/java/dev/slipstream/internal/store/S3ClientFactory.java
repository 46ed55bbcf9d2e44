/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.store;

import dev.slipstream.SlipstreamConfig;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.AwsCredentials;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.auth.credentials.AwsSessionCredentials;
import software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.http.apache.ApacheHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.regions.providers.DefaultAwsRegionProviderChain;
import software.amazon.awssdk.retries.DefaultRetryStrategy;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.S3ClientBuilder;

/**
 * Builds the S3 clients for plain-Java use (the Hadoop FileSystem builds its own from S3A's settings).
 *
 * <p>The Apache HTTP client, because a response can be aborted from another thread. The SDK's own
 * retries are off: the fetcher retries per block, resuming at the last byte received. The socket
 * timeout is the stall timeout, so a body that stops delivering bytes fails instead of hanging; the
 * client of the read path's GETs ({@link #createForReads}) has none, the stall watchdog watching their
 * bodies.
 * Checksums are computed and validated only where S3 requires them, as S3-compatible servers do not
 * all support the newer checksum headers (and a ranged GET never carries a whole object's checksum).
 * The S3 endpoint rules' answers (the endpoint and the auth scheme) are worked out once per bucket and
 * then reused ({@link KnownEndpoints}, {@link KnownAuthSchemes}): the rules decide everything they
 * decided before, an access point ARN, FIPS or a custom endpoint included, but not on every GET.
 */
public final class S3ClientFactory {
  private S3ClientFactory() {}

  /** The S3 client this configuration describes. */
  public static S3Client create(SlipstreamConfig config) {
    return builder(config, true, true).build();
  }

  /**
   * The client of {@link #create} for the GETs of the read path only, whose bodies the stall watchdog
   * watches: no socket timeout, which would make every socket read that finds no bytes yet wait in a
   * {@code poll} of its own before it reads again (three system calls for each arrival of bytes instead
   * of one; 13.6% of the reader's CPU on a declared read, async-profiler); instead each attempt, up to
   * the response head, is bounded by the connect timeout plus the stall timeout, and a body that stops
   * delivering bytes is aborted by the watchdog (which a client built elsewhere needs anyway). Its
   * responses' {@code Last-Modified} is parsed once per value ({@link LastModifiedHeader}), not by the SDK.
   */
  public static S3Client createForReads(SlipstreamConfig config) {
    S3ClientBuilder b = builder(config, true, true);
    b.httpClientBuilder(http(config).socketTimeout(java.time.Duration.ZERO));
    b.overrideConfiguration(o -> o.retryStrategy(DefaultRetryStrategy.doNotRetry())
        .apiCallAttemptTimeout(config.connectTimeout().plus(config.stallTimeout()))
        .addExecutionInterceptor(new LastModifiedHeader()));
    return b.build();
  }

  private static ApacheHttpClient.Builder http(SlipstreamConfig config) {
    return ApacheHttpClient.builder()
        // Prefetch and direct reads can both be in flight; leave headroom over the executor size.
        .maxConnections(config.fetchThreads() * 2 + 8)
        .socketTimeout(config.stallTimeout())
        .connectionTimeout(config.connectTimeout())
        .connectionAcquisitionTimeout(config.stallTimeout().plus(config.connectTimeout()));
  }

  /**
   * The builder of {@link #create}; {@code knownEndpoints} and {@code knownAuthSchemes}: the rules'
   * answers kept per bucket ({@link KnownEndpoints}, {@link KnownAuthSchemes}), else asked on every
   * request (to compare the two).
   */
  static S3ClientBuilder builder(SlipstreamConfig config, boolean knownEndpoints, boolean knownAuthSchemes) {
    S3ClientBuilder b = S3Client.builder()
        .httpClientBuilder(http(config))
        .overrideConfiguration(o -> o.retryStrategy(DefaultRetryStrategy.doNotRetry()))
        .requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED)
        .responseChecksumValidation(ResponseChecksumValidation.WHEN_REQUIRED)
        .forcePathStyle(config.pathStyleAccess())
        .region(region(config))
        .credentialsProvider(credentials(config));
    config.endpoint().ifPresent(b::endpointOverride);
    if (knownEndpoints || knownAuthSchemes) {
      KnownRules.keepAnswers(b, knownEndpoints, knownAuthSchemes);
    }
    return b;
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
          .<AwsCredentials>map(
              t -> AwsSessionCredentials.create(id, secret, t))
          .orElseGet(() -> AwsBasicCredentials.create(id, secret)));
    }
    return DefaultCredentialsProvider.builder().build();
  }
}
