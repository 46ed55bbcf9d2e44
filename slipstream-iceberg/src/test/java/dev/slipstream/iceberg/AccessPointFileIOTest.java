/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.iceberg;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.slipstream.testkit.RequestInfo;
import dev.slipstream.testkit.S3Wire;
import dev.slipstream.testkit.ScriptedS3Server;
import dev.slipstream.testkit.TestData;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.CatalogUtil;
import org.apache.iceberg.exceptions.NotFoundException;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.io.SeekableInputStream;
import org.apache.iceberg.io.StorageCredential;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code s3.access-points.<bucket>}: Slipstream's reads of a bucket go to its access point, as S3FileIO's
 * own reads do. The access point is named by its alias (an ARN's host comes from AWS's endpoint rules):
 * the scripted store, path-style, serves whatever bucket a path names, and holds the object under the
 * alias only, so a read that went to the bucket itself finds nothing.
 */
@Timeout(120)
class AccessPointFileIOTest {
  static final String BUCKET = "lake";
  static final String ALIAS = "lakeap-hrzrlukc5m36ft7okagglf3gmwluquse1b-s3alias";
  static final String PATH = "s3://" + BUCKET + "/db/t/data.parquet";
  static final int BLOCK = 256 * 1024;
  static final int SIZE = 2 * BLOCK + 777;
  static ScriptedS3Server server;

  @BeforeAll
  static void start() {
    server = ScriptedS3Server.start();
    server.put(ALIAS, "db/t/data.parquet", TestData.bytes(7, SIZE));
  }

  @AfterAll
  static void stop() {
    server.close();
  }

  @BeforeEach
  void forget() {
    server.reset();
  }

  private static Map<String, String> properties(boolean accessPoint) {
    Map<String, String> p = new LinkedHashMap<>();
    p.put("s3.endpoint", server.endpoint().toString());
    p.put("s3.path-style-access", "true");
    p.put("client.region", "us-east-1");
    p.put("s3.access-key-id", "alice");
    p.put("s3.secret-access-key", "alice-secret");
    if (accessPoint) {
      p.put("s3.access-points." + BUCKET, ALIAS);
    }
    p.put("slipstream.block.size", String.valueOf(BLOCK));
    p.put("slipstream.memory.max", "16M");
    p.put("slipstream.cache.memory", "false");
    p.put("slipstream.cache.disk.mode", "off");
    return p;
  }

  private static SlipstreamFileIO fileIo(Map<String, String> properties) {
    SlipstreamFileIO io = new SlipstreamFileIO();
    io.initialize(properties);
    return io;
  }

  private static byte[] read(InputFile file) throws IOException {
    try (SeekableInputStream in = file.newStream()) {
      return in.readAllBytes();
    }
  }

  /** The bucket of every GET and HEAD sent so far. */
  private static List<String> bucketsAsked() {
    return server.requests().stream().filter(r -> r.isGet() || r.isHead())
        .map(r -> S3Wire.objectOf(r).split("/", 2)[0]).distinct().toList();
  }

  private static void readsTheObject(FileIO io) throws IOException {
    InputFile byPath = io.newInputFile(PATH);
    assertThat(byPath.getLength()).isEqualTo(SIZE);
    byte[] all = read(byPath);
    assertThat(TestData.firstMismatch(7, 0, all, 0, all.length)).isEqualTo(-1);
    try (SeekableInputStream in = io.newInputFile(PATH, SIZE).newStream()) {
      in.seek(SIZE - 100);
      byte[] tail = in.readAllBytes();
      assertThat(TestData.firstMismatch(7, SIZE - 100L, tail, 0, tail.length)).isEqualTo(-1);
    }
  }

  @Test
  void everyReadOfTheBucketGoesToItsAccessPoint() throws Exception {
    try (SlipstreamFileIO io = fileIo(properties(true))) {
      readsTheObject(io);
      assertThat(server.requests()).extracting(RequestInfo::method).contains("HEAD", "GET");
      assertThat(bucketsAsked()).as("every GET and HEAD, as S3FileIO's own reads").containsExactly(ALIAS);

      // A copy as Spark ships the FileIO to a task: the property travels with it.
      server.reset();
      try (SlipstreamFileIO copy = copy(io)) {
        readsTheObject(copy);
      }
      assertThat(bucketsAsked()).containsExactly(ALIAS);
    }
  }

  @Test
  void withoutTheAccessPointTheSameReadAsksTheBucketAndFindsNothing() {
    try (SlipstreamFileIO io = fileIo(properties(false))) {
      assertThatThrownBy(() -> read(io.newInputFile(PATH))).isInstanceOf(NotFoundException.class)
          .hasMessageContaining(PATH);
    }
    assertThat(bucketsAsked()).containsExactly(BUCKET);
  }

  @Test
  void aStorageCredentialsAccessPointAppliesToItsPrefix() throws Exception {
    // A REST catalog may vend the access point with a prefix's credential: S3FileIO reads it from the
    // credential's config over the catalog properties, and so do Slipstream's reads under that prefix.
    StorageCredential credential = StorageCredential.create("s3://" + BUCKET + "/db/", Map.of(
        "s3.access-key-id", "bob", "s3.secret-access-key", "bob-secret", "s3.session-token", "bob-token",
        "s3.access-points." + BUCKET, ALIAS));
    try (FileIO io = CatalogUtil.loadFileIO(SlipstreamFileIO.class.getName(), properties(false), null,
        List.of(credential))) {
      readsTheObject(io);
    }
    assertThat(bucketsAsked()).containsExactly(ALIAS);
    assertThat(server.requests()).filteredOn(r -> r.isGet() || r.isHead())
        .extracting(S3Wire::accessKeyOf).containsOnly("bob");
  }

  private static SlipstreamFileIO copy(SlipstreamFileIO io) throws Exception {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
      out.writeObject(io);
    }
    try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(bytes.toByteArray()))) {
      return (SlipstreamFileIO) in.readObject();
    }
  }
}
