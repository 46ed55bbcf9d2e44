/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.store;

import software.amazon.awssdk.services.s3.S3BaseClientBuilder;
import software.amazon.awssdk.services.s3.S3ServiceClientConfiguration;
import software.amazon.awssdk.services.s3.endpoints.S3EndpointProvider;

/**
 * Puts {@link KnownEndpoints} and {@link KnownAuthSchemes} into a client builder. A class of its own,
 * naming no SDK type newer than 2.21: the Hadoop FileSystem also uses it on the SDK Hadoop 3.4.1 ships
 * (2.24), where {@link S3ClientFactory}, which names the retry strategies of 2.26, cannot even load.
 */
public final class KnownRules {
  private KnownRules() {}

  /**
   * Makes the client {@code b} builds keep the S3 endpoint rules' answers per bucket: the endpoint if
   * {@code endpoints}, the auth scheme if {@code authSchemes} (where this SDK allows, see
   * {@link KnownAuthSchemes#USABLE}).
   */
  public static void keepAnswers(S3BaseClientBuilder<?, ?> b, boolean endpoints, boolean authSchemes) {
    // A plugin sees the providers the SDK settled on (its defaults, the auth scheme preference of the
    // profile, S3 Express) and wraps them, rather than choosing them again here.
    b.addPlugin(c -> {
      S3ServiceClientConfiguration.Builder s3 = (S3ServiceClientConfiguration.Builder) c;
      if (endpoints && s3.endpointProvider() instanceof S3EndpointProvider rules) {
        s3.endpointProvider(new KnownEndpoints(rules));
      }
      if (authSchemes && KnownAuthSchemes.USABLE && s3.authSchemeProvider() != null) {
        s3.authSchemeProvider(new KnownAuthSchemes(s3.authSchemeProvider()));
      }
    });
  }
}
