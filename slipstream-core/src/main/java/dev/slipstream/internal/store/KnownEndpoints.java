/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.store;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import software.amazon.awssdk.endpoints.Endpoint;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.endpoints.S3EndpointParams;
import software.amazon.awssdk.services.s3.endpoints.S3EndpointProvider;

/**
 * The S3 endpoint rules' answer, worked out once per bucket and then handed out pre-built.
 *
 * <p>The SDK runs S3's endpoint rules on every request, twice: once to pick the auth scheme and once to
 * pick the endpoint. Each run parses the endpoint URL and walks a few hundred generated rules, some
 * tens of microseconds of CPU a GET (aws-sdk-java-v2 issues 5846 and 6847), while the answer depends
 * only on settings that are fixed for the client (endpoint, region, path style, FIPS, dual-stack,
 * accelerate, access point switches) and on the bucket. This provider asks the rules once for each
 * combination of those values and returns the same {@link Endpoint} afterwards, its auth scheme
 * properties (signing name and region) included. Every setting still goes through the rules: an
 * access point ARN, FIPS, a custom endpoint or a region without one get the rules' own answer, only
 * not recomputed.
 *
 * <p>The key is every parameter the rules read except the object key, prefix, copy source and the keys
 * of a multi-object delete, which S3's rules use for no routing decision (an endpoint names a bucket's
 * host, never an object's). At most {@link #LIMIT} answers are kept, so a client that touches very
 * many buckets asks the rules for the others on every request rather than growing.
 */
final class KnownEndpoints implements S3EndpointProvider {
  /** Answers kept: far more buckets than one client reads. */
  static final int LIMIT = 256;

  private final S3EndpointProvider rules;
  private final ConcurrentHashMap<Key, Endpoint> known = new ConcurrentHashMap<>();

  KnownEndpoints(S3EndpointProvider rules) {
    this.rules = rules;
  }

  @Override
  public CompletableFuture<Endpoint> resolveEndpoint(S3EndpointParams params) {
    Key key = Key.of(params);
    Endpoint endpoint = known.get(key);
    if (endpoint != null) {
      return CompletableFuture.completedFuture(endpoint);
    }
    CompletableFuture<Endpoint> answer = rules.resolveEndpoint(params);
    // Only answers that completed normally are kept: a rule that refuses the parameters (a malformed
    // ARN) says so to every request, with the rules' own exception.
    if (answer.isDone() && !answer.isCompletedExceptionally() && known.size() < LIMIT) {
      known.putIfAbsent(key, answer.join());
    }
    return answer;
  }

  /** Answers kept (for tests). */
  int size() {
    return known.size();
  }

  /** The parameters the rules decide on. */
  private record Key(String bucket, Region region, Boolean useFips, Boolean useDualStack, String endpoint,
      Boolean forcePathStyle, Boolean accelerate, Boolean useGlobalEndpoint, Boolean useObjectLambdaEndpoint,
      Boolean disableAccessPoints, Boolean disableMultiRegionAccessPoints, Boolean useArnRegion,
      Boolean useS3ExpressControlEndpoint, Boolean disableS3ExpressSessionAuth) {
    static Key of(S3EndpointParams p) {
      return new Key(p.bucket(), p.region(), p.useFips(), p.useDualStack(), p.endpoint(), p.forcePathStyle(),
          p.accelerate(), p.useGlobalEndpoint(), p.useObjectLambdaEndpoint(), p.disableAccessPoints(),
          p.disableMultiRegionAccessPoints(), p.useArnRegion(), p.useS3ExpressControlEndpoint(),
          p.disableS3ExpressSessionAuth());
    }
  }
}
