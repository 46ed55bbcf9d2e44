/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.memcached;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.slipstream.Counter;
import dev.slipstream.S3Location;
import dev.slipstream.Slipstream;
import dev.slipstream.SlipstreamConfig;
import dev.slipstream.SlipstreamInputStream;
import dev.slipstream.testkit.MemcachedServer;
import dev.slipstream.testkit.S3Wire;
import dev.slipstream.testkit.ScriptedS3Server;
import dev.slipstream.testkit.TestData;
import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The shared tier never widens who reads what, for an object under a KMS key too: host A's principal may
 * decrypt and fills the tier (real memcached servers); host B's may HEAD the object but not decrypt it, and
 * gets S3's refusal, not A's blocks. The scripted store enforces the KMS rule as AWS documents it (HEAD
 * answered, GET refused with 403), since no server that runs here does.
 */
@Timeout(120)
class SharedTierKmsTest {
  static final String BUCKET = "kms";
  static final int BLOCK = 1024 * 1024;
  static final int SIZE = 3 * BLOCK + 555;
  static ScriptedS3Server server;
  static final List<MemcachedServer> pool = new ArrayList<>();

  @BeforeAll
  static void start() throws IOException {
    server = ScriptedS3Server.start();
    server.denyKmsDecrypt(r -> "bob".equals(S3Wire.accessKeyOf(r)));
    for (int i = 0; i < 2; i++) {
      pool.add(MemcachedServer.start(64));
    }
  }

  @AfterAll
  static void stop() {
    pool.forEach(MemcachedServer::close);
    server.close();
  }

  private static Slipstream host(String principal) {
    return Slipstream.builder().isolatedResources().config(SlipstreamConfig.builder()
        .set("endpoint", server.endpoint().toString()).set("region", "us-east-1")
        .set("path.style.access", "true").set("access.key", principal).set("secret.key", principal + "-secret")
        .set("block.size", String.valueOf(BLOCK)).set("memory.max", "32M").set("hedge.budget", "0")
        .set("cache.disk.mode", "off").set("cache.memory", "false")
        .set("shared.mode", "read-write").set("shared.secret", "cluster-secret-for-tests")
        .set("shared.timeout", "10s").set("shared.timeout.adaptive", "false")
        .set("shared.servers", pool.stream().map(MemcachedServer::hostPort).collect(Collectors.joining(",")))
        .build()).build();
  }

  @Test
  void aPrincipalThatMayHeadButNotDecryptGetsTheRefusalNotTheTiersBlocks() throws IOException {
    server.putUnderKmsKey(BUCKET, "under-kms", TestData.bytes(31, SIZE));
    S3Location loc = S3Location.parse("s3://" + BUCKET + "/under-kms");
    Slipstream alice = host("alice");
    try (alice; SlipstreamInputStream in = alice.open(loc)) {
      byte[] all = in.readAllBytes();
      assertThat(TestData.firstMismatch(31, 0, all, 0, all.length)).isEqualTo(-1);
    }
    assertThat(alice.statistics().get(Counter.SHARED_SETS)).as("every block in the tier").isEqualTo(4);
    try (Slipstream bob = host("bob")) {
      for (long at : new long[] {0, 2L * BLOCK + 7}) {
        try (SlipstreamInputStream in = bob.open(loc)) {
          byte[] b = new byte[4096];
          assertThatThrownBy(() -> in.read(at, b, 0, b.length)).isInstanceOf(AccessDeniedException.class)
              .hasMessageContaining(BUCKET);
          assertThat(b).as("nothing copied to bob").containsOnly(0);
        }
      }
      assertThat(bob.statistics().get(Counter.BYTES_READ))
          .as("no byte returned to bob").isZero();
    }
  }
}
