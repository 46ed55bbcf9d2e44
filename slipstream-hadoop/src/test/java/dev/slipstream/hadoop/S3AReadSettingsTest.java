/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.hadoop;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.slipstream.testkit.Misbehaviour;
import dev.slipstream.testkit.RequestInfo;
import dev.slipstream.testkit.ScriptedS3Server;
import dev.slipstream.testkit.TestData;
import java.io.IOException;
import java.net.URI;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FileRange;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import software.amazon.awssdk.auth.signer.AwsS3V4Signer;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.signer.Signer;
import software.amazon.awssdk.http.SdkHttpFullRequest;
import software.amazon.awssdk.http.auth.aws.signer.AwsV4HttpSigner;
import software.amazon.awssdk.http.auth.spi.signer.AsyncSignRequest;
import software.amazon.awssdk.http.auth.spi.signer.AsyncSignedRequest;
import software.amazon.awssdk.http.auth.spi.signer.HttpSigner;
import software.amazon.awssdk.http.auth.spi.signer.SignRequest;
import software.amazon.awssdk.http.auth.spi.signer.SignedRequest;
import software.amazon.awssdk.identity.spi.AwsCredentialsIdentity;

/**
 * S3A's settings of how a read is made apply to Slipstream's GETs (docs/hadoop-spark.md, "S3A's settings on
 * the read path"): change detection against a store that refuses conditional GETs and on a versioned
 * bucket, per bucket too; the vectored read's merge sizes; both kinds of custom signer; and the keys
 * Slipstream replaces are named. The scripted store refuses conditional GETs as such stores do.
 */
@Timeout(120)
class S3AReadSettingsTest {
  static final String BUCKET = "settings";
  static final int SIZE = 3 * 1024 * 1024 + 99;
  static ScriptedS3Server server;

  @BeforeAll
  static void start() {
    server = ScriptedS3Server.start();
    server.versioned("versions");
    server.put(BUCKET, "data.bin", TestData.bytes(1, SIZE));
  }

  @AfterAll
  static void stop() {
    server.close();
  }

  @BeforeEach
  void clean() {
    server.reset();
  }

  private static Configuration conf(String... settings) {
    Configuration conf = SlipstreamS3AFileSystemTest.confAt(server.endpoint());
    conf.set("fs.slipstream.cache.disk.mode", "off"); // requests are counted: none served from an earlier read
    for (int i = 0; i < settings.length; i += 2) {
      conf.set(settings[i], settings[i + 1]);
    }
    return conf;
  }

  private static FileSystem fs(String bucket, Configuration conf) throws IOException {
    return FileSystem.newInstance(URI.create("s3a://" + bucket + "/"), conf);
  }

  private static byte[] readAll(FileSystem fs, String bucket, String key, int size) throws IOException {
    byte[] all = new byte[size];
    try (FSDataInputStream in = fs.open(new Path("s3a://" + bucket + "/" + key))) {
      in.readFully(0, all);
    }
    return all;
  }

  private static List<RequestInfo> gets() {
    return server.requests().stream().filter(RequestInfo::isGet).toList();
  }

  @Test
  void changeDetectionNoneReadsAStoreThatRefusesConditionalGetsAndSendsNoCondition() throws IOException {
    server.always(Misbehaviour.REFUSE_CONDITIONS);
    for (String[] settings : new String[][] {
        {"fs.s3a.change.detection.mode", "none"},
        {"fs.s3a.change.detection.mode", "client"},
        {"fs.s3a.change.detection.mode", "warn"},
        {"fs.s3a.bucket." + BUCKET + ".change.detection.mode", "none"}}) {
      server.reset();
      server.always(Misbehaviour.REFUSE_CONDITIONS);
      try (FileSystem fs = fs(BUCKET, conf(settings))) {
        byte[] all = readAll(fs, BUCKET, "data.bin", SIZE);
        assertThat(TestData.firstMismatch(1, 0, all, 0, all.length)).as(String.join("=", settings)).isEqualTo(-1);
      }
      assertThat(gets()).as(String.join("=", settings)).isNotEmpty()
          .allSatisfy(r -> assertThat(r.header("if-match")).isNull());
    }
    // The default, server: every GET names the version, and this store refuses them all.
    server.reset();
    server.always(Misbehaviour.REFUSE_CONDITIONS);
    try (FileSystem fs = fs(BUCKET, conf())) {
      assertThatThrownBy(() -> readAll(fs, BUCKET, "data.bin", SIZE)).isInstanceOf(IOException.class)
          .hasMessageContaining("501");
    }
  }

  @Test
  void versionIdSourcePinsTheVersionOnEveryGetAfterTheFirst() throws IOException {
    server.put("versions", "v.bin", TestData.bytes(2, SIZE));
    try (FileSystem fs = fs("versions", conf("fs.s3a.change.detection.source", "versionid",
        "fs.slipstream.block.size", "1M"))) {
      byte[] all = readAll(fs, "versions", "v.bin", SIZE);
      assertThat(TestData.firstMismatch(2, 0, all, 0, all.length)).isEqualTo(-1);
    }
    List<RequestInfo> gets = gets();
    assertThat(gets).hasSizeGreaterThan(1);
    assertThat(gets.subList(1, gets.size())).as("GETs after the first, which pinned the version id")
        .allSatisfy(r -> assertThat(r.query()).contains("versionId=v"));
  }

  private static int vectoredGets(Configuration conf) throws Exception {
    server.reset();
    try (FileSystem fs = fs(BUCKET, conf);
         FSDataInputStream in = fs.openFile(new Path("s3a://" + BUCKET + "/data.bin"))
             .opt("fs.option.openfile.read.policy", "vector").build().get()) {
      List<FileRange> ranges = List.of(FileRange.createFileRange(0, 1000),
          FileRange.createFileRange(100_000, 1000));
      in.readVectored(ranges, ByteBuffer::allocate);
      for (FileRange r : ranges) {
        ByteBuffer b = r.getData().get();
        byte[] got = new byte[b.remaining()];
        b.get(got);
        assertThat(TestData.firstMismatch(1, r.getOffset(), got, 0, got.length)).isEqualTo(-1);
      }
    }
    return gets().size();
  }

  @Test
  void vectoredReadsMergeAsS3AsMergeSizesSay() throws Exception {
    assertThat(vectoredGets(conf())).as("99,000 bytes apart: merged within the default 128 KiB").isEqualTo(1);
    assertThat(vectoredGets(conf("fs.s3a.vectored.read.min.seek.size", "16K"))).as("not within 16 KiB").isEqualTo(2);
    assertThat(vectoredGets(conf("fs.s3a.bucket." + BUCKET + ".vectored.read.min.seek.size", "16K")))
        .as("per bucket").isEqualTo(2);
    try (FileSystem fs = fs(BUCKET, conf("fs.s3a.vectored.read.min.seek.size", "16K"));
         FSDataInputStream in = fs.open(new Path("s3a://" + BUCKET + "/data.bin"))) {
      assertThat(in.minSeekForVectorReads()).isEqualTo(16 * 1024);
      assertThat(in.maxReadSizeForVectorReads()).isEqualTo(4 * 1024 * 1024);
    }
  }

  @Test
  void mergeSizesThatCannotHoldAreRefusedAtStartUpByName() {
    assertThatThrownBy(() -> fs(BUCKET, conf("fs.s3a.vectored.read.min.seek.size", "1M",
        "fs.s3a.vectored.read.max.merged.size", "64K")).close()).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("fs.s3a.vectored.read.max.merged.size");
  }

  /**
   * S3A's proxy: the endpoint names a host that does not exist, and the proxy is the store itself, which
   * serves a request by its path whichever host it names. Every request arriving proves it went through
   * the proxy, Slipstream's GETs as S3A's HEAD.
   */
  @Test
  void theReadPathsGetsGoThroughS3AsProxy() throws IOException {
    Configuration conf = conf("fs.s3a.endpoint", "http://s3.example.invalid:9000", "fs.s3a.endpoint.region", "us-east-1",
        "fs.s3a.path.style.access", "true", "fs.s3a.proxy.host", "127.0.0.1",
        "fs.s3a.proxy.port", String.valueOf(server.endpoint().getPort()));
    try (SlipstreamS3AFileSystem fs = (SlipstreamS3AFileSystem) fs(BUCKET, conf)) {
      assertThat(fs.readsThroughOwnClient()).isTrue();
      byte[] all = readAll(fs, BUCKET, "data.bin", SIZE);
      assertThat(TestData.firstMismatch(1, 0, all, 0, all.length)).isEqualTo(-1);
    }
    assertThat(gets()).isNotEmpty().allSatisfy(r -> assertThat(r.header("host")).isEqualTo("s3.example.invalid:9000"));
  }

  @Test
  void keysSlipstreamReplacesAreNamedWithWhatReplacesThem() {
    Configuration conf = conf("fs.s3a.readahead.range", "1M", "fs.s3a.prefetch.block.size", "16M");
    assertThat(S3AReadSettings.replacedIn(new Configuration())).as("Hadoop's defaults of these keys: nothing to say")
        .isEmpty();
    assertThat(S3AReadSettings.replacedIn(conf)).hasSize(2)
        .anySatisfy(m -> assertThat(m).startsWith("fs.s3a.readahead.range has no effect").contains("64 KiB"))
        .anySatisfy(m -> assertThat(m).startsWith("fs.s3a.prefetch.block.size").contains("fs.slipstream.block.size"));
  }

  /** A signer of the SDK's older kind, named by {@code fs.s3a.signing-algorithm}: SigV4, and a mark. */
  public static final class MarkingSigner implements Signer {
    private final Signer v4 = AwsS3V4Signer.create();

    @Override
    public SdkHttpFullRequest sign(SdkHttpFullRequest request, ExecutionAttributes attributes) {
      return v4.sign(request.toBuilder().putHeader("x-signed-by", "legacy").build(), attributes);
    }
  }

  /** An HTTP signer ({@code fs.s3a.http.signer.class}): SigV4, and a mark. */
  public static final class MarkingHttpSigner implements HttpSigner<AwsCredentialsIdentity> {
    private final AwsV4HttpSigner v4 = AwsV4HttpSigner.create();

    @Override
    public SignedRequest sign(SignRequest<? extends AwsCredentialsIdentity> request) {
      SignedRequest signed = v4.sign(request);
      return SignedRequest.builder().request(signed.request().toBuilder().putHeader("x-signed-by", "http").build())
          .payload(signed.payload().orElse(null)).build();
    }

    @Override
    public CompletableFuture<AsyncSignedRequest> signAsync(AsyncSignRequest<? extends AwsCredentialsIdentity> request) {
      return v4.signAsync(request);
    }
  }

  @Test
  void theReadPathsGetsAreSignedByS3AsCustomSignersOfEitherKind() throws IOException {
    String[][] cases = {
        {"legacy", "fs.s3a.custom.signers", "MarkingSigner:" + MarkingSigner.class.getName(),
            "fs.s3a.s3.signing-algorithm", "MarkingSigner"},
        {"http", "fs.s3a.http.signer.enabled", "true", "fs.s3a.http.signer.class", MarkingHttpSigner.class.getName()}};
    for (String[] c : cases) {
      server.reset();
      try (SlipstreamS3AFileSystem fs = (SlipstreamS3AFileSystem) fs(BUCKET, conf(c[1], c[2], c[3], c[4]))) {
        assertThat(fs.readsThroughOwnClient()).as(c[0]).isTrue();
        byte[] all = readAll(fs, BUCKET, "data.bin", SIZE);
        assertThat(TestData.firstMismatch(1, 0, all, 0, all.length)).isEqualTo(-1);
      }
      assertThat(server.requests()).as("%s: S3A's HEAD and Slipstream's GETs", c[0])
          .anySatisfy(r -> assertThat(r.isHead()).isTrue()).anySatisfy(r -> assertThat(r.isGet()).isTrue())
          .allSatisfy(r -> assertThat(r.header("x-signed-by")).isEqualTo(c[0]));
    }
  }
}
