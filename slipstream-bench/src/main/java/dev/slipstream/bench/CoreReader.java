/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.bench;

import dev.slipstream.S3Clients;
import dev.slipstream.Slipstream;
import dev.slipstream.SlipstreamConfig;
import dev.slipstream.testkit.EmbeddedS3Server;
import java.io.IOException;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * Slipstream through its plain Java API, without Hadoop: {@code Slipstream.builder()} with the default
 * settings, plus the endpoint and credentials of the test server, building its S3 clients itself as
 * {@code Slipstream.create} does. Listing (small files) and the HEAD of {@link ReadSession#stat} go through
 * an S3 client of the session's own, set up the same way ({@code S3Clients.create}).
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
    return open(target, java.util.Map.of());
  }

  @Override
  public ReadSession open(Target target, java.util.Map<String, String> settings) throws IOException {
    // Every run starts with an empty disk cache of its own: no run is served by blocks of an earlier one.
    java.nio.file.Path cacheDir = SessionCache.create();
    SlipstreamConfig.Builder b = SlipstreamConfig.builder()
        .set("endpoint", target.endpoint().toString())
        .set("region", EmbeddedS3Server.REGION)
        .set("path.style.access", "true")
        .set("access.key", EmbeddedS3Server.ACCESS_KEY)
        .set("secret.key", EmbeddedS3Server.SECRET_KEY)
        .set("cache.disk.dir", cacheDir.toString());
    settings.forEach(b::set);
    SlipstreamConfig config = b.build();
    // Slipstream builds its own clients, as Slipstream.create does (its GETs on a client of their own); this
    // one serves the session's HEADs and LISTs
    S3Client client = S3Clients.create(config);
    try {
      Slipstream slipstream = Slipstream.builder().config(config).build();
      return new CoreSession(slipstream, client, target.bucket(), cacheDir);
    } catch (RuntimeException e) {
      client.close();
      SessionCache.delete(cacheDir);
      throw e;
    }
  }
}
