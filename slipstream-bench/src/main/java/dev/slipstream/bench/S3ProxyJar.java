/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.bench;

import dev.slipstream.testkit.ForkedS3Server;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Properties;

/**
 * Finds s3proxy's jar-with-dependencies, which the build copies into {@code slipstream-bench/target/s3proxy/}
 * and records in the {@code bench.properties} resource, and hands it to {@link ForkedS3Server} through its
 * system property (unless that is set already).
 */
final class S3ProxyJar {
  private S3ProxyJar() {}

  static Path configure() {
    String set = System.getProperty(ForkedS3Server.JAR_PROPERTY);
    if (set != null && Files.isRegularFile(Path.of(set))) {
      return Path.of(set);
    }
    Properties p = new Properties();
    try (InputStream in = S3ProxyJar.class.getResourceAsStream("bench.properties")) {
      if (in != null) {
        p.load(in);
      }
    } catch (IOException e) {
      // fall through to the error below
    }
    String recorded = p.getProperty("s3proxy.jar");
    if (recorded == null || !Files.isRegularFile(Path.of(recorded))) {
      throw new IllegalStateException("s3proxy's jar-with-dependencies is not where the build put it (" + recorded
          + "); rebuild with ./mvnw -B install -DskipTests, or set -D" + ForkedS3Server.JAR_PROPERTY + "=PATH");
    }
    System.setProperty(ForkedS3Server.JAR_PROPERTY, recorded);
    return Path.of(recorded);
  }
}
