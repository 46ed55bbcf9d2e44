/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.hadoop;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.slipstream.testkit.Misbehaviour;
import dev.slipstream.testkit.RequestInfo;
import dev.slipstream.testkit.ScriptedS3Server;
import java.io.IOException;
import java.net.URI;
import java.util.List;
import java.util.Random;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.s3a.DefaultS3ClientFactory;
import org.apache.hadoop.fs.s3a.audit.impl.LoggingAuditor;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The read path's GETs go through a client of the FileSystem's own, built from the settings of the
 * client S3A built ({@link S3AReadsClient}): without S3A's socket timeout, a GET whose response never
 * begins fails after {@code connect.timeout} plus {@code read.stall.timeout} on each attempt; and each GET
 * carries what S3A's own would (requester pays, custom headers, user agent, the audit referrer). Where
 * S3A's own client must read (a client factory of the user's), S3A's does.
 */
@Timeout(120)
class ReadsClientTest {
  static final String BUCKET = "reads";
  static ScriptedS3Server server;
  static byte[] data;

  @BeforeAll
  static void start() {
    server = ScriptedS3Server.start();
    data = new byte[3 * 1024 * 1024 + 321];
    new Random(17).nextBytes(data);
    server.put(BUCKET, "data.bin", data);
  }

  @AfterAll
  static void stop() {
    server.close();
  }

  @BeforeEach
  void clean() {
    server.reset();
  }

  private static SlipstreamS3AFileSystem fs(Configuration conf) throws IOException {
    return (SlipstreamS3AFileSystem) FileSystem.newInstance(URI.create("s3a://" + BUCKET + "/"), conf);
  }

  private static byte[] readAll(FileSystem fs) throws IOException {
    byte[] read = new byte[data.length];
    try (FSDataInputStream in = fs.open(new Path("s3a://" + BUCKET + "/data.bin"))) {
      in.readFully(read);
    }
    return read;
  }

  @Test
  void aGetWhoseResponseNeverBeginsFailsAfterTheConnectAndStallTimeoutsNotS3AsSocketTimeout() throws IOException {
    Configuration conf = SlipstreamS3AFileSystemTest.confAt(server.endpoint());
    conf.set("fs.s3a.connection.timeout", "10m"); // S3A's socket timeout and request timeout: far beyond
    conf.set("fs.s3a.connection.request.timeout", "10m"); // this test's
    conf.set("fs.slipstream.read.stall.timeout", "1s");
    conf.set("fs.slipstream.connect.timeout", "1s");
    conf.set("fs.slipstream.retry.max", "1");
    server.when(RequestInfo::isGet, Misbehaviour.STALL_HEAD);
    try (SlipstreamS3AFileSystem fs = fs(conf)) {
      assertThat(fs.readsThroughOwnClient()).isTrue();
      assertThatThrownBy(() -> readAll(fs)).isInstanceOf(IOException.class)
          .hasMessageContaining("s3://" + BUCKET + "/data.bin")
          .hasMessageContaining("no response within the connect and stall timeouts");
    }
  }

  @Test
  void everyGetCarriesS3AsRequesterPaysCustomHeadersUserAgentAndAuditReferrerAsS3AsOwnHead() throws IOException {
    Configuration conf = SlipstreamS3AFileSystemTest.confAt(server.endpoint());
    conf.setBoolean("fs.s3a.requester.pays.enabled", true);
    conf.set("fs.s3a.client.s3.custom.headers", "x-reads-test=kept");
    conf.set("fs.s3a.user.agent.prefix", "reads-client-test");
    conf.set("fs.s3a.audit.service.classname", LoggingAuditor.class.getName());
    try (SlipstreamS3AFileSystem fs = fs(conf)) {
      assertThat(fs.readsThroughOwnClient()).isTrue();
      assertThat(readAll(fs)).isEqualTo(data);
    }
    // S3A's own request: its open's HEAD. Hadoop 3.4.1 has no custom headers, 3.5 has.
    RequestInfo head = server.requests().stream().filter(RequestInfo::isHead).findFirst().orElseThrow();
    List<RequestInfo> gets = server.requests().stream().filter(RequestInfo::isGet).toList();
    assertThat(gets).isNotEmpty().allSatisfy(g -> {
      assertThat(g.header("x-amz-request-payer")).isEqualTo("requester");
      assertThat(g.header("x-reads-test")).isEqualTo(head.header("x-reads-test"));
      assertThat(g.header("user-agent")).contains("reads-client-test");
      assertThat(g.header("referer")).contains("op_open").doesNotContain("outside-span");
    });
  }

  @Test
  void aClientFactoryOfTheUsersKeepsTheReadsOnS3AsClient() throws IOException {
    Configuration conf = SlipstreamS3AFileSystemTest.confAt(server.endpoint());
    conf.set("fs.s3a.s3.client.factory.impl", UsersFactory.class.getName());
    try (SlipstreamS3AFileSystem fs = fs(conf)) {
      assertThat(fs.readsThroughOwnClient()).isFalse();
      assertThat(readAll(fs)).isEqualTo(data);
    }
  }

  @Test
  void s3AsClientReadsWhereOnlyItCan() {
    Configuration conf = new Configuration(false);
    assertThat(S3AReadsClient.whyS3AsClient(conf, false)).isNull();
    conf.set("fs.s3a.s3.client.factory.impl", DefaultS3ClientFactory.class.getName());
    assertThat(S3AReadsClient.whyS3AsClient(conf, false)).isNull();
    assertThat(S3AReadsClient.whyS3AsClient(conf, true)).contains("client-side encryption");
    conf.setBoolean("fs.s3a.s3accessgrants.enabled", true);
    assertThat(S3AReadsClient.whyS3AsClient(conf, false)).contains("fs.s3a.s3accessgrants.enabled");
    conf.set("fs.s3a.s3.client.factory.impl", UsersFactory.class.getName());
    assertThat(S3AReadsClient.whyS3AsClient(conf, false)).contains(UsersFactory.class.getName());
  }

  /** A client factory of a user's own: what it builds is not the default factory's. */
  public static class UsersFactory extends DefaultS3ClientFactory {
  }
}
