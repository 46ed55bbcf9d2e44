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
import java.util.Random;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Issue 21 point 5 through the FileSystem: a HEAD without Content-Length is no NullPointerException. */
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
