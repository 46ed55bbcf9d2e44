/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.iceberg;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.slipstream.testkit.RequestInfo;
import dev.slipstream.testkit.S3Wire;
import dev.slipstream.testkit.ScriptedS3Server;
import dev.slipstream.testkit.TestData;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.iceberg.aws.AwsClientFactory;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.io.SeekableInputStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.glue.GlueClient;
import software.amazon.awssdk.services.kms.KmsClient;
import software.amazon.awssdk.services.s3.S3AsyncClient;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * S3FileIO's client settings that change who reads or where a request goes reach Slipstream's reads, each
 * against a real server where one runs here: remote signing at a signer endpoint ({@code s3.remote-signing-
 * enabled}), a role assumed at an STS endpoint ({@code client.factory} of Iceberg's
 * {@code AssumeRoleAwsClientFactory} with {@code client.assume-role.*}), a client factory of the catalog's own
 * ({@code client.factory}), the signing region ({@code client.region}), and an HTTP proxy
 * ({@code http-client.proxy-endpoint}) with the AWS hosts that acceleration and dual-stack name
 * ({@code s3.acceleration-enabled}, {@code s3.dualstack-enabled}). The signer and STS endpoints are small
 * servers of this test; the store tells principals apart by the access key of each signature.
 */
@Timeout(120)
class ClientSettingsFileIOTest {
  static final String BUCKET = "settings";
  /** A bucket in eu-west-1, where the store redirects requests signed for another region. */
  static final String FAR = "far-away";
  static final int SIZE = 300_000;
  static final Pattern SCOPE = Pattern.compile("Credential=([^/]+)/\\d{8}/([^/]+)/s3/aws4_request");
  static final ObjectMapper JSON = new ObjectMapper();
  static ScriptedS3Server store;

  @BeforeAll
  static void start() {
    store = ScriptedS3Server.start();
    store.put(BUCKET, "t/data.parquet", TestData.bytes(1, SIZE));
    store.put(BUCKET, "t/v1.metadata.json", TestData.bytes(2, 4000));
    System.setProperty("aws.accessKeyId", "host-default");
    System.setProperty("aws.secretAccessKey", "host-default-secret");
    System.setProperty("aws.region", "us-east-1");
  }

  @AfterAll
  static void stop() {
    System.clearProperty("aws.accessKeyId");
    System.clearProperty("aws.secretAccessKey");
    System.clearProperty("aws.region");
    store.close();
  }

  @BeforeEach
  void forget() {
    store.reset();
  }

  private static Map<String, String> properties() {
    Map<String, String> p = new LinkedHashMap<>();
    p.put("s3.endpoint", store.endpoint().toString());
    p.put("s3.path-style-access", "true");
    p.put("client.region", "us-east-1");
    p.put("slipstream.cache.memory", "false");
    p.put("slipstream.cache.disk.mode", "off");
    return p;
  }

  /** Reads the data file by length and the metadata file by path, whole, checking the bytes. */
  private static void readBoth(Map<String, String> properties) throws IOException {
    try (SlipstreamFileIO io = new SlipstreamFileIO()) {
      io.initialize(properties);
      byte[] data = read(io.newInputFile("s3://" + BUCKET + "/t/data.parquet", SIZE));
      assertThat(TestData.firstMismatch(1, 0, data, 0, data.length)).isEqualTo(-1);
      byte[] metadata = read(io.newInputFile("s3://" + BUCKET + "/t/v1.metadata.json"));
      assertThat(TestData.firstMismatch(2, 0, metadata, 0, metadata.length)).isEqualTo(-1);
    }
  }

  private static byte[] read(InputFile file) throws IOException {
    try (SeekableInputStream in = file.newStream()) {
      return in.readAllBytes();
    }
  }

  /** "principal region" of each request the store received. */
  private static List<String> signers() {
    return store.requests().stream().map(ClientSettingsFileIOTest::signer).distinct().toList();
  }

  private static String signer(RequestInfo r) {
    Matcher m = SCOPE.matcher(String.valueOf(r.header("authorization")));
    return m.find() ? m.group(1) + " " + m.group(2) : "unsigned";
  }

  private static HttpServer serve(String path, com.sun.net.httpserver.HttpHandler handler) throws IOException {
    HttpServer s = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 10);
    s.createContext(path, handler);
    s.start();
    return s;
  }

  private static void answer(HttpExchange ex, String contentType, byte[] body) throws IOException {
    ex.getResponseHeaders().set("Content-Type", contentType);
    ex.sendResponseHeaders(200, body.length);
    try (OutputStream out = ex.getResponseBody()) {
      out.write(body);
    }
  }

  /**
   * {@code s3.remote-signing-enabled}: every read is signed by the catalog's signer endpoint (Iceberg's
   * {@code S3V4RestSignerClient} posts each request to {@code s3.signer.uri} on 1.10, {@code signer.uri} and
   * {@code signer.endpoint} on 1.12), whose signature names its
   * own principal; S3FileIO's client then has no credentials of its own to sign with.
   */
  @Test
  void remoteSigningSignsEveryReadAtTheSignerEndpoint() throws IOException {
    List<String> signed = new CopyOnWriteArrayList<>();
    HttpServer signer = serve("/v1/aws/s3/sign", ex -> {
      try (ex) {
        JsonNode request = JSON.readTree(ex.getRequestBody());
        String uri = request.get("uri").asText();
        signed.add(request.get("method").asText() + " " + URI.create(uri).getPath());
        ObjectNode response = JSON.createObjectNode();
        response.put("uri", uri);
        ObjectNode headers = request.get("headers").deepCopy();
        response.set("headers", headers);
        headers.putArray("Authorization").add("AWS4-HMAC-SHA256 Credential=catalog-signer/20260101/"
            + request.get("region").asText() + "/s3/aws4_request, SignedHeaders=host, Signature=00");
        answer(ex, "application/json", JSON.writeValueAsBytes(response));
      }
    });
    try {
      Map<String, String> p = properties();
      p.put("s3.remote-signing-enabled", "true");
      String uri = "http://127.0.0.1:" + signer.getAddress().getPort() + "/";
      p.put("s3.signer.uri", uri); // Iceberg 1.10's names
      p.put("signer.uri", uri); // Iceberg 1.12's, which require the endpoint too
      p.put("signer.endpoint", "v1/aws/s3/sign");
      readBoth(p);
    } finally {
      signer.stop(0);
    }
    assertThat(signers()).containsExactly("catalog-signer us-east-1");
    assertThat(signed).as("the signer signed each read").contains("GET /" + BUCKET + "/t/data.parquet",
        "GET /" + BUCKET + "/t/v1.metadata.json");
    assertThat(signed).hasSizeGreaterThanOrEqualTo(store.requests().size());
  }

  /**
   * {@code client.factory=org.apache.iceberg.aws.AssumeRoleAwsClientFactory} with {@code client.assume-role.*}:
   * the reads go as the role, whose credentials STS gave for the host's own (the STS endpoint is this test's,
   * through the AWS SDK's {@code aws.endpointUrlSts}).
   */
  @Test
  void anAssumedRoleReadsAsTheRoleStsGave() throws IOException {
    List<String> assumed = new CopyOnWriteArrayList<>();
    HttpServer sts = serve("/", ex -> {
      try (ex) {
        String form = new String(ex.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
        Map<String, String> fields = new LinkedHashMap<>();
        for (String kv : form.split("&")) {
          int eq = kv.indexOf('=');
          fields.put(kv.substring(0, eq), URLDecoder.decode(kv.substring(eq + 1), StandardCharsets.UTF_8));
        }
        String auth = ex.getRequestHeaders().getFirst("Authorization");
        assumed.add(fields.get("Action") + " " + fields.get("RoleArn") + " by "
            + auth.substring(auth.indexOf("Credential=") + 11, auth.indexOf('/', auth.indexOf("Credential="))));
        answer(ex, "text/xml", ("<AssumeRoleResponse xmlns=\"https://sts.amazonaws.com/doc/2011-06-15/\">"
            + "<AssumeRoleResult><Credentials><AccessKeyId>role-reader</AccessKeyId>"
            + "<SecretAccessKey>role-secret</SecretAccessKey><SessionToken>role-token</SessionToken>"
            + "<Expiration>2099-01-01T00:00:00Z</Expiration></Credentials><AssumedRoleUser>"
            + "<Arn>arn:aws:sts::123456789012:assumed-role/reader/s</Arn><AssumedRoleId>AROATEST:s</AssumedRoleId>"
            + "</AssumedRoleUser></AssumeRoleResult><ResponseMetadata><RequestId>1</RequestId></ResponseMetadata>"
            + "</AssumeRoleResponse>").getBytes(StandardCharsets.UTF_8));
      }
    });
    System.setProperty("aws.endpointUrlSts", "http://127.0.0.1:" + sts.getAddress().getPort());
    try {
      Map<String, String> p = properties();
      p.put("client.factory", "org.apache.iceberg.aws.AssumeRoleAwsClientFactory");
      p.put("client.assume-role.arn", "arn:aws:iam::123456789012:role/reader");
      p.put("client.assume-role.region", "us-east-1");
      readBoth(p);
    } finally {
      System.clearProperty("aws.endpointUrlSts");
      sts.stop(0);
    }
    assertThat(assumed).isNotEmpty().allMatch(a -> a.equals("AssumeRole arn:aws:iam::123456789012:role/reader by host-default"));
    assertThat(signers()).containsExactly("role-reader us-east-1");
  }

  /** {@code client.factory} naming the catalog's own factory: reads go through the S3 client it builds. */
  @Test
  void aClientFactoryOfTheCatalogsBuildsTheClientReadsGoThrough() throws IOException {
    Map<String, String> p = properties();
    p.put("client.factory", OnePrincipalClients.class.getName());
    readBoth(p);
    assertThat(signers()).containsExactly("factory-principal eu-west-2");
  }

  /** {@code client.region}: reads are signed for the catalog's region. */
  @Test
  void readsAreSignedForTheClientRegion() throws IOException {
    Map<String, String> p = properties();
    p.put("client.region", "ap-southeast-2");
    readBoth(p);
    assertThat(signers()).containsExactly("host-default ap-southeast-2");
  }

  /**
   * {@code s3.cross-region-access-enabled}: a bucket in another region than {@code client.region} is read
   * once S3's redirect named its region, each request then signed for it; without the setting the read
   * fails on the redirect.
   */
  @Test
  void crossRegionAccessFollowsTheBucketsRegion() throws IOException {
    store.bucketInRegion(FAR, "eu-west-1");
    store.put(FAR, "t/data.parquet", TestData.bytes(1, SIZE));
    Map<String, String> p = properties();
    try (SlipstreamFileIO io = new SlipstreamFileIO()) {
      io.initialize(p);
      Throwable t = catchThrowable(() -> read(io.newInputFile("s3://" + FAR + "/t/data.parquet", SIZE)));
      assertThat(t).as("without the setting").isNotNull().hasStackTraceContaining("301");
    }
    store.reset();
    p.put("s3.cross-region-access-enabled", "true");
    try (SlipstreamFileIO io = new SlipstreamFileIO()) {
      io.initialize(p);
      byte[] data = read(io.newInputFile("s3://" + FAR + "/t/data.parquet", SIZE));
      assertThat(TestData.firstMismatch(1, 0, data, 0, data.length)).isEqualTo(-1);
    }
    List<RequestInfo> answered = store.requests().stream()
        .filter(r -> "eu-west-1".equals(S3Wire.signingRegionOf(r))).toList();
    assertThat(answered).as("the reads after the redirect").isNotEmpty()
        .allSatisfy(r -> assertThat(r.path()).startsWith("/" + FAR + "/"));
  }

  /**
   * {@code http-client.proxy-endpoint}: reads go through the proxy (here the store itself, which answers a
   * request for an absolute URI as a proxy would pass it on), to an endpoint name that resolves nowhere.
   */
  @Test
  void readsGoThroughTheHttpClientsProxy() throws IOException {
    Map<String, String> p = properties();
    p.put("s3.endpoint", "http://s3.through-the-proxy.invalid:9000");
    p.put("http-client.proxy-endpoint", store.endpoint().toString());
    readBoth(p);
    assertThat(store.requests()).isNotEmpty()
        .allSatisfy(r -> assertThat(r.header("host")).isEqualTo("s3.through-the-proxy.invalid:9000"));
  }

  /**
   * {@code s3.acceleration-enabled} and {@code s3.dualstack-enabled}, with no {@code s3.endpoint}: a read
   * goes to the AWS host each names, as S3FileIO's requests would, through the proxy, which records where
   * each tunnel was to go and refuses it, so that nothing leaves this machine.
   */
  @Test
  void accelerationAndDualStackSendReadsToTheHostsTheyName() throws Exception {
    assertThat(tunnelTargets("s3.acceleration-enabled")).containsOnly(BUCKET + ".s3-accelerate.amazonaws.com:443");
    assertThat(tunnelTargets("s3.dualstack-enabled"))
        .containsOnly(BUCKET + ".s3.dualstack.us-east-1.amazonaws.com:443");
  }

  /** The hosts a read's CONNECTs named, with {@code setting} on and a proxy that refuses every tunnel. */
  private static List<String> tunnelTargets(String setting) throws Exception {
    List<String> targets = new CopyOnWriteArrayList<>();
    try (ServerSocket proxy = new ServerSocket(0, 10, InetAddress.getLoopbackAddress())) {
      Thread t = new Thread(() -> {
        while (!proxy.isClosed()) {
          try (Socket s = proxy.accept()) {
            String line = new BufferedReader(new InputStreamReader(s.getInputStream(), StandardCharsets.US_ASCII))
                .readLine();
            if (line != null && line.startsWith("CONNECT ")) {
              targets.add(line.split(" ")[1]);
            }
            s.getOutputStream().write("HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
                .getBytes(StandardCharsets.US_ASCII));
          } catch (IOException e) {
            // closed
          }
        }
      }, "refusing-proxy");
      t.setDaemon(true);
      t.start();
      Map<String, String> p = new LinkedHashMap<>();
      p.put("client.region", "us-east-1");
      p.put(setting, "true");
      p.put("http-client.proxy-endpoint", "http://127.0.0.1:" + proxy.getLocalPort());
      p.put("s3.retry.num-retries", "0");
      p.put("slipstream.retry.max", "0");
      p.put("slipstream.cache.disk.mode", "off");
      try (SlipstreamFileIO io = new SlipstreamFileIO()) {
        io.initialize(p);
        Throwable failed = catchThrowable(() -> {
          try (SeekableInputStream in = io.newInputFile("s3://" + BUCKET + "/t/data.parquet", SIZE).newStream()) {
            in.read();
          }
        });
        assertThat(failed).as("the proxy refuses the tunnel").isNotNull();
      }
    }
    assertThat(targets).isNotEmpty();
    return targets;
  }

  /** A catalog's own {@code client.factory}: S3 clients of one principal, on the catalog's endpoint. */
  public static class OnePrincipalClients implements AwsClientFactory {
    private Map<String, String> properties;

    @Override
    public void initialize(Map<String, String> props) {
      this.properties = Map.copyOf(props);
    }

    @Override
    public S3Client s3() {
      return S3Client.builder()
          .credentialsProvider(StaticCredentialsProvider.create(
              AwsBasicCredentials.create("factory-principal", "factory-secret")))
          .region(Region.EU_WEST_2)
          .endpointOverride(URI.create(properties.get("s3.endpoint")))
          .forcePathStyle(true)
          .build();
    }

    @Override
    public S3AsyncClient s3Async() {
      throw new UnsupportedOperationException("not used by these tests");
    }

    @Override
    public GlueClient glue() {
      throw new UnsupportedOperationException("not used by these tests");
    }

    @Override
    public KmsClient kms() {
      throw new UnsupportedOperationException("not used by these tests");
    }

    @Override
    public DynamoDbClient dynamo() {
      throw new UnsupportedOperationException("not used by these tests");
    }
  }
}
