/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream;

import dev.slipstream.testkit.EmbeddedS3Server;
import java.net.URI;

/** Configurations pointing at an embedded server (directly or through a link shaper); for tests of any package. */
public final class TestClients {
  private TestClients() {}

  public static SlipstreamConfig.Builder config(URI endpoint) {
    return SlipstreamConfig.builder()
        .set("endpoint", endpoint.toString())
        .set("region", EmbeddedS3Server.REGION)
        .set("path.style.access", "true")
        .set("access.key", EmbeddedS3Server.ACCESS_KEY)
        .set("secret.key", EmbeddedS3Server.SECRET_KEY)
        // Request counts are asserted: no test may be served by blocks an earlier one left on disk or
        // in memory. The caches have their own tests (each disk test with its own directory), and the
        // differential and concurrency tests read through the memory cache.
        .set("cache.disk.mode", "off")
        .set("cache.memory", "false")
        // Nor a GET sent again because a busy machine answered it late (a hedge): tests that hedge say so.
        .set("hedge.budget", "0");
  }

  public static SlipstreamConfig.Builder config(EmbeddedS3Server server) {
    return config(server.endpoint());
  }
}
