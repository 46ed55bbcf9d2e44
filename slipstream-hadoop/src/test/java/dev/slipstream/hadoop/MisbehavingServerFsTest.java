/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.hadoop;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.slipstream.testkit.Misbehaviour;
import dev.slipstream.testkit.ScriptedS3Server;
import java.io.IOException;
import java.net.URI;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FileRange;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Misbehaving servers through the FileSystem: a HEAD without Content-Length is no NullPointerException
 * (issue 21 point 5); a server that ignores Range serves every read path of an object of one block.
 */
@Timeout(120)
class MisbehavingServerFsTest {
  static final String BUCKET = "odd";
  static ScriptedS3Server server;
  static byte[] data;

  @BeforeAll
  static void start() {
    server = ScriptedS3Server.start();
    data = new byte[3 * 1024 * 1024 + 777];
    new Random(11).nextBytes(data);
    server.put(BUCKET, "data.bin", data);
  }

  @AfterAll
  static void stop() {
    server.close();
  }

  private static FileSystem fs() throws IOException {
    return FileSystem.newInstance(URI.create("s3a://" + BUCKET + "/"),
        SlipstreamS3AFileSystemTest.confAt(server.endpoint()));
  }

  @Test
  void aHeadWithoutContentLengthStillOpensAndReadsRight() throws IOException {
    server.reset();
    server.always(Misbehaviour.NO_CONTENT_LENGTH);
    try (FileSystem fs = fs(); FSDataInputStream in = fs.open(new Path("s3a://" + BUCKET + "/data.bin"))) {
      byte[] all = new byte[data.length];
      in.readFully(0, all);
      assertThat(all).isEqualTo(data);
    }
  }

  /**
   * A proxy or server that ignores Range, with the defaults (8 MiB blocks, parts of at least 2 MiB): an
   * object of 6 MiB is one block, read in parts whose first starts at byte 0 and ends before the object
   * does. Every read path takes its range from the whole-object answers, chunked or with a length.
   */
  @ParameterizedTest
  @EnumSource(value = Misbehaviour.class, names = {"IGNORE_RANGE", "IGNORE_RANGE_WITH_LENGTH"})
  void aServerThatIgnoresRangeServesEveryReadPathOfAnObjectOfOneBlock(Misbehaviour ignoring) throws Exception {
    server.reset();
    String key = "one-block.bin";
    byte[] one = new byte[6 * 1024 * 1024 + 4321];
    new Random(12).nextBytes(one);
    server.put(BUCKET, key, one);
    server.always(ignoring);
    Configuration conf = SlipstreamS3AFileSystemTest.confAt(server.endpoint());
    conf.unset("fs.slipstream.block.size"); // the defaults: 8 MiB blocks, parts of 2 MiB
    conf.set("fs.slipstream.cache.disk.mode", "off"); // every read from the server: none from an earlier run,
    conf.set("fs.slipstream.cache.memory", "false"); // none from an earlier stream
    Path path = new Path("s3a://" + BUCKET + "/" + key);
    try (FileSystem fs = FileSystem.newInstance(URI.create("s3a://" + BUCKET + "/"), conf)) {
      try (FSDataInputStream in = fs.open(path)) {
        byte[] all = new byte[one.length];
        in.readFully(all);
        assertThat(all).as("sequential").isEqualTo(one);
      }
      try (FSDataInputStream in = fs.openFile(path).opt("fs.option.openfile.read.policy", "random").build().get()) {
        byte[] b = new byte[1 << 20];
        in.readFully(0, b);
        assertThat(b).as("a positional read from byte 0").isEqualTo(Arrays.copyOf(one, b.length));
        in.seek(3 << 20);
        in.readFully(b);
        assertThat(b).as("a jump").isEqualTo(Arrays.copyOfRange(one, 3 << 20, 4 << 20));
      }
      try (FSDataInputStream in = fs.openFile(path).opt("fs.option.openfile.read.policy", "parquet").build().get()) {
        byte[] tail = new byte[8];
        in.readFully(one.length - 8, tail);
        byte[] footer = new byte[300_000];
        in.readFully(one.length - footer.length, footer);
        assertThat(footer).as("the footer").isEqualTo(Arrays.copyOfRange(one, one.length - footer.length, one.length));
        List<FileRange> ranges = List.of(FileRange.createFileRange(0, 500_000),
            FileRange.createFileRange(2_000_000, 1_500_000), FileRange.createFileRange(5_000_000, 100_000));
        in.readVectored(ranges, ByteBuffer::allocate);
        for (FileRange r : ranges) {
          ByteBuffer got = r.getData().get();
          byte[] b = new byte[got.remaining()];
          got.get(b);
          assertThat(b).as("vectored range at %d", r.getOffset())
              .isEqualTo(Arrays.copyOfRange(one, (int) r.getOffset(), (int) r.getOffset() + r.getLength()));
        }
      }
      assertThat(server.requests()).filteredOn(r -> r.isGet() && r.range() != null)
          .filteredOn(r -> r.range().startsWith("bytes=0-") && !r.range().equals("bytes=0-" + (one.length - 1)))
          .as("ranges from byte 0 that end before the object: a first part, a positional and a vectored read")
          .hasSizeGreaterThanOrEqualTo(3);
    } finally {
      server.reset();
    }
  }

  @Test
  void aHeadWithoutContentLengthOnAServerWithoutRangesIsAnIoErrorNamingTheHeader() throws IOException {
    server.reset();
    server.always(Misbehaviour.NO_CONTENT_LENGTH);
    server.always(Misbehaviour.IGNORE_RANGE);
    try (FileSystem fs = fs()) {
      assertThatThrownBy(() -> fs.open(new Path("s3a://" + BUCKET + "/data.bin")).close())
          .isInstanceOf(IOException.class)
          .hasMessageContaining("s3://" + BUCKET + "/data.bin").hasMessageContaining("no Content-Length");
    } finally {
      server.reset();
    }
  }
}
