/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.hadoop.contract;

import dev.slipstream.hadoop.SlipstreamS3AFileSystem;
import dev.slipstream.testkit.ForkedS3Server;
import dev.slipstream.testkit.S3ASettings;
import java.io.IOException;
import java.net.URI;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.contract.AbstractFSContract;

/**
 * Binds Hadoop's FileSystem contract tests to {@code s3a://} served by s3proxy (one child JVM for the
 * whole run, see {@link ContractS3Server}), with {@code fs.s3a.impl} set to
 * {@link SlipstreamS3AFileSystem}.
 *
 * <p>The semantics the tests expect are declared in {@value #CONTRACT_XML}: those of S3A, which our
 * FileSystem must keep. To run the same tests against the stock S3A connector (to tell a server
 * limitation from a bug of ours), pass {@code -Dslipstream.contract.fs.impl=org.apache.hadoop.fs.s3a.S3AFileSystem}.
 *
 * <p>S3A's reads go through its {@code classic} input stream, the one whose semantics S3A's contract
 * options describe (Hadoop 3.5 otherwise defaults to its {@code analytics} stream; the option does not
 * exist in 3.4, where classic is the only default). {@link SlipstreamS3AFileSystem} opens its own stream,
 * so the setting only shapes the stock-S3A baseline. Another S3A stream:
 * {@code -Dslipstream.contract.s3a.stream=analytics}.
 */
public class SlipstreamS3AContract extends AbstractFSContract {
  /** Contract options of this binding, a test resource. */
  public static final String CONTRACT_XML = "contract/slipstream-s3a.xml";

  /** System property naming the FileSystem class to test instead of {@link SlipstreamS3AFileSystem}. */
  public static final String FS_IMPL_PROPERTY = "slipstream.contract.fs.impl";

  /**
   * System property choosing S3A's own input stream ({@code fs.s3a.input.stream.type}) for the stock
   * and stub runs; default {@code classic}.
   */
  public static final String S3A_STREAM_PROPERTY = "slipstream.contract.s3a.stream";

  private final String fsImpl;

  public SlipstreamS3AContract(Configuration conf) {
    super(conf);
    addConfResource(CONTRACT_XML);
    String impl = System.getProperty(FS_IMPL_PROPERTY, "").trim();
    this.fsImpl = impl.isEmpty() ? SlipstreamS3AFileSystem.class.getName() : impl;
    configure(getConf(), ContractS3Server.get(), fsImpl);
    getConf().set("fs.s3a.input.stream.type", System.getProperty(S3A_STREAM_PROPERTY, "classic"));
  }

  /** The S3A settings for s3proxy on loopback; set after the contract resource so nothing there overrides them. */
  static void configure(Configuration conf, ForkedS3Server server, String fsImpl) {
    conf.set("fs.s3a.impl", fsImpl);
    // A disk cache of this build's own, not the user's default one under java.io.tmpdir.
    conf.set("fs.slipstream.cache.disk.dir", "target/test-disk-cache");
    // Endpoint, region, path style, plain http, only the test keys, no bucket probe (the bucket is made
    // before the first test).
    S3ASettings.forEndpoint(server.endpoint()).forEach(conf::set);
    // s3proxy returns ETags and answers If-Match with 412: S3A's default, server-side ETag checks, apply.
    conf.set("fs.s3a.change.detection.source", "etag");
    conf.set("fs.s3a.change.detection.mode", "server");
    conf.setBoolean("fs.s3a.change.detection.version.required", true);
    // A loopback server: fail fast rather than back off for seconds when something is wrong.
    conf.setInt("fs.s3a.attempts.maximum", 2);
    conf.setInt("fs.s3a.retry.limit", 2);
    conf.set("fs.s3a.retry.interval", "100ms");
    conf.setInt("fs.s3a.retry.throttle.limit", 2);
    conf.set("fs.s3a.retry.throttle.interval", "100ms");
    // Small test files: buffer uploads in memory rather than in hadoop.tmp.dir.
    conf.set("fs.s3a.fast.upload.buffer", "array");
  }

  @Override
  public String getScheme() {
    return "s3a";
  }

  @Override
  public FileSystem getTestFileSystem() throws IOException {
    FileSystem fs = FileSystem.get(URI.create("s3a://" + ContractS3Server.BUCKET + "/"), getConf());
    if (!fs.getClass().getName().equals(fsImpl)) {
      throw new IllegalStateException("s3a:// is served by " + fs.getClass().getName() + ", not " + fsImpl);
    }
    return fs;
  }

  @Override
  public Path getTestPath() {
    return new Path("/test");
  }

  @Override
  public String toString() {
    return "s3a contract on s3proxy with fs.s3a.impl=" + fsImpl;
  }
}
