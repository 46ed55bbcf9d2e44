/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.iceberg;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.slipstream.Counter;
import dev.slipstream.Slipstream;
import dev.slipstream.testkit.EmbeddedS3Server;
import dev.slipstream.testkit.SeaweedS3Server;
import dev.slipstream.testkit.TestData;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.io.PositionOutputStream;
import org.apache.iceberg.io.SeekableInputStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * SSE-C through SlipstreamFileIO, configured as S3FileIO is ({@code s3.sse.type=custom}, {@code s3.sse.key},
 * {@code s3.sse.md5}), on a server that enforces it: SeaweedFS refuses a GET or HEAD of an SSE-C object
 * without its key (400) or with another key (403), as S3 does. Files are written through the FileIO (its
 * S3FileIO, with the key) and read through Slipstream with the key; a disk cache is configured and receives
 * nothing. A reader with another key, or none, gets no byte, and no error shows a key.
 */
@Timeout(300)
class SseCustomerKeyFileIOTest {
  static final String BUCKET = "sse-c-fileio";
  static final String KEY = CatalogPropertiesTest.aesKey(11);
  static final String OTHER_KEY = CatalogPropertiesTest.aesKey(12);
  static final int BIG = 3 * 1024 * 1024 + 99; // four blocks of 1 MiB
  static final String DATA = "s3://" + BUCKET + "/table/data/big.parquet";
  static final String METADATA = "s3://" + BUCKET + "/table/metadata/v1.metadata.json";

  static SeaweedS3Server server;
  @TempDir
  static Path diskDir;

  @BeforeAll
  static void setUp() throws IOException {
    server = SeaweedS3Server.start();
    server.createBucket(BUCKET);
    try (SlipstreamFileIO io = fileIo(withKey(KEY))) {
      write(io, DATA, TestData.bytes(7, BIG));
      write(io, METADATA, TestData.bytes(8, 20_000));
    }
  }

  @AfterAll
  static void tearDown() {
    if (server != null) {
      server.close();
    }
  }

  static Map<String, String> properties() {
    Map<String, String> p = new LinkedHashMap<>();
    p.put("s3.endpoint", server.endpoint().toString());
    p.put("s3.path-style-access", "true");
    p.put("s3.access-key-id", EmbeddedS3Server.ACCESS_KEY);
    p.put("s3.secret-access-key", EmbeddedS3Server.SECRET_KEY);
    p.put("client.region", EmbeddedS3Server.REGION);
    p.put("slipstream.block.size", "1M");
    p.put("slipstream.cache.disk.mode", "all");
    p.put("slipstream.cache.disk.dir", diskDir.toString());
    return p;
  }

  static Map<String, String> withKey(String key) {
    Map<String, String> p = properties();
    p.put("s3.sse.type", "custom");
    p.put("s3.sse.key", key);
    p.put("s3.sse.md5", CatalogPropertiesTest.md5(key));
    return p;
  }

  static SlipstreamFileIO fileIo(Map<String, String> properties) {
    SlipstreamFileIO io = new SlipstreamFileIO();
    io.initialize(properties);
    return io;
  }

  static void write(SlipstreamFileIO io, String path, byte[] data) throws IOException {
    try (PositionOutputStream out = io.newOutputFile(path).createOrOverwrite()) {
      out.write(data);
    }
  }

  static byte[] read(InputFile file) throws IOException {
    try (SeekableInputStream in = file.newStream()) {
      return in.readAllBytes();
    }
  }

  @Test
  void whatS3FileIoWroteWithTheKeyReadsBackThroughSlipstreamAndStaysInMemory() throws Exception {
    try (SlipstreamFileIO io = fileIo(withKey(KEY))) {
      byte[] big = read(io.newInputFile(DATA, BIG));
      assertThat(TestData.firstMismatch(7, 0, big, 0, big.length)).isEqualTo(-1);
      InputFile byPath = io.newInputFile(DATA);
      assertThat(byPath.getLength()).as("a HEAD with the key").isEqualTo(BIG);
      assertThat(read(byPath)).isEqualTo(big);
      byte[] metadata = read(io.newInputFile(METADATA));
      assertThat(TestData.firstMismatch(8, 0, metadata, 0, metadata.length)).isEqualTo(-1);

      Slipstream client = io.slipstream();
      assertThat(Slipstream.awaitDiskCacheWrites(Duration.ofSeconds(30))).isTrue();
      assertThat(client.diskCacheDirectory()).as("a client with a key keeps blocks in memory only").isEmpty();
      assertThat(client.statistics().get(Counter.DISK_CACHE_BYTES_WRITTEN)).isZero();
      try (Stream<Path> files = Files.walk(diskDir)) {
        assertThat(files.filter(Files::isRegularFile).toList()).as("files under the disk cache's directory").isEmpty();
      }
    }
  }

  /** The other key's 403 (not a 400) shows that Slipstream's GET carried it. */
  @Test
  void aReaderWithAnotherKeyOrNoneGetsNoByteAndNoKeyIsShown() throws Exception {
    try (SlipstreamFileIO owner = fileIo(withKey(KEY))) {
      read(owner.newInputFile(DATA, BIG)); // now in the owner's memory cache

      try (SlipstreamFileIO other = fileIo(withKey(OTHER_KEY))) {
        Throwable t = catchThrowable(() -> readOne(other));
        assertThat(causes(t)).as("%s", t).anySatisfy(c -> assertThat(c).isInstanceOf(AccessDeniedException.class)
            .hasMessageContaining(DATA.substring("s3://".length())));
        assertNoKeyIn(t);
        assertThat(other.slipstream().statistics().get(Counter.BYTES_READ)).isZero();
      }
      Map<String, String> noKey = properties();
      noKey.put("slipstream.cache.disk.mode", "off"); // a client without a key may use it: not in the directory watched
      try (SlipstreamFileIO none = fileIo(noKey)) {
        Throwable t = catchThrowable(() -> readOne(none));
        assertThat(causes(t)).as("%s", t).anySatisfy(c -> assertThat(c).isInstanceOf(IOException.class)
            .hasMessageContaining(DATA.substring("s3://".length())).hasMessageContaining("400"));
        assertNoKeyIn(t);
        assertThat(none.slipstream().statistics().get(Counter.BYTES_READ)).isZero();
      }
    }
  }

  /** One byte, with the length known: the first request is Slipstream's own GET. */
  private static void readOne(SlipstreamFileIO io) throws IOException {
    try (SeekableInputStream in = io.newInputFile(DATA, BIG).newStream()) {
      in.read();
    }
  }

  private static List<Throwable> causes(Throwable t) {
    List<Throwable> all = new java.util.ArrayList<>();
    for (Throwable c = t; c != null && !all.contains(c); c = c.getCause()) {
      all.add(c);
    }
    return all;
  }

  /** Neither key, in base64 or as its MD5, in the exception's messages, causes or stack. */
  private static void assertNoKeyIn(Throwable t) {
    assertThat(t).isNotNull();
    StringWriter text = new StringWriter();
    t.printStackTrace(new PrintWriter(text));
    for (String key : List.of(KEY, OTHER_KEY)) {
      assertThat(text.toString()).doesNotContain(key).doesNotContain(CatalogPropertiesTest.md5(key));
    }
  }
}
