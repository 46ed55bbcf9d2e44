/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.hadoop;

import dev.slipstream.S3Clients;
import dev.slipstream.SlipstreamConfig;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.s3a.impl.AWSClientConfig;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.core.client.config.ClientOverrideConfiguration;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.core.retry.RetryPolicy;
import software.amazon.awssdk.http.apache.ApacheHttpClient;
import software.amazon.awssdk.identity.spi.AwsCredentialsIdentity;
import software.amazon.awssdk.identity.spi.IdentityProvider;
import software.amazon.awssdk.identity.spi.ResolveIdentityRequest;
import software.amazon.awssdk.metrics.MetricPublisher;
import software.amazon.awssdk.services.s3.S3BaseClientBuilder;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.S3ClientBuilder;
import software.amazon.awssdk.services.s3.S3ServiceClientConfiguration;

/**
 * The S3 client of the read path's GETs, built from the settings of the client S3A built, without a
 * socket timeout.
 *
 * <p>Every socket read of a client with a socket timeout waits in a {@code poll} of its own before it
 * reads: three system calls for each arrival of bytes instead of one (the {@code poll} alone was 12% of
 * the reader's CPU on a declared read, of which a blocking read takes part back; see docs/benchmarks.md).
 * S3A's client always has one: S3A raises any {@code fs.s3a.connection.timeout} to a minimum. This client has none; the stall watchdog watches every
 * body ({@code fs.slipstream.read.stall.timeout}), and each attempt, up to its response head, is bounded by
 * {@code fs.slipstream.connect.timeout} plus that stall timeout, as for a plain Java client.
 *
 * <p>What it keeps of S3A's client: the region, endpoint and cross-region access it resolved; its
 * credentials (borrowed: closing this client leaves them open for S3A); its client settings whole, so
 * S3A's audit interceptor and audit log, its request statistics (told to S3A's publisher by {@link
 * S3ARequestStatistics} where it is S3A's own, without the SDK's metric collection), its headers
 * (requester pays, {@code fs.s3a.client.s3.custom.headers}), its signer ({@code fs.s3a.signing-algorithm},
 * and the HTTP signer of {@code fs.s3a.http.signer.enabled} and {@code .class}) and its user agent; and,
 * from the same {@code fs.s3a.*} settings S3A read, its connection pool, proxy, path-style access, FIPS
 * and whether S3 Express sessions are made ({@code fs.s3a.s3express.create.session}). Retries are the read
 * path's own (resuming at the last byte received), not the SDK's, as for a plain Java client.
 *
 * <p>Where S3A's own client must read, S3A's is used: with client-side encryption (S3A's client
 * decrypts), a client factory of the user's ({@code fs.s3a.s3.client.factory.impl}) or S3 Access Grants,
 * whose plugin decides the credentials per request ({@link #whyS3AsClient}).
 */
final class S3AReadsClient {
  private static final Logger LOG = LoggerFactory.getLogger(HadoopConfig.LOGGER);
  private static final String DEFAULT_FACTORY = "org.apache.hadoop.fs.s3a.DefaultS3ClientFactory";
  static final String HTTP_SIGNER_ENABLED = "fs.s3a.http.signer.enabled";

  private S3AReadsClient() {}

  /**
   * Why the read path must send its GETs through S3A's own client with {@code conf}, or null if a client
   * of its own can be built.
   */
  static String whyS3AsClient(Configuration conf, boolean clientSideEncryption) {
    if (clientSideEncryption) {
      return "client-side encryption is on: S3A's encryption client decrypts what it reads";
    }
    String factory = conf.getTrimmed("fs.s3a.s3.client.factory.impl", DEFAULT_FACTORY);
    if (!factory.equals(DEFAULT_FACTORY)) {
      return "fs.s3a.s3.client.factory.impl names a client factory of its own (" + factory + ")";
    }
    if (conf.getBoolean("fs.s3a.s3accessgrants.enabled", false)) {
      return "fs.s3a.s3accessgrants.enabled is set: S3 Access Grants' plugin decides the credentials of each"
          + " request";
    }
    return null;
  }

  /**
   * A client for the read path's GETs with the settings of {@code s3a}, the client S3A built for
   * {@code bucket} from {@code conf}; or null, with S3A's client to be used, when {@link #whyS3AsClient}
   * gives a reason or this Hadoop or SDK does not let one be built (said in the log).
   */
  static S3Client build(S3Client s3a, Configuration conf, String bucket, boolean clientSideEncryption,
      SlipstreamConfig config) {
    String why = whyS3AsClient(conf, clientSideEncryption);
    if (why != null) {
      LOG.debug("Slipstream reads s3a://{} through S3A's S3 client: {}", bucket, why);
      return null;
    }
    try {
      return builder(s3a, conf, bucket, config).build();
    } catch (IOException | RuntimeException | LinkageError e) {
      LOG.warn("Slipstream reads s3a://{} through S3A's S3 client, as a client of its own could not be built"
          + " from S3A's settings: {}", bucket, e.toString());
      return null;
    }
  }

  private static S3ClientBuilder builder(S3Client s3a, Configuration conf, String bucket, SlipstreamConfig config)
      throws IOException {
    S3ServiceClientConfiguration s3aConfig = s3a.serviceClientConfiguration();
    ApacheHttpClient.Builder http = AWSClientConfig.createHttpClientBuilder(conf)
        .proxyConfiguration(AWSClientConfig.createProxyConfiguration(conf, bucket))
        .connectionTimeout(config.connectTimeout())
        .socketTimeout(Duration.ZERO);
    ClientOverrideConfiguration s3aOverride = s3aConfig.overrideConfiguration();
    List<ExecutionInterceptor> interceptors =
        withLastModifiedOncePerValue(notTheSdks(s3aOverride.executionInterceptors()));
    ClientOverrideConfiguration.Builder override = s3aOverride.toBuilder()
        .retryPolicy(RetryPolicy.none())
        .apiCallAttemptTimeout(config.connectTimeout().plus(config.stallTimeout()));
    List<MetricPublisher> publishers = s3aOverride.metricPublishers();
    if (S3ARequestStatistics.replaces(publishers)) {
      interceptors = new java.util.ArrayList<>(interceptors);
      interceptors.add(new S3ARequestStatistics(publishers));
      override.metricPublishers(List.of());
    }
    S3ClientBuilder b = S3Client.builder()
        .httpClientBuilder(http)
        .overrideConfiguration(override.executionInterceptors(interceptors).build())
        .region(s3aConfig.region())
        .credentialsProvider(new Borrowed(s3aConfig.credentialsProvider()))
        .crossRegionAccessEnabled(s3aConfig.crossRegionAccessEnabled())
        .forcePathStyle(conf.getBoolean("fs.s3a.path.style.access", false))
        .fipsEnabled(conf.getBoolean("fs.s3a.endpoint.fips", false))
        // S3 Express One Zone: a session (CreateSession) signs requests unless S3A was told not to make one.
        .disableS3ExpressSessionAuth(!conf.getBoolean("fs.s3a.s3express.create.session", true));
    s3aConfig.endpointOverride().ifPresent(b::endpointOverride);
    sameChecksums(b, s3aConfig);
    if (conf.getBoolean(HTTP_SIGNER_ENABLED, false)) {
      // S3A's own way of building the signer it puts on its client (the legacy fs.s3a.signing-algorithm is
      // part of the override configuration copied above). Hadoop 3.4.1 has no such signer: the error that
      // builds no client of its own here then leaves the reads on S3A's client, which has the signer.
      b.putAuthScheme(org.apache.hadoop.fs.s3a.auth.SignerFactory.createHttpSigner(conf, "aws.auth#sigv4",
          "fs.s3a.http.signer.class"));
    }
    S3Clients.keepRulesAnswers(b);
    return b;
  }

  /**
   * The interceptors of {@code all}, a built client's, that are not the SDK's own: every client adds
   * those itself, and twice would put the bucket into a path-style request's path twice. What is left is
   * S3A's auditor and any interceptor of the user's ({@code fs.s3a.audit.execution.interceptors}).
   */
  static List<ExecutionInterceptor> notTheSdks(List<ExecutionInterceptor> all) {
    return all.stream().filter(i -> !i.getClass().getName().startsWith("software.amazon.awssdk.")).toList();
  }

  /**
   * {@code interceptors} and, after them, Slipstream's parse of a GET's Last-Modified once per value
   * ({@link S3Clients#lastModifiedOncePerValue}) where they are all S3A's own (its auditor, which reads no
   * Last-Modified); with any other, a user's ({@code fs.s3a.audit.execution.interceptors}), which might
   * read it from a response, the SDK parses it as before.
   */
  static List<ExecutionInterceptor> withLastModifiedOncePerValue(List<ExecutionInterceptor> interceptors) {
    if (!interceptors.stream().allMatch(S3AReadsClient::isS3As)) {
      return interceptors;
    }
    List<ExecutionInterceptor> all = new java.util.ArrayList<>(interceptors);
    all.add(S3Clients.lastModifiedOncePerValue());
    return all;
  }

  /** Whether {@code part} of S3A's client (an interceptor, a metric publisher) is S3A's own, not a user's. */
  static boolean isS3As(Object part) {
    return part.getClass().getName().startsWith("org.apache.hadoop.fs.s3a.");
  }

  /**
   * S3A's checksum settings, where the SDK has them (2.30 on; Hadoop 3.4.1 ships 2.24, built against here
   * too, so they are found by name): whether a request carries a checksum, and a GET asks for one.
   */
  private static void sameChecksums(S3ClientBuilder b, S3ServiceClientConfiguration s3aConfig) {
    for (String setting : new String[] {"requestChecksumCalculation", "responseChecksumValidation"}) {
      try {
        Object value = S3ServiceClientConfiguration.class.getMethod(setting).invoke(s3aConfig);
        if (value != null) {
          S3BaseClientBuilder.class.getMethod(setting, value.getClass()).invoke(b, value);
        }
      } catch (NoSuchMethodException e) {
        return; // an SDK without the setting
      } catch (ReflectiveOperationException e) {
        throw new IllegalStateException("cannot copy S3A's " + setting + ": " + e, e);
      }
    }
  }

  /**
   * S3A's credentials, answered by S3A's provider but not closable through this client: S3A closes them
   * with its own client.
   */
  private record Borrowed(IdentityProvider<? extends AwsCredentialsIdentity> lender)
      implements IdentityProvider<AwsCredentialsIdentity> {
    @Override
    public Class<AwsCredentialsIdentity> identityType() {
      return AwsCredentialsIdentity.class;
    }

    @Override
    public CompletableFuture<? extends AwsCredentialsIdentity> resolveIdentity(ResolveIdentityRequest request) {
      return lender.resolveIdentity(request);
    }
  }
}
