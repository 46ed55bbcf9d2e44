/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.iceberg;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.iceberg.aws.AwsClientProperties;
import org.apache.iceberg.aws.s3.S3FileIOAwsClientFactory;
import org.apache.iceberg.aws.s3.S3FileIOProperties;
import org.apache.iceberg.io.SeekableInputStream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.http.SdkHttpRequest;
import software.amazon.awssdk.services.s3.S3AsyncClient;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.S3ClientBuilder;

/**
 * Where a read goes for an access point named by its ARN: to the access point's host, signed for the
 * ARN's region, which {@code s3.use-arn-region-enabled} allows to differ from {@code client.region}, as
 * for S3FileIO's own requests. The route is the AWS SDK's endpoint rules' on S3FileIO's client; no request
 * leaves: S3FileIO's client is built by a test factory ({@code s3.client-factory-impl}) with S3FileIO's
 * own service settings (path style, ARN region) and an interceptor that records each request and stops it.
 */
@Timeout(60)
class AccessPointArnRouteTest {
  static final String ARN = "arn:aws:s3:eu-west-1:123456789012:accesspoint/reports";
  static final String PATH = "s3://lake/db/t/data.parquet";

  @BeforeEach
  void forget() {
    StopAndRecord.SEEN.clear();
  }

  private static Map<String, String> properties(boolean useArnRegion) {
    Map<String, String> p = new LinkedHashMap<>();
    p.put("s3.client-factory-impl", StoppingClients.class.getName());
    p.put("client.region", "us-east-1");
    p.put("s3.access-points.lake", ARN);
    p.put("s3.use-arn-region-enabled", String.valueOf(useArnRegion));
    p.put("slipstream.retry.max", "0");
    p.put("slipstream.cache.disk.mode", "off");
    return p;
  }

  /** Reads {@code PATH} by path and by length; every request is stopped, so both fail. */
  private static void tryToRead(SlipstreamFileIO io) {
    assertThat(catchThrowable(() -> io.newInputFile(PATH).getLength())).as("the HEAD, stopped").isNotNull();
    assertThat(catchThrowable(() -> {
      try (SeekableInputStream in = io.newInputFile(PATH, 1000).newStream()) {
        in.read();
      }
    })).as("the GET, stopped").isNotNull();
  }

  @Test
  void readsGoToTheAccessPointsHostSignedForItsRegion() {
    try (SlipstreamFileIO io = new SlipstreamFileIO()) {
      io.initialize(properties(true));
      tryToRead(io);
    }
    assertThat(StopAndRecord.SEEN).containsExactly(
        "HEAD https://reports-123456789012.s3-accesspoint.eu-west-1.amazonaws.com/db/t/data.parquet eu-west-1",
        "GET https://reports-123456789012.s3-accesspoint.eu-west-1.amazonaws.com/db/t/data.parquet eu-west-1");
  }

  @Test
  void withoutArnRegionAnAccessPointInAnotherRegionIsRefusedBeforeAnyRequest() {
    try (SlipstreamFileIO io = new SlipstreamFileIO()) {
      io.initialize(properties(false));
      Throwable t = catchThrowable(() -> io.newInputFile(PATH).getLength());
      assertThat(t).isNotNull();
      assertThat(t).hasStackTraceContaining("eu-west-1").hasStackTraceContaining("lake");
    }
    assertThat(StopAndRecord.SEEN).as("the SDK refuses the route, as for S3FileIO's own requests").isEmpty();
  }

  /** S3FileIO's S3 client, with S3FileIO's service settings, whose requests are recorded and stopped. */
  public static class StoppingClients implements S3FileIOAwsClientFactory {
    private Map<String, String> properties;

    @Override
    public void initialize(Map<String, String> props) {
      this.properties = Map.copyOf(props);
    }

    @Override
    public S3Client s3() {
      S3ClientBuilder b = S3Client.builder()
          .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("AKIDTEST", "not-a-secret")))
          .overrideConfiguration(o -> o.addExecutionInterceptor(new StopAndRecord()));
      new AwsClientProperties(properties).applyClientRegionConfiguration(b);
      new S3FileIOProperties(properties).applyServiceConfigurations(b);
      return b.build();
    }

    @Override
    public S3AsyncClient s3Async() {
      throw new UnsupportedOperationException("not used by these tests");
    }
  }

  /** Records "METHOD https://host/path signing-region" of each request and stops it before it leaves. */
  public static class StopAndRecord implements ExecutionInterceptor {
    static final List<String> SEEN = new CopyOnWriteArrayList<>();
    private static final Pattern SCOPE = Pattern.compile("Credential=[^/]+/\\d{8}/([^/]+)/s3/aws4_request");

    @Override
    public void beforeTransmission(Context.BeforeTransmission context, ExecutionAttributes attributes) {
      SdkHttpRequest r = context.httpRequest();
      Matcher scope = SCOPE.matcher(r.firstMatchingHeader("Authorization").orElse(""));
      SEEN.add(r.method().name() + " " + r.protocol() + "://" + r.host() + r.encodedPath() + " "
          + (scope.find() ? scope.group(1) : "unsigned"));
      throw new IllegalStateException("stopped before transmission by the test");
    }
  }
}
