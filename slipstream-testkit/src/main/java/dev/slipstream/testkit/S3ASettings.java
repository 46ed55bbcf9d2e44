/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.testkit;

import java.net.URI;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What Hadoop's S3A connector needs to reach a test server of this kit ({@link EmbeddedS3Server},
 * {@link ForkedS3Server}, or a {@link LinkShaper} in front of one): endpoint, region, path-style access,
 * plain http, only the test credentials (never the environment, {@code ~/.aws} or instance metadata), and
 * no bucket probe at start-up. Every other S3A setting is left to its user.
 *
 * <p>Plain strings, so that the testkit does not depend on Hadoop: each user puts them into its own
 * Configuration, {@code S3ASettings.forEndpoint(endpoint).forEach(conf::set)}. It uses no s3proxy class
 * (the constants of {@link EmbeddedS3Server} it names are compiled in), so it loads without s3proxy on the
 * classpath, as in the benchmark.
 */
public final class S3ASettings {
  private S3ASettings() {}

  /** The {@code fs.s3a.*} settings, in a fixed order, for a test server (or shaper) at {@code endpoint}. */
  public static Map<String, String> forEndpoint(URI endpoint) {
    Map<String, String> s = new LinkedHashMap<>();
    s.put("fs.s3a.endpoint", endpoint.toString());
    s.put("fs.s3a.endpoint.region", EmbeddedS3Server.REGION);
    s.put("fs.s3a.path.style.access", "true");
    s.put("fs.s3a.connection.ssl.enabled", "false");
    s.put("fs.s3a.aws.credentials.provider", "org.apache.hadoop.fs.s3a.SimpleAWSCredentialsProvider");
    s.put("fs.s3a.access.key", EmbeddedS3Server.ACCESS_KEY);
    s.put("fs.s3a.secret.key", EmbeddedS3Server.SECRET_KEY);
    // The bucket exists before the first request; S3A's existence probe would only cost a request.
    s.put("fs.s3a.bucket.probe", "0");
    return Collections.unmodifiableMap(s);
  }
}
