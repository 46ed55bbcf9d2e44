/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.memcached;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.slipstream.Counter;
import dev.slipstream.OpenOptions;
import dev.slipstream.S3Location;
import dev.slipstream.Slipstream;
import dev.slipstream.SlipstreamConfig;
import dev.slipstream.SlipstreamInputStream;
import dev.slipstream.testkit.EmbeddedS3Server;
import dev.slipstream.testkit.MemcachedServer;
import dev.slipstream.testkit.S3ServerExtension;
import dev.slipstream.testkit.TestData;
import java.io.BufferedReader;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The shared tier on three real memcached processes: "host A" (a client with no local cache) reads an
 * object and writes its blocks there; "host B" (a fresh client) reads it from the tier, after S3's answer to
 * its open. Servers killed, garbage under a key, the wrong secret, a new version: every byte is still right.
 */
@Timeout(120)
class SharedTierTest {
  @RegisterExtension static final S3ServerExtension S3 = new S3ServerExtension();
  static final String BUCKET = "shared-tier";
  static final int BLOCK = 1024 * 1024; // two chunks per block
  static final long SIZE = 6L * BLOCK + 777;
  static final String SECRET = "cluster-secret-for-tests";

  private final List<MemcachedServer> servers = new ArrayList<>();

  @BeforeAll
  static void bucket() {
    S3.server().createBucket(BUCKET);
  }

  @BeforeEach
  void startServers() throws IOException {
    for (int i = 0; i < 3; i++) {
      servers.add(MemcachedServer.start(64));
    }
  }

  @AfterEach
  void stopServers() {
    servers.forEach(MemcachedServer::close);
  }

  private Slipstream host(String mode, String secret) {
    SlipstreamConfig.Builder b = SlipstreamConfig.builder()
        .set("endpoint", S3.server().endpoint().toString()).set("region", EmbeddedS3Server.REGION)
        .set("path.style.access", "true").set("access.key", EmbeddedS3Server.ACCESS_KEY)
        .set("secret.key", EmbeddedS3Server.SECRET_KEY)
        .set("block.size", String.valueOf(BLOCK)).set("memory.max", "32M")
        .set("cache.disk.mode", "off").set("cache.memory", "false") // each host's own caches play no part
        .set("shared.mode", mode)
        .set("shared.servers", servers.stream().map(MemcachedServer::hostPort).collect(Collectors.joining(",")));
    if (secret != null) {
      b.set("shared.secret", secret);
    }
    return Slipstream.builder().isolatedResources().config(b.build()).build();
  }

  private static S3Location loc(String key) {
    return S3Location.parse("s3://" + BUCKET + "/" + key);
  }

  /** Host A reads {@code key} whole; its blocks are in the tier once it is closed (writes are waited for). */
  private void hostAReads(String key, long seed) throws IOException {
    Slipstream a = host("read-write", SECRET);
    try (a) {
      readAndCheck(a, key, seed);
    }
    // Closing the client waited for its pending writes.
    assertThat(a.statistics().get(Counter.SHARED_SETS)).as("every block written").isEqualTo(7);
  }

  private static SlipstreamInputStream readAndCheck(Slipstream client, String key, long seed) throws IOException {
    SlipstreamInputStream in = client.open(loc(key));
    try (in) {
      byte[] all = in.readAllBytes();
      assertThat(all).hasSize((int) SIZE);
      assertThat(TestData.firstMismatch(seed, 0, all, 0, all.length)).as("first wrong byte").isEqualTo(-1);
    }
    return in;
  }

  @Test
  void hostBReadsWhatHostAFetchedFromTheTierWithoutAGet() throws IOException {
    S3.server().putGenerated(BUCKET, "shared", 1, SIZE);
    hostAReads("shared", 1);
    try (Slipstream b = host("read-write", SECRET)) {
      SlipstreamInputStream in = readAndCheck(b, "shared", 1);
      assertThat(in.statistics().get(Counter.HEAD_REQUESTS)).as("S3's answer to the open").isEqualTo(1);
      assertThat(in.statistics().get(Counter.GET_REQUESTS)).isZero();
      assertThat(in.statistics().get(Counter.SHARED_HITS)).isEqualTo(7);
      assertThat(in.statistics().get(Counter.SHARED_BYTES_READ)).isEqualTo(SIZE);
      assertThat(b.statistics().get(Counter.SHARED_SETS)).as("nothing read from the tier is written back").isZero();
    }
  }

  @Test
  void aKilledServerIsAMissForItsShareAndEveryByteIsRight() throws IOException {
    S3.server().putGenerated(BUCKET, "killed", 2, SIZE);
    hostAReads("killed", 2);
    servers.get(1).kill();
    try (Slipstream b = host("read-write", SECRET)) {
      SlipstreamInputStream in = readAndCheck(b, "killed", 2);
      long hits = in.statistics().get(Counter.SHARED_HITS);
      long gets = in.statistics().get(Counter.GET_REQUESTS);
      assertThat(hits + gets).as("each block from the tier or S3").isEqualTo(7);
      assertThat(gets).as("blocks with a chunk on the dead server").isPositive();
      assertThat(b.statistics().get(Counter.SHARED_ERRORS) + b.statistics().get(Counter.SHARED_PARTIAL)).isPositive();
    }
  }

  @Test
  void aStoppedServerIsLeftAloneAfterThreeFailuresAndEveryByteIsRight() throws IOException {
    S3.server().putGenerated(BUCKET, "stopped", 3, SIZE);
    hostAReads("stopped", 3);
    servers.get(2).pause();
    try (Slipstream b = host("read-write", SECRET)) {
      for (int round = 0; round < 3; round++) {
        readAndCheck(b, "stopped", 3);
      }
      // Folsom reports a request to a stopped server as late (our deadline) or failed (its own limits).
      assertThat(b.statistics().get(Counter.SHARED_TIMEOUTS) + b.statistics().get(Counter.SHARED_ERRORS))
          .as("%s", b.statistics()).isPositive();
      assertThat(b.statistics().get(Counter.SHARED_SERVERS_DOWN)).as("left alone after 3 timeouts").isPositive();
    } finally {
      servers.get(2).resume();
    }
  }

  @Test
  void garbageUnderABlocksKeysAndChunksWithoutTheSecretAreMissesNeverBytes() throws IOException {
    S3.server().putGenerated(BUCKET, "poisoned", 4, SIZE);
    hostAReads("poisoned", 4);
    // A reader with another secret rejects every chunk host A signed.
    try (Slipstream other = host("read-only", "not-the-cluster-secret")) {
      SlipstreamInputStream in = readAndCheck(other, "poisoned", 4);
      assertThat(in.statistics().get(Counter.SHARED_HITS)).isZero();
      assertThat(other.statistics().get(Counter.SHARED_CORRUPT)).isPositive();
    }
    // Garbage written under every key on every server.
    int overwritten = 0;
    for (MemcachedServer s : servers) {
      overwritten += overwriteEveryKey(s);
    }
    assertThat(overwritten).as("two chunks per full block, one for the last").isEqualTo(13);
    try (Slipstream b = host("read-only", SECRET)) {
      SlipstreamInputStream in = readAndCheck(b, "poisoned", 4);
      assertThat(in.statistics().get(Counter.SHARED_HITS)).isZero();
      assertThat(in.statistics().get(Counter.GET_REQUESTS)).isEqualTo(7);
      assertThat(b.statistics().get(Counter.SHARED_CORRUPT)).isEqualTo(7);
    }
  }

  @Test
  void aNewVersionNeverMeetsTheOldOnesBlocks() throws IOException {
    S3.server().putGenerated(BUCKET, "versioned", 5, SIZE);
    hostAReads("versioned", 5);
    S3.server().putGenerated(BUCKET, "versioned", 6, SIZE);
    try (Slipstream b = host("read-only", SECRET)) {
      SlipstreamInputStream in = readAndCheck(b, "versioned", 6);
      assertThat(in.statistics().get(Counter.SHARED_HITS)).isZero();
      assertThat(b.statistics().get(Counter.SHARED_SETS)).as("read-only writes nothing").isZero();
    }
  }

  @Test
  void aDeletedObjectsBlocksAreNeverServed() throws IOException {
    S3.server().putGenerated(BUCKET, "deleted", 7, SIZE);
    String etag;
    try (Slipstream a = host("read-write", SECRET)) {
      etag = readAndCheck(a, "deleted", 7).etag();
    }
    S3.server().deleteObject(BUCKET, "deleted");
    try (Slipstream b = host("read-only", SECRET);
         SlipstreamInputStream in = b.open(loc("deleted"), OpenOptions.known(SIZE, etag))) {
      byte[] buf = new byte[BLOCK];
      assertThatThrownBy(() -> in.read(buf, 0, buf.length)).isInstanceOf(FileNotFoundException.class);
      assertThat(buf).as("no byte of the tier reached the caller").containsOnly(0);
      assertThat(b.statistics().get(Counter.SHARED_BYTES_READ)).isZero();
    }
  }

  /** Lists the server's keys (lru_crawler metadump) and sets each to garbage; returns how many. */
  private static int overwriteEveryKey(MemcachedServer server) throws IOException {
    List<String> keys = new ArrayList<>();
    try (Socket s = new Socket("127.0.0.1", server.address().getPort())) {
      OutputStream out = s.getOutputStream();
      BufferedReader in = new BufferedReader(new InputStreamReader(s.getInputStream(), StandardCharsets.US_ASCII));
      out.write("lru_crawler metadump all\r\n".getBytes(StandardCharsets.US_ASCII));
      out.flush();
      for (String line = in.readLine(); line != null && !line.equals("END"); line = in.readLine()) {
        if (line.startsWith("key=")) {
          keys.add(java.net.URLDecoder.decode(line.substring(4, line.indexOf(' ')), StandardCharsets.US_ASCII));
        }
      }
      byte[] garbage = "not a chunk at all".getBytes(StandardCharsets.US_ASCII);
      for (String k : keys) {
        out.write(("set " + k + " 0 0 " + garbage.length + "\r\n").getBytes(StandardCharsets.US_ASCII));
        out.write(garbage);
        out.write("\r\n".getBytes(StandardCharsets.US_ASCII));
        out.flush();
        assertThat(in.readLine()).isEqualTo("STORED");
      }
    }
    return keys.size();
  }
}
