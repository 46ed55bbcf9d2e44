/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.bench;

import dev.slipstream.Slipstream;
import dev.slipstream.SlipstreamConfig;
import dev.slipstream.internal.store.S3ClientFactory;
import dev.slipstream.testkit.EmbeddedS3Server;
import java.io.IOException;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * Slipstream through its plain Java API, without Hadoop: {@code Slipstream.builder()} with the default
 * settings, plus the endpoint and credentials of the test server. Listing (small files) and the HEAD
 * of {@link ReadSession#stat} go through the same S3 client that Slipstream reads with.
 */
final class CoreReader implements Reader {
  static final String NAME = "slipstream-core";

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public String description() {
    return "Slipstream's plain Java API (no Hadoop), default settings; Parquet through an InputFile over its stream";
  }

  @Override
  public ReadSession open(Target target) throws IOException {
    SlipstreamConfig config = SlipstreamConfig.builder()
        .set("endpoint", target.endpoint().toString())
        .set("region", EmbeddedS3Server.REGION)
        .set("path.style.access", "true")
        .set("access.key", EmbeddedS3Server.ACCESS_KEY)
        .set("secret.key", EmbeddedS3Server.SECRET_KEY)
        .build();
    S3Client client = S3ClientFactory.create(config);
    try {
      Slipstream slipstream = Slipstream.builder().config(config).s3Client(client).build();
      return new CoreSession(slipstream, client, target.bucket());
    } catch (RuntimeException e) {
      client.close();
      throw e;
    }
  }
}
