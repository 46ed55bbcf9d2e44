/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.hadoop;

import dev.slipstream.testkit.ForkedS3Server;
import dev.slipstream.testkit.LinkProfile;
import dev.slipstream.testkit.LinkShaper;
import java.io.IOException;
import java.net.URI;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * One bucket of the embedded S3 server (s3proxy in a child JVM), reached through a loopback link shaper
 * that counts every request on the wire, and Slipstream FileSystems of that bucket through it: what the
 * tests of the requests a FileSystem sends share. Registered as a static extension
 * ({@code @RegisterExtension}), it starts before the class's tests and stops after them.
 */
final class ShapedBucket implements BeforeAllCallback, AfterAllCallback {
  private final String bucket;
  private ForkedS3Server server;
  private LinkShaper shaper;

  ShapedBucket(String bucket) {
    this.bucket = bucket;
  }

  @Override
  public void beforeAll(ExtensionContext context) {
    server = ForkedS3Server.start();
    server.createBucket(bucket);
    shaper = LinkShaper.start(server.endpoint(), LinkProfile.LOOPBACK, 5);
  }

  @Override
  public void afterAll(ExtensionContext context) {
    try {
      if (shaper != null) {
        shaper.close();
      }
    } finally {
      if (server != null) {
        server.close();
      }
    }
  }

  /** Where requests are counted. */
  LinkShaper shaper() {
    return shaper;
  }

  /** A new FileSystem of the bucket through the shaper, with the tests' settings and {@code extra} key, value pairs. */
  SlipstreamS3AFileSystem newFileSystem(String... extra) throws IOException {
    Configuration conf = SlipstreamS3AFileSystemTest.confAt(shaper.endpoint());
    for (int i = 0; i < extra.length; i += 2) {
      conf.set(extra[i], extra[i + 1]);
    }
    return (SlipstreamS3AFileSystem) FileSystem.newInstance(URI.create("s3a://" + bucket + "/"), conf);
  }
}
