/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.hadoop;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.slipstream.Counter;
import dev.slipstream.Slipstream;
import dev.slipstream.testkit.S3Wire;
import dev.slipstream.testkit.ScriptedS3Server;
import dev.slipstream.testkit.TestData;
import java.io.IOException;
import java.net.URI;
import java.nio.file.AccessDeniedException;
import java.nio.file.Path;
import java.time.Duration;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FileSystem;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Through the FileSystem, whose opens by path take S3A's own HEAD as the open's answer: for an object under
 * a KMS key that HEAD proves no GET (S3 asks no {@code kms:Decrypt} for it), so a principal that may HEAD
 * but not decrypt gets S3's refusal, not the bytes another principal left in the shared disk cache. The
 * scripted store enforces the KMS rule as AWS documents it, since no server that runs here does.
 */
@Timeout(120)
class KmsCachedBytesFsTest {
  static final String BUCKET = "kms";
  static final int SIZE = 2 * 1024 * 1024 + 4321;
  static ScriptedS3Server server;
  @TempDir Path cache;

  @BeforeAll
  static void start() {
    server = ScriptedS3Server.start();
    server.denyKmsDecrypt(r -> "bob".equals(S3Wire.accessKeyOf(r)));
    server.putUnderKmsKey(BUCKET, "table/part-0", TestData.bytes(5, SIZE));
  }

  @AfterAll
  static void stop() {
    server.close();
  }

  private FileSystem fs(String principal) throws IOException {
    Configuration conf = SlipstreamS3AFileSystemTest.confAt(server.endpoint());
    conf.set("fs.s3a.access.key", principal);
    conf.set("fs.s3a.secret.key", principal + "-secret");
    conf.set("fs.slipstream.cache.disk.mode", "all");
    conf.set("fs.slipstream.cache.disk.dir", cache.toString());
    return FileSystem.newInstance(URI.create("s3a://" + BUCKET + "/"), conf);
  }

  @Test
  void aPrincipalThatMayHeadButNotDecryptIsRefusedNotServedFromTheDiskCache() throws Exception {
    org.apache.hadoop.fs.Path file = new org.apache.hadoop.fs.Path("s3a://" + BUCKET + "/table/part-0");
    try (FileSystem alice = fs("alice"); FSDataInputStream in = alice.open(file)) {
      byte[] all = new byte[SIZE];
      in.readFully(0, all);
      assertThat(TestData.firstMismatch(5, 0, all, 0, all.length)).isEqualTo(-1);
    }
    assertThat(Slipstream.awaitDiskCacheWrites(Duration.ofSeconds(30))).isTrue();
    try (FileSystem bob = fs("bob")) {
      byte[] b = new byte[1000];
      try (FSDataInputStream in = bob.open(file)) {
        assertThatThrownBy(() -> in.readFully(0, b)).isInstanceOf(AccessDeniedException.class)
            .hasMessageContaining(BUCKET);
      }
      try (FSDataInputStream in = bob.open(file)) {
        assertThatThrownBy(() -> in.readFully(SIZE - 1000L, b)).isInstanceOf(AccessDeniedException.class);
      }
      assertThat(b).as("nothing copied to bob").containsOnly(0);
      assertThat(((SlipstreamS3AFileSystem) bob).getSlipstreamStatistics().get(Counter.DISK_CACHE_HITS))
          .as("no cached byte served to bob").isZero();
    }
  }
}
