/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.store;

import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import software.amazon.awssdk.http.auth.aws.signer.RegionSet;
import software.amazon.awssdk.http.auth.spi.scheme.AuthSchemeOption;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.auth.scheme.S3AuthSchemeParams;
import software.amazon.awssdk.services.s3.auth.scheme.S3AuthSchemeProvider;

/**
 * The auth scheme S3's rules choose (SigV4 with its signing name and region, SigV4a for a multi-region
 * access point, S3 Express session auth for a directory bucket), chosen once per operation and bucket
 * and then handed out as the same list.
 *
 * <p>The SDK's S3 auth scheme provider runs the endpoint rules on every request to find the scheme, as
 * {@link KnownEndpoints} explains; its answer depends on the operation and on the same fixed settings
 * and bucket as the endpoint's. This provider asks the SDK's own provider once per combination and keeps
 * at most {@link KnownEndpoints#LIMIT} answers, so every setting that changes the scheme still does.
 */
final class KnownAuthSchemes implements S3AuthSchemeProvider {
  /**
   * Whether this SDK's auth scheme parameters are the ones {@link Key} names: SDKs before 2.28 (Hadoop
   * 3.4.1 ships 2.24) lack the region set, and their rules are then asked on every request.
   */
  static final boolean USABLE = hasRegionSet();

  private final S3AuthSchemeProvider rules;
  private final ConcurrentHashMap<Key, List<AuthSchemeOption>> known = new ConcurrentHashMap<>();

  KnownAuthSchemes(S3AuthSchemeProvider rules) {
    this.rules = rules;
  }

  @Override
  public List<AuthSchemeOption> resolveAuthScheme(S3AuthSchemeParams params) {
    Key key = Key.of(params);
    List<AuthSchemeOption> options = known.get(key);
    if (options != null) {
      return options;
    }
    options = List.copyOf(rules.resolveAuthScheme(params));
    if (known.size() < KnownEndpoints.LIMIT) {
      known.putIfAbsent(key, options);
    }
    return options;
  }

  private static boolean hasRegionSet() {
    try {
      S3AuthSchemeParams.class.getMethod("regionSet");
      return true;
    } catch (NoSuchMethodException | LinkageError e) {
      return false;
    }
  }

  /** Answers kept (for tests). */
  int size() {
    return known.size();
  }

  /** The parameters the choice depends on: the endpoint rules' and the operation. */
  private record Key(String operation, Region region, RegionSet regionSet, String bucket, Boolean useFips,
      Boolean useDualStack, String endpoint, Boolean forcePathStyle, Boolean accelerate, Boolean useGlobalEndpoint,
      Boolean useObjectLambdaEndpoint, Boolean disableAccessPoints, Boolean disableMultiRegionAccessPoints,
      Boolean useArnRegion, Boolean useS3ExpressControlEndpoint, Boolean disableS3ExpressSessionAuth) {
    static Key of(S3AuthSchemeParams p) {
      return new Key(p.operation(), p.region(), p.regionSet(), p.bucket(), p.useFips(), p.useDualStack(),
          p.endpoint(), p.forcePathStyle(), p.accelerate(), p.useGlobalEndpoint(), p.useObjectLambdaEndpoint(),
          p.disableAccessPoints(), p.disableMultiRegionAccessPoints(), p.useArnRegion(),
          p.useS3ExpressControlEndpoint(), p.disableS3ExpressSessionAuth());
    }
  }
}
