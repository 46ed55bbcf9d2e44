/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.hadoop;

import static org.assertj.core.api.Assertions.assertThat;

import dev.slipstream.testkit.ForkedS3Server;
import dev.slipstream.testkit.TestData;
import java.io.IOException;
import java.net.URI;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.s3a.audit.impl.LoggingAuditor;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * S3A's auditor sees Slipstream's requests inside a span of the FileSystem, as it sees S3A's own
 * streams' requests inside the span of their open: S3A's audit log (the referrer header of each
 * request) names that span and its operation, and a FileSystem that refuses requests made outside any
 * span ({@code fs.s3a.audit.reject.out.of.span.operations}) still reads.
 */
@Timeout(180)
class AuditSpanTest {
  static final String BUCKET = "audited";
  static final int SIZE = 3 * (1 << 20) + 17;
  static ForkedS3Server server;
  static byte[] data;

  @BeforeAll
  static void start() throws IOException {
    server = ForkedS3Server.start();
    server.createBucket(BUCKET);
    data = TestData.bytes(43, SIZE);
    try (FileSystem fs = newFileSystem(false);
        FSDataOutputStream out = fs.create(new Path("s3a://" + BUCKET + "/f.bin"))) {
      out.write(data);
    }
  }

  @AfterAll
  static void stop() {
    if (server != null) {
      server.close();
    }
  }

  static FileSystem newFileSystem(boolean rejectOutOfSpan) throws IOException {
    Configuration conf = SlipstreamS3AFileSystemTest.confAt(server.endpoint());
    conf.set("fs.s3a.audit.service.classname", LoggingAuditor.class.getName());
    conf.setBoolean("fs.s3a.audit.reject.out.of.span.operations", rejectOutOfSpan);
    return FileSystem.newInstance(URI.create("s3a://" + BUCKET + "/"), conf);
  }

  static byte[] readAll(FileSystem fs) throws IOException {
    byte[] read = new byte[SIZE];
    try (FSDataInputStream in = fs.open(new Path("s3a://" + BUCKET + "/f.bin"))) {
      in.readFully(0, read, 0, 100); // a positional read first, on the calling thread
      in.readFully(read);
    }
    return read;
  }

  @Test
  void readsWhenS3ARefusesRequestsOutsideASpan() throws IOException {
    try (FileSystem fs = newFileSystem(true)) {
      assertThat(readAll(fs)).isEqualTo(data);
    }
  }

  @Test
  void theAuditHeaderOfAGetNamesTheReadSpanNotOutsideSpan() throws IOException {
    try (FileSystem fs = newFileSystem(false)) {
      assertThat(readAll(fs)).isEqualTo(data);
      String header = ((LoggingAuditor) ((SlipstreamS3AFileSystem) fs).getAuditor()).getLastHeader();
      assertThat(header).contains("op_open").doesNotContain("outside-span");
    }
  }
}
