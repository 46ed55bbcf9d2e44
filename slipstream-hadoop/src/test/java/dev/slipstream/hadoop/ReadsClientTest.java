/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.hadoop;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.slipstream.S3Clients;
import dev.slipstream.testkit.Misbehaviour;
import dev.slipstream.testkit.RequestInfo;
import dev.slipstream.testkit.ScriptedS3Server;
import java.io.IOException;
import java.net.URI;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.s3a.DefaultS3ClientFactory;
import org.apache.hadoop.fs.s3a.audit.impl.LoggingAuditor;
import org.apache.hadoop.util.functional.FutureIO;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.http.SdkHttpRequest;

/**
 * The read path's GETs go through a client of the FileSystem's own, built from the settings of the
 * client S3A built ({@link S3AReadsClient}): without S3A's socket timeout, a GET whose response never
 * begins fails after {@code connect.timeout} plus {@code read.stall.timeout} on each attempt; each GET
 * goes where S3A's own HEAD goes, signed for the same region, for a region alone, FIPS, an access point
 * and a custom endpoint (stopped before it leaves: no network), and carries what S3A's own would
 * (requester pays, custom headers, user agent, the audit referrer). Where S3A's own client must read (a
 * client factory of the user's), S3A's does.
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
  void theReadsClientParsesLastModifiedOncePerValueOnlyWhereEveryOtherInterceptorIsS3AsOwn() throws IOException {
    try (SlipstreamS3AFileSystem fs = fs(SlipstreamS3AFileSystemTest.confAt(server.endpoint()))) {
      List<ExecutionInterceptor> s3as = S3AReadsClient.notTheSdks(
          fs.getS3AInternals().getAmazonS3Client("test").serviceClientConfiguration().overrideConfiguration()
              .executionInterceptors());
      assertThat(s3as).isNotEmpty().allMatch(i -> i.getClass().getName().startsWith("org.apache.hadoop.fs.s3a."));
      assertThat(S3AReadsClient.withLastModifiedOncePerValue(s3as)).hasSize(s3as.size() + 1)
          .last().isInstanceOf(S3Clients.lastModifiedOncePerValue().getClass());
      assertThat(readAll(fs)).isEqualTo(data);

      List<ExecutionInterceptor> withUsers = new java.util.ArrayList<>(s3as);
      withUsers.add(new StopAndRecord());
      assertThat(S3AReadsClient.withLastModifiedOncePerValue(withUsers)).isEqualTo(withUsers);
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

  /**
   * Where each request would go, as the SDK resolved and signed it, stopping it before it leaves: the
   * method (LIST for a listing), the URL without its query, and the signature's scope (region/service).
   * Given to S3A as an audit interceptor ({@code fs.s3a.audit.execution.interceptors}), which S3A's client
   * runs and the reads client keeps.
   */
  public static class StopAndRecord implements ExecutionInterceptor {
    static final List<String> SEEN = new CopyOnWriteArrayList<>();
    private static final Pattern SCOPE = Pattern.compile("Credential=[^/]+/\\d{8}/([^,]+)/aws4_request");

    @Override
    public void beforeTransmission(Context.BeforeTransmission context, ExecutionAttributes attributes) {
      SdkHttpRequest r = context.httpRequest();
      Matcher scope = SCOPE.matcher(r.firstMatchingHeader("Authorization").orElse(""));
      String method = r.rawQueryParameters().containsKey("list-type") ? "LIST" : r.method().name();
      SEEN.add(method + " " + r.protocol() + "://" + r.host() + ":" + r.port() + r.encodedPath() + " "
          + (scope.find() ? scope.group(1) : "unsigned"));
      throw new IllegalStateException("stopped before transmission by the test");
    }
  }

  /** S3A's settings of a place with no server behind it: every request is stopped before it leaves. */
  private static Configuration nowhere(String... keysAndValues) {
    Configuration conf = new Configuration(false);
    conf.set("fs.s3a.impl", SlipstreamS3AFileSystem.class.getName());
    conf.setBoolean("fs.s3a.impl.disable.cache", true);
    conf.set("fs.slipstream.cache.disk.dir", "target/test-disk-cache");
    conf.set("fs.slipstream.retry.max", "0");
    conf.set("fs.s3a.retry.limit", "0");
    conf.set("fs.s3a.attempts.maximum", "0");
    conf.set("fs.s3a.bucket.probe", "0");
    conf.set("fs.s3a.aws.credentials.provider", "org.apache.hadoop.fs.s3a.SimpleAWSCredentialsProvider");
    conf.set("fs.s3a.access.key", "AKIDREADSCLIENTTEST");
    conf.set("fs.s3a.secret.key", "not-a-secret");
    conf.set("fs.s3a.audit.execution.interceptors", StopAndRecord.class.getName());
    for (int i = 0; i < keysAndValues.length; i += 2) {
      conf.set(keysAndValues[i], keysAndValues[i + 1]);
    }
    return conf;
  }

  static Stream<Arguments> places() {
    return Stream.of(
        Arguments.of("a region alone", new String[] {"fs.s3a.endpoint.region", "eu-west-1"}),
        Arguments.of("FIPS", new String[] {"fs.s3a.endpoint.region", "us-east-2", "fs.s3a.endpoint.fips", "true"}),
        Arguments.of("an access point", new String[] {"fs.s3a.endpoint.region", "eu-west-1",
            "fs.s3a.bucket." + BUCKET + ".accesspoint.arn", "arn:aws:s3:eu-west-1:123456789012:accesspoint/reports"}),
        Arguments.of("a custom endpoint, virtual hosts", new String[] {"fs.s3a.endpoint", "https://s3.example.test",
            "fs.s3a.endpoint.region", "eu-central-1", "fs.s3a.path.style.access", "false"}),
        Arguments.of("a custom endpoint, path style", new String[] {"fs.s3a.endpoint", "http://s3.example.test:9000",
            "fs.s3a.endpoint.region", "eu-central-1", "fs.s3a.path.style.access", "true"}));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("places")
  void theReadPathsGetGoesWhereS3AsOwnHeadGoesSignedForTheSameRegion(String place, String[] settings)
      throws IOException {
    StopAndRecord.SEEN.clear();
    Path file = new Path("s3a://" + BUCKET + "/dir/data.bin");
    try (SlipstreamS3AFileSystem fs = fs(nowhere(settings))) {
      assertThat(fs.readsThroughOwnClient()).isTrue();
      assertThat(catchThrowable(() -> fs.getFileStatus(file))).as("S3A's HEAD, stopped").isNotNull();
      assertThat(catchThrowable(() -> {
        try (FSDataInputStream in = FutureIO.awaitFuture(
            fs.openFile(file).opt("fs.option.openfile.length", "1000").build())) {
          in.read();
        }
      })).as("Slipstream's GET, stopped").isNotNull();
    }
    String head = StopAndRecord.SEEN.stream().filter(r -> r.startsWith("HEAD ")).findFirst().orElseThrow();
    List<String> gets = StopAndRecord.SEEN.stream().filter(r -> r.startsWith("GET ")).toList();
    assertThat(gets).as(place).isNotEmpty().allSatisfy(
        g -> assertThat(g.substring("GET ".length())).isEqualTo(head.substring("HEAD ".length())));
  }

  /** A client factory of a user's own: what it builds is not the default factory's. */
  public static class UsersFactory extends DefaultS3ClientFactory {
  }
}
