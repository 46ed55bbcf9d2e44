/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.hadoop.contract;

import dev.slipstream.testkit.ForkedS3Server;

/**
 * The one S3 server of a contract test run: s3proxy in a child JVM over in-memory storage, started
 * by the first test that needs it and stopped when the test JVM exits. Every contract test class of the run shares it (and
 * the bucket {@link #BUCKET}), so the cost of starting a JVM is paid once.
 */
final class ContractS3Server {
  /** The bucket every contract test works in. */
  static final String BUCKET = "slipstream-contract";

  private static ForkedS3Server server;

  private ContractS3Server() {
  }

  static synchronized ForkedS3Server get() {
    if (server == null) {
      // In-memory storage: S3A keeps "dir/" marker objects and may hold both "a" and "a/b", which a
      // file-backed store cannot represent.
      ForkedS3Server started = ForkedS3Server.start(ForkedS3Server.Storage.TRANSIENT);
      started.createBucket(BUCKET);
      Runtime.getRuntime().addShutdownHook(new Thread(started::close, "contract-s3proxy-stop"));
      server = started;
    }
    return server;
  }
}
