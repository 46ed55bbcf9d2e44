/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import com.sun.net.httpserver.HttpServer;
import dev.slipstream.SlipstreamConfig;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.core.sync.ResponseTransformer;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.S3ClientBuilder;
import software.amazon.awssdk.services.s3.endpoints.S3EndpointProvider;

/**
 * The client Slipstream builds keeps the S3 endpoint rules' answers per bucket ({@link KnownEndpoints},
 * {@link KnownAuthSchemes}) instead of running the rules on every request. These tests show that its
 * requests still go where S3A's would, for each way a user names the place: a custom endpoint (to a real
 * listener on 127.0.0.1), a region alone and an access point ARN (their requests are stopped just before
 * they would leave, so the host and path the SDK resolved, and the signature's scope, are checked without
 * a network), each with the rules asked on every request beside it, for several buckets and keys.
 */
class S3ClientRoutingTest {
  private static final String ACCESS_POINT_ARN = "arn:aws:s3:eu-west-1:123456789012:accesspoint/reports";

  @Test
  void customEndpointWithPathStyleSendsEveryRequestToTheEndpointWithTheBucketInThePath() throws IOException {
    List<String> seen = new CopyOnWriteArrayList<>();
    HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.createContext("/", exchange -> {
      seen.add(exchange.getRequestMethod() + " " + exchange.getRequestHeaders().getFirst("Host") + " "
          + exchange.getRequestURI().getRawPath());
      byte[] body = "abc".getBytes(StandardCharsets.US_ASCII);
      exchange.getResponseHeaders().add("ETag", "\"e\"");
      exchange.sendResponseHeaders(200, body.length);
      try (OutputStream out = exchange.getResponseBody()) {
        out.write(body);
      }
    });
    server.start();
    try {
      String endpoint = "http://127.0.0.1:" + server.getAddress().getPort();
      SlipstreamConfig config = config().set("endpoint", endpoint).set("region", "eu-central-1")
          .set("path.style.access", "true").build();
      try (S3Client client = S3ClientFactory.create(config)) {
        for (String[] bk : new String[][] {{"bucket-a", "x/1.bin"}, {"bucket-b", "y"}, {"bucket-a", "z/2 3.bin"}}) {
          client.getObject(r -> r.bucket(bk[0]).key(bk[1]), ResponseTransformer.toBytes());
        }
      }
      String host = "127.0.0.1:" + server.getAddress().getPort();
      assertThat(seen).containsExactly(
          "GET " + host + " /bucket-a/x/1.bin",
          "GET " + host + " /bucket-b/y",
          "GET " + host + " /bucket-a/z/2%203.bin");
    } finally {
      server.stop(0);
    }
  }

  @Test
  void customEndpointWithVirtualHostsPutsTheBucketInTheHostName() {
    SlipstreamConfig config = config().set("endpoint", "http://storage.example.test:9000").set("region", "us-east-1")
        .build();
    assertThat(requestsOf(config, "bucket-a", "k1", "bucket-b", "k2", "bucket-a", "k3")).containsExactly(
        "http://bucket-a.storage.example.test:9000/k1 us-east-1/s3",
        "http://bucket-b.storage.example.test:9000/k2 us-east-1/s3",
        "http://bucket-a.storage.example.test:9000/k3 us-east-1/s3");
  }

  @Test
  void regionWithoutEndpointGoesToThatRegionsS3() {
    SlipstreamConfig config = config().set("region", "eu-west-3").build();
    assertThat(requestsOf(config, "bucket-a", "k1", "bucket-b", "k2", "bucket-a", "k3")).containsExactly(
        "https://bucket-a.s3.eu-west-3.amazonaws.com/k1 eu-west-3/s3",
        "https://bucket-b.s3.eu-west-3.amazonaws.com/k2 eu-west-3/s3",
        "https://bucket-a.s3.eu-west-3.amazonaws.com/k3 eu-west-3/s3");
  }

  @Test
  void regionInAnotherPartitionGoesToThatPartitionsDomain() {
    SlipstreamConfig config = config().set("region", "cn-north-1").build();
    assertThat(requestsOf(config, "bucket-a", "k1", "bucket-a", "k2")).containsExactly(
        "https://bucket-a.s3.cn-north-1.amazonaws.com.cn/k1 cn-north-1/s3",
        "https://bucket-a.s3.cn-north-1.amazonaws.com.cn/k2 cn-north-1/s3");
  }

  @Test
  void accessPointArnGoesToTheAccessPointsHostAndSignsForItsRegion() {
    SlipstreamConfig config = config().set("region", "eu-west-1").build();
    assertThat(requestsOf(config, ACCESS_POINT_ARN, "k1", "bucket-a", "k2", ACCESS_POINT_ARN, "k3")).containsExactly(
        "https://reports-123456789012.s3-accesspoint.eu-west-1.amazonaws.com/k1 eu-west-1/s3",
        "https://bucket-a.s3.eu-west-1.amazonaws.com/k2 eu-west-1/s3",
        "https://reports-123456789012.s3-accesspoint.eu-west-1.amazonaws.com/k3 eu-west-1/s3");
  }

  @Test
  void anArnTheRulesRefuseIsRefusedOnEveryRequestWithTheRulesOwnMessage() {
    SlipstreamConfig config = config().set("region", "eu-west-1").build();
    String malformed = "arn:aws:s3:eu-west-1:123456789012:accesspoint";
    List<String> messages = new ArrayList<>();
    for (S3ClientBuilder builder : List.of(S3ClientFactory.builder(config, false, false),
        S3ClientFactory.builder(config, true, true))) {
      try (S3Client client = builder.build()) {
        for (int i = 0; i < 2; i++) {
          messages.add(catchThrowable(() -> client.getObject(r -> r.bucket(malformed).key("k"),
              ResponseTransformer.toBytes())).getMessage());
        }
      }
    }
    assertThat(messages.get(0)).contains("ARN");
    assertThat(messages).containsOnly(messages.get(0));
  }

  @Test
  void theClientKeepsTheRulesAnswersPerBucketAndNoMore() {
    SlipstreamConfig config = config().set("region", "eu-west-3").build();
    try (S3Client client = S3ClientFactory.create(config)) {
      assertThat(client.serviceClientConfiguration().endpointProvider()).containsInstanceOf(KnownEndpoints.class);
      assertThat(client.serviceClientConfiguration().authSchemeProvider()).isInstanceOf(KnownAuthSchemes.class);
    }
    KnownEndpoints known = new KnownEndpoints(S3EndpointProvider.defaultProvider());
    for (int i = 0; i < KnownEndpoints.LIMIT + 10; i++) {
      String bucket = "bucket-" + i;
      known.resolveEndpoint(p -> p.bucket(bucket).region(software.amazon.awssdk.regions.Region.EU_WEST_3)).join();
      known.resolveEndpoint(p -> p.bucket(bucket).region(software.amazon.awssdk.regions.Region.EU_WEST_3)).join();
    }
    assertThat(known.size()).isEqualTo(KnownEndpoints.LIMIT);
  }

  private static SlipstreamConfig.Builder config() {
    return SlipstreamConfig.builder().set("access.key", "AKIDEXAMPLE").set("secret.key", "not-a-real-secret");
  }

  /**
   * The URI and signing scope ("region/service") of a GET of each (bucket, key) pair in {@code bk}, from
   * the client Slipstream builds; and the same from a client that asks the rules on every request.
   */
  private static List<String> requestsOf(SlipstreamConfig config, String... bk) {
    List<String> known = requests(S3ClientFactory.builder(config, true, true), bk);
    List<String> rules = requests(S3ClientFactory.builder(config, false, false), bk);
    assertThat(known).isEqualTo(rules);
    return known;
  }

  private static List<String> requests(S3ClientBuilder builder, String... bk) {
    List<String> seen = new ArrayList<>();
    ExecutionInterceptor stop = new ExecutionInterceptor() {
      @Override
      public void beforeTransmission(Context.BeforeTransmission context, ExecutionAttributes attributes) {
        URI uri = context.httpRequest().getUri();
        String auth = context.httpRequest().firstMatchingHeader("Authorization").orElse("");
        // Credential=AKID/20260101/region/service/aws4_request
        String[] scope = auth.replaceAll(".*Credential=([^,]*),.*", "$1").split("/");
        seen.add(uri + " " + scope[2] + "/" + scope[3]);
        throw new StoppedBeforeSending();
      }
    };
    builder.overrideConfiguration(builder.overrideConfiguration().toBuilder().addExecutionInterceptor(stop).build());
    try (S3Client client = builder.build()) {
      for (int i = 0; i < bk.length; i += 2) {
        String bucket = bk[i];
        String key = bk[i + 1];
        assertThatThrownBy(() -> client.getObject(r -> r.bucket(bucket).key(key).range("bytes=0-9"),
            ResponseTransformer.toBytes())).isInstanceOf(StoppedBeforeSending.class);
      }
    }
    return seen;
  }

  private static final class StoppedBeforeSending extends RuntimeException {
    StoppedBeforeSending() {
      super("stopped before sending", null, false, false);
    }
  }
}
