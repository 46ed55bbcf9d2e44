/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.slipstream.testkit.Misbehaviour;
import dev.slipstream.testkit.RequestInfo;
import dev.slipstream.testkit.ScriptedS3Server;
import dev.slipstream.testkit.TestData;
import java.io.IOException;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code change.detection} and {@code change.detection.source} (S3A's {@code fs.s3a.change.detection.mode}
 * and {@code .source}): what a GET asks of the version it reads, against stores that refuse conditional
 * GETs, ignore them, send no ETag, or give two versions one ETag. Whatever the store does, a stream reads
 * one version or fails: never bytes of two.
 */
@Timeout(60)
class ChangeDetectionTest {
  static final String BUCKET = "changes";
  static final int BLOCK = 256 * 1024;
  static final int SIZE = 3 * BLOCK + 100;
  static ScriptedS3Server server;

  @BeforeAll
  static void start() {
    server = ScriptedS3Server.start();
    server.versioned("versioned");
  }

  @AfterAll
  static void stop() {
    server.close();
  }

  @BeforeEach
  void reset() {
    server.reset();
  }

  private static Slipstream client(String... settings) {
    SlipstreamConfig.Builder b = TestClients.config(server.endpoint())
        .set("block.size", String.valueOf(BLOCK)).set("memory.max", "8M").set("retry.interval", "10ms");
    for (int i = 0; i < settings.length; i += 2) {
      b.set(settings[i], settings[i + 1]);
    }
    return Slipstream.builder().isolatedResources().config(b.build()).build();
  }

  private static S3Location loc(String bucket, String key) {
    return S3Location.parse("s3://" + bucket + "/" + key);
  }

  private static String md5Hex(byte[] data) throws IOException {
    try {
      return java.util.HexFormat.of().formatHex(java.security.MessageDigest.getInstance("MD5").digest(data));
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new IOException(e);
    }
  }

  private static List<RequestInfo> gets() {
    return server.requests().stream().filter(RequestInfo::isGet).toList();
  }

  @Test
  void aStoreThatRefusesConditionalGetsIsReadWithClientDetectionAndNoConditionIsSent() throws IOException {
    server.put(BUCKET, "no-conditions", TestData.bytes(1, SIZE));
    server.always(Misbehaviour.REFUSE_CONDITIONS);
    try (Slipstream c = client("change.detection", "client");
         SlipstreamInputStream in = c.open(loc(BUCKET, "no-conditions"))) {
      byte[] all = in.readAllBytes();
      assertThat(TestData.firstMismatch(1, 0, all, 0, all.length)).isEqualTo(-1);
    }
    assertThat(gets()).as("GETs sent").hasSizeGreaterThan(1)
        .allSatisfy(r -> assertThat(r.header("if-match")).isNull())
        .allSatisfy(r -> assertThat(r.header("if-unmodified-since")).isNull());
    // The same store with the default, server: its conditional GETs are refused, and the read says so.
    try (Slipstream c = client();
         SlipstreamInputStream in = c.open(loc(BUCKET, "no-conditions"))) {
      assertThatThrownBy(in::readAllBytes).isInstanceOf(IOException.class).hasMessageContaining("501");
    }
  }

  @Test
  void clientDetectionFailsAReadThatMeetsANewVersionInsteadOfMixingTheTwo() throws IOException {
    server.put(BUCKET, "replaced", TestData.bytes(2, SIZE));
    server.replaceAfterGets(BUCKET, "replaced", 1, TestData.bytes(3, SIZE));
    try (Slipstream c = client("change.detection", "client");
         SlipstreamInputStream in = c.open(loc(BUCKET, "replaced"), OpenOptions.NONE.withPolicy(ReadPolicy.RANDOM))) {
      byte[] b = new byte[1000];
      in.read(0, b, 0, b.length);
      assertThat(TestData.firstMismatch(2, 0, b, 0, b.length)).isEqualTo(-1);
      assertThatThrownBy(() -> in.read(2L * BLOCK, b, 0, b.length)).isInstanceOf(ObjectChangedException.class)
          .hasMessageContaining("s3://" + BUCKET + "/replaced");
    }
    assertThat(gets()).allSatisfy(r -> assertThat(r.header("if-match")).isNull());
  }

  /**
   * A store that ignores {@code If-Match} and sends no ETag on its GETs: opened with the ETag a listing
   * gave, after the object was replaced by one of the same length, the first GET's bytes are of another
   * version, and nothing in the response says so. They must be refused, never returned (or cached) as the
   * listed version.
   */
  @Test
  void aStoreThatIgnoresIfMatchAndSendsNoEtagNeverHandsAnotherVersionToAStream() throws IOException {
    server.put(BUCKET, "listed", TestData.bytes(4, SIZE));
    String listedEtag = '"' + md5Hex(TestData.bytes(4, SIZE)) + '"';
    server.put(BUCKET, "listed", TestData.bytes(5, SIZE)); // replaced after the listing
    server.always(Misbehaviour.IGNORE_CONDITIONS);
    server.when(RequestInfo::isGet, Misbehaviour.NO_ETAG);
    for (String mode : List.of("server", "client")) {
      try (Slipstream c = client("change.detection", mode);
           SlipstreamInputStream in = c.open(loc(BUCKET, "listed"), OpenOptions.known(SIZE, listedEtag))) {
        byte[] b = new byte[1000];
        assertThatThrownBy(() -> in.read(b, 0, b.length)).as(mode).isInstanceOf(IOException.class)
            .hasMessageContaining("no ETag");
        assertThat(b).as("%s: nothing of the new version reaches the caller", mode).containsOnly(0);
      }
    }
  }

  @Test
  void versionIdSourceReadsOneVersionWhereTwoVersionsShareAnEtag() throws IOException {
    server.putWithEtag("versioned", "same-etag", TestData.bytes(6, SIZE), "not-a-digest");
    try (Slipstream c = client("change.detection.source", "versionid");
         SlipstreamInputStream in = c.open(loc("versioned", "same-etag"), OpenOptions.NONE.withPolicy(ReadPolicy.RANDOM))) {
      byte[] b = new byte[1000];
      in.read(0, b, 0, b.length);
      assertThat(TestData.firstMismatch(6, 0, b, 0, b.length)).isEqualTo(-1);
      server.putWithEtag("versioned", "same-etag", TestData.bytes(7, SIZE), "not-a-digest");
      in.read(2L * BLOCK, b, 0, b.length);
      assertThat(TestData.firstMismatch(6, 2L * BLOCK, b, 0, b.length)).as("the version read at open").isEqualTo(-1);
    }
    List<RequestInfo> gets = gets();
    assertThat(gets).as("every GET asks for the version id the open's HEAD gave").isNotEmpty()
        .allSatisfy(r -> assertThat(r.query()).contains("versionId="));
  }

  @Test
  void versionIdSourceOnABucketWithoutVersionsNamesTheVersionByEtag() throws IOException {
    server.put(BUCKET, "unversioned", TestData.bytes(8, SIZE));
    server.replaceAfterGets(BUCKET, "unversioned", 1, TestData.bytes(9, SIZE));
    try (Slipstream c = client("change.detection.source", "versionid");
         SlipstreamInputStream in = c.open(loc(BUCKET, "unversioned"), OpenOptions.NONE.withPolicy(ReadPolicy.RANDOM))) {
      byte[] b = new byte[1000];
      in.read(0, b, 0, b.length);
      assertThatThrownBy(() -> in.read(2L * BLOCK, b, 0, b.length)).isInstanceOf(ObjectChangedException.class);
    }
    assertThat(gets()).allSatisfy(r -> assertThat(r.header("if-match")).isNotNull())
        .allSatisfy(r -> assertThat(r.query()).isNull());
  }
}
