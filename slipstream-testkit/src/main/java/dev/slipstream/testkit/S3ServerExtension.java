/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.testkit;

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * JUnit 5 extension that runs one {@link EmbeddedS3Server} per test class:
 *
 * <pre>{@code
 * @RegisterExtension static final S3ServerExtension S3 = new S3ServerExtension();
 * ... S3.server().createBucket("b");
 * }</pre>
 */
public final class S3ServerExtension implements BeforeAllCallback, AfterAllCallback {
  private EmbeddedS3Server server;

  @Override
  public void beforeAll(ExtensionContext context) {
    server = EmbeddedS3Server.start();
  }

  @Override
  public void afterAll(ExtensionContext context) {
    if (server != null) {
      server.close();
      server = null;
    }
  }

  public EmbeddedS3Server server() {
    if (server == null) {
      throw new IllegalStateException("the embedded S3 server runs only between beforeAll and afterAll");
    }
    return server;
  }
}
