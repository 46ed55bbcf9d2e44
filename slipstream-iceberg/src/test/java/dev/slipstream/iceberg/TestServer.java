/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.iceberg;

import dev.slipstream.testkit.EmbeddedS3Server;
import dev.slipstream.testkit.ForkedS3Server;
import dev.slipstream.testkit.LinkProfile;
import dev.slipstream.testkit.LinkShaper;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * s3proxy in a child JVM (its Jetty and Guava must not meet Spark's and Iceberg's), with exact S3 key
 * semantics, behind a loopback link shaper whose request log counts what the FileIO asked.
 */
final class TestServer implements AutoCloseable {
  final ForkedS3Server server = ForkedS3Server.start(ForkedS3Server.Storage.TRANSIENT);
  final LinkShaper shaper = LinkShaper.start(server.endpoint(), LinkProfile.LOOPBACK, 34);

  TestServer(String... buckets) {
    for (String b : buckets) {
      server.createBucket(b);
    }
  }

  /**
   * Catalog properties for S3FileIO and Slipstream alike, through the shaper. Slipstream's caches are
   * off: request counts are asserted, and no test may be served by what another one left.
   */
  Map<String, String> catalogProperties() {
    Map<String, String> p = new LinkedHashMap<>();
    p.put("s3.endpoint", shaper.endpoint().toString());
    p.put("s3.path-style-access", "true");
    p.put("s3.access-key-id", EmbeddedS3Server.ACCESS_KEY);
    p.put("s3.secret-access-key", EmbeddedS3Server.SECRET_KEY);
    p.put("client.region", EmbeddedS3Server.REGION);
    p.put("slipstream.cache.disk.mode", "off");
    p.put("slipstream.cache.memory", "false");
    return p;
  }

  @Override
  public void close() {
    shaper.close();
    server.close();
  }
}
