/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.hadoop;

import static org.assertj.core.api.Assertions.assertThat;

import dev.slipstream.testkit.ForkedS3Server;
import dev.slipstream.testkit.MemcachedServer;
import dev.slipstream.testkit.TestData;
import java.io.IOException;
import java.io.OutputStream;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.statistics.IOStatistics;
import org.apache.hadoop.fs.statistics.IOStatisticsSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The shared tier switched on as a Hadoop job would, by fs.slipstream.shared.* keys, with slipstream-memcached
 * on the class path: a second FileSystem (another host) reads a file from the pool, not from S3, and its
 * IOStatistics say so.
 */
@Timeout(120)
class SharedTierFileSystemTest {
  static final String BUCKET = "shared-tier-fs";
  static ForkedS3Server server;
  static final List<MemcachedServer> pool = new ArrayList<>();

  @BeforeAll
  static void setUp() throws IOException {
    server = ForkedS3Server.start();
    server.createBucket(BUCKET);
    for (int i = 0; i < 2; i++) {
      pool.add(MemcachedServer.start(64));
    }
  }

  @AfterAll
  static void tearDown() {
    pool.forEach(MemcachedServer::close);
    if (server != null) {
      server.close();
    }
  }

  private static FileSystem host() throws IOException {
    Configuration conf = SlipstreamS3AFileSystemTest.conf(server);
    conf.set("fs.slipstream.cache.disk.mode", "off");
    conf.set("fs.slipstream.cache.memory", "false");
    conf.set("fs.slipstream.shared.mode", "read-write");
    conf.set("fs.slipstream.shared.secret", "hadoop-test-secret");
    conf.set("fs.slipstream.shared.servers", pool.stream().map(MemcachedServer::hostPort).collect(Collectors.joining(",")));
    return FileSystem.newInstance(URI.create("s3a://" + BUCKET + "/"), conf);
  }

  @Test
  void aSecondHostReadsTheFileFromThePool() throws IOException {
    Path file = new Path("s3a://" + BUCKET + "/table/part-0.bin");
    int size = 3 * 1024 * 1024 + 99; // four blocks of 1 MiB
    try (FileSystem a = host()) {
      try (OutputStream out = a.create(file, true)) {
        out.write(TestData.bytes(4, size));
      }
      readAndCheck(a, file, size);
    } // closing host A waits for its writes to the pool
    try (FileSystem b = host()) {
      IOStatistics io = readAndCheck(b, file, size);
      assertThat(io.counters().get("slipstream_shared_hits")).isEqualTo(4);
      assertThat(io.counters().get("slipstream_shared_bytes_read")).isEqualTo(size);
      assertThat(io.counters().get("slipstream_get_requests")).as("open(path)'s HEAD was S3's answer").isZero();
    }
  }

  private static IOStatistics readAndCheck(FileSystem fs, Path file, int size) throws IOException {
    try (FSDataInputStream in = fs.open(file)) {
      byte[] all = new byte[size];
      in.readFully(0, all);
      assertThat(TestData.firstMismatch(4, 0, all, 0, size)).isEqualTo(-1);
      return ((IOStatisticsSource) in.getWrappedStream()).getIOStatistics();
    }
  }
}
