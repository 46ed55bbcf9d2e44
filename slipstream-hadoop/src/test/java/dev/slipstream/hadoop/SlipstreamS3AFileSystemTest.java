/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.hadoop;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.slipstream.Counter;
import dev.slipstream.Latency;
import dev.slipstream.ReadStatistics;
import dev.slipstream.testkit.ForkedS3Server;
import dev.slipstream.testkit.ScriptedS3Server;
import dev.slipstream.testkit.S3ASettings;
import dev.slipstream.testkit.TestData;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.OutputStream;
import java.net.URI;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FileRange;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.StreamCapabilities;
import org.apache.hadoop.fs.statistics.IOStatistics;
import org.apache.hadoop.fs.statistics.IOStatisticsSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The FileSystem as a Hadoop job sees it, against s3proxy: what the contract tests do not cover. */
@Timeout(180)
class SlipstreamS3AFileSystemTest {
  static final String BUCKET = "fs-test";
  static final int SIZE = 3 * 1024 * 1024 + 777;
  static ForkedS3Server server;
  static FileSystem fs;
  static Path file;

  static Configuration conf(ForkedS3Server s) {
    return confAt(s.endpoint());
  }

  /** The test configuration for an s3proxy (or a link shaper in front of one) at {@code endpoint}. */
  static Configuration confAt(URI endpoint) {
    Configuration conf = new Configuration(false);
    conf.set("fs.s3a.impl", SlipstreamS3AFileSystem.class.getName());
    conf.set("fs.slipstream.cache.disk.dir", "target/test-disk-cache"); // this build's own, not the user's
    conf.setBoolean("fs.s3a.impl.disable.cache", true);
    S3ASettings.forEndpoint(endpoint).forEach(conf::set);
    conf.set("fs.s3a.fast.upload.buffer", "array");
    conf.set("fs.slipstream.block.size", "1M");
    conf.set("fs.slipstream.memory.max", "64M");
    // Requests are counted: no GET sent again because a busy machine answered it late (a hedge).
    conf.set("fs.slipstream.hedge.budget", "0");
    return conf;
  }

  /**
   * The test configuration for the scripted server at {@code at}, FileSystem {@code impl}: one attempt per
   * request, no S3 Express sessions, no caches (requests are what such tests check).
   */
  static Configuration scriptedConf(ScriptedS3Server at, Class<?> impl) {
    Configuration conf = SlipstreamS3AFileSystemTest.confAt(at.endpoint());
    conf.set("fs.s3a.impl", impl.getName());
    conf.setInt("fs.s3a.attempts.maximum", 1);
    conf.setInt("fs.s3a.retry.limit", 1);
    conf.set("fs.slipstream.retry.max", "1");
    // The scripted store has no S3 Express sessions: requests to a directory bucket are signed as any other.
    conf.setBoolean("fs.s3a.s3express.create.session", false);
    // Requests are what is checked: none saved by blocks an earlier run or test left in a cache.
    conf.set("fs.slipstream.cache.disk.mode", "off");
    conf.set("fs.slipstream.cache.memory", "false");
    return conf;
  }

  @BeforeAll
  static void setUp() throws IOException {
    server = ForkedS3Server.start();
    server.createBucket(BUCKET);
    fs = FileSystem.get(URI.create("s3a://" + BUCKET + "/"), conf(server));
    file = new Path("s3a://" + BUCKET + "/dir/data.bin");
    try (OutputStream out = fs.create(file, true)) {
      out.write(TestData.bytes(3, SIZE));
    }
  }

  @AfterAll
  static void tearDown() throws IOException {
    if (fs != null) {
      fs.close();
    }
    if (server != null) {
      server.close();
    }
  }

  @Test
  void openReturnsSlipstreamStreamWithRightBytesAndCountsThem() throws IOException {
    assertThat(fs).isInstanceOf(SlipstreamS3AFileSystem.class);
    FileSystem.Statistics stats = FileSystem.getStatistics("s3a", SlipstreamS3AFileSystem.class);
    long before = stats.getBytesRead();
    try (FSDataInputStream in = fs.open(file)) {
      assertThat(in.getWrappedStream()).isInstanceOf(SlipstreamFSInputStream.class);
      byte[] all = new byte[SIZE];
      in.readFully(0, all);
      assertThat(TestData.firstMismatch(3, 0, all, 0, SIZE)).isEqualTo(-1);
      in.seek(SIZE - 10);
      assertThat(in.read()).isEqualTo(TestData.byteAt(3, SIZE - 10) & 0xff);
      assertThat(in.hasCapability(StreamCapabilities.VECTOREDIO)).isTrue();
      assertThat(in.hasCapability(StreamCapabilities.UNBUFFER)).isTrue();
      IOStatistics io = ((IOStatisticsSource) in.getWrappedStream()).getIOStatistics();
      assertThat(io.counters().get("slipstream_bytes_read")).isEqualTo(SIZE + 1L);
    }
    assertThat(stats.getBytesRead() - before).isEqualTo(SIZE + 1L);
  }

  /** The module's parts log under the FileSystem's name, as they did when they were part of it. */
  @Test
  void thePartsLogUnderTheFileSystemsName() {
    assertThat(HadoopConfig.LOGGER).isEqualTo(SlipstreamS3AFileSystem.class.getName());
  }

  /** A write at the bucket's root reaches S3A, which answers as it does for the root (it failed on an empty key before). */
  @Test
  void writesAtTheBucketsRootGoToS3A() throws IOException {
    Path root = new Path("s3a://" + BUCKET + "/");
    assertThat(fs.mkdirs(root)).isTrue();
    assertThat(fs.delete(root, false)).as("S3A refuses to delete a non-empty root").isFalse();
    assertThat(fs.exists(file)).isTrue();
  }

  @Test
  void aSecondOpenOfAFileIsServedFromTheMemoryCacheWithoutAGet() throws IOException {
    Path again = new Path("s3a://" + BUCKET + "/dir/read-twice.bin");
    int size = 2 * 1024 * 1024 + 4321; // three blocks of 1 MiB
    try (OutputStream out = fs.create(again, true)) {
      out.write(TestData.bytes(9, size));
    }
    for (int pass = 0; pass < 2; pass++) {
      try (FSDataInputStream in = fs.open(again)) {
        byte[] all = new byte[size];
        in.readFully(all);
        assertThat(TestData.firstMismatch(9, 0, all, 0, size)).isEqualTo(-1);
        IOStatistics io = ((IOStatisticsSource) in.getWrappedStream()).getIOStatistics();
        if (pass == 1) {
          assertThat(io.counters().get("slipstream_get_requests")).as("open(path) made a HEAD: S3's answer").isZero();
          assertThat(io.counters().get("slipstream_memory_cache_hits")).isEqualTo(3);
          assertThat(io.counters().get("slipstream_memory_cache_bytes_read")).isEqualTo(size);
        }
      }
    }
  }

  @Test
  void theFileSystemsIoStatisticsShowWhatItsStreamsFetchedAndReturned() throws IOException {
    SlipstreamS3AFileSystem sfs = (SlipstreamS3AFileSystem) fs;
    IOStatistics io = sfs.getIOStatistics();
    long returned = io.counters().get("stream_read_bytes");
    try (FSDataInputStream in = fs.open(file)) {
      byte[] some = new byte[1000];
      in.readFully(5000, some);
    }
    io = sfs.getIOStatistics();
    assertThat(io.counters().get("stream_read_bytes") - returned).isEqualTo(1000);
    // Bytes from S3 (this read may have come from the disk cache: the counters agree either way).
    assertThat(io.counters().get("stream_read_total_bytes")).isEqualTo(io.counters().get("slipstream_bytes_fetched"))
        .isEqualTo(sfs.getSlipstreamStatistics().get(Counter.BYTES_FETCHED)).isPositive();
    // S3A's own statistics are still there (HEAD requests of open(path)).
    assertThat(io.counters()).containsKey("object_metadata_request");
    assertThat(org.apache.hadoop.fs.statistics.IOStatisticsLogging.ioStatisticsToPrettyString(io))
        .contains("slipstream_bytes_fetched", "slipstream_get_first_byte_latency_us.p99");
    // Latencies, in microseconds: the client's histograms as minimum, maximum, mean and percentile gauges.
    // One sample per GET answered: a GET cancelled before its answer (a stream closed with reads ahead in
    // flight) or a hedge's loser (a first GET of this JVM can be slow enough to be hedged) has none.
    // Read between two looks at the client's histogram, which a GET still being cancelled may yet add to.
    ReadStatistics client = sfs.getSlipstreamStatistics();
    long answered = client.latency(Latency.GET_FIRST_BYTE).count();
    long samples = io.meanStatistics().get("slipstream_get_first_byte_latency_us.mean").getSamples();
    assertThat(samples).isPositive().isBetween(answered, client.latency(Latency.GET_FIRST_BYTE).count())
        .isLessThanOrEqualTo(client.get(Counter.GET_REQUESTS));
    assertThat(io.maximums().get("slipstream_get_latency_us.max"))
        .isGreaterThanOrEqualTo(io.gauges().get("slipstream_get_latency_us.p99"))
        .isGreaterThanOrEqualTo(io.gauges().get("slipstream_get_latency_us.p50"))
        .isGreaterThanOrEqualTo(io.minimums().get("slipstream_get_latency_us.min")).isPositive();
  }

  @Test
  void openFileWithAStatusOrALengthMakesNoHead() throws Exception {
    SlipstreamS3AFileSystem sfs = (SlipstreamS3AFileSystem) fs;
    FileStatus status = fs.getFileStatus(file);
    long heads = headRequests();
    try (FSDataInputStream in = fs.openFile(file).withFileStatus(status).build().get()) {
      byte[] b = new byte[1000];
      in.readFully(5000, b);
      assertThat(TestData.firstMismatch(3, 5000, b, 0, b.length)).isEqualTo(-1);
    }
    try (FSDataInputStream in = fs.openFile(file).opt("fs.option.openfile.length", SIZE)
        .opt("fs.option.openfile.read.policy", "random, sequential").build().get()) {
      byte[] b = new byte[1000];
      in.readFully(SIZE - 1000, b);
      assertThat(TestData.firstMismatch(3, SIZE - 1000, b, 0, b.length)).isEqualTo(-1);
    }
    assertThat(headRequests()).isEqualTo(heads);
    assertThat(sfs.getSlipstreamStatistics().get(Counter.HEAD_REQUESTS)).isZero();
  }

  private static long headRequests() {
    // S3A counts its HEADs in its IOStatistics; its StorageStatistics leave this one at 0.
    Long n = ((org.apache.hadoop.fs.statistics.IOStatisticsSource) fs).getIOStatistics().counters()
        .get("object_metadata_request");
    return n == null ? 0 : n;
  }

  @Test
  void splitEndBoundsPrefetch() throws Exception {
    SlipstreamS3AFileSystem sfs = (SlipstreamS3AFileSystem) fs;
    long fetchedBefore = sfs.getSlipstreamStatistics().get(Counter.BYTES_FETCHED);
    long diskBefore = sfs.getSlipstreamStatistics().get(Counter.DISK_CACHE_BYTES_READ);
    try (FSDataInputStream in = fs.openFile(file).opt("fs.option.openfile.split.start", 0)
        .opt("fs.option.openfile.split.end", 1024 * 1024).opt("fs.option.openfile.read.policy", "sequential")
        .build().get()) {
      byte[] split = new byte[1024 * 1024];
      in.readFully(split);
      assertThat(TestData.firstMismatch(3, 0, split, 0, split.length)).isEqualTo(-1);
    }
    // From S3, or from blocks an earlier test left in the disk cache: either way, nothing past the split.
    assertThat(sfs.getSlipstreamStatistics().get(Counter.BYTES_FETCHED) - fetchedBefore
        + sfs.getSlipstreamStatistics().get(Counter.DISK_CACHE_BYTES_READ) - diskBefore).isEqualTo(1024 * 1024);
  }

  @Test
  void unknownMandatoryOptionIsRejected() {
    assertThatThrownBy(() -> fs.openFile(file).must("fs.option.openfile.no-such-thing", "x").build().get())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("fs.option.openfile.no-such-thing");
  }

  @Test
  void missingFilesAndDirectoriesAreFileNotFound() {
    assertThatThrownBy(() -> fs.open(new Path("s3a://" + BUCKET + "/no/such/file")))
        .isInstanceOf(FileNotFoundException.class);
    assertThatThrownBy(() -> fs.open(new Path("s3a://" + BUCKET + "/dir")))
        .isInstanceOf(FileNotFoundException.class);
    assertThatThrownBy(() -> fs.open(new Path("s3a://" + BUCKET + "/")))
        .isInstanceOf(FileNotFoundException.class);
  }

  @Test
  void vectoredReadsReturnEveryRange() throws Exception {
    List<FileRange> ranges = new ArrayList<>();
    ranges.add(FileRange.createFileRange(0, 100));
    ranges.add(FileRange.createFileRange(100_000, 5000));
    ranges.add(FileRange.createFileRange(120_000, 7)); // merged with the one before
    ranges.add(FileRange.createFileRange(2_000_000, 1_048_576));
    ranges.add(FileRange.createFileRange(SIZE - 1, 1));
    try (FSDataInputStream in = fs.open(file)) {
      in.readVectored(ranges, ByteBuffer::allocateDirect);
      for (FileRange r : ranges) {
        ByteBuffer b = r.getData().get();
        byte[] got = new byte[b.remaining()];
        b.get(got);
        assertThat(got.length).isEqualTo(r.getLength());
        assertThat(TestData.firstMismatch(3, r.getOffset(), got, 0, got.length)).isEqualTo(-1);
      }
    }
  }

  @Test
  void closedStreamFailsAndUnbufferKeepsPosition() throws IOException {
    FSDataInputStream in = fs.open(file);
    in.seek(1234);
    in.read();
    in.unbuffer();
    assertThat(in.getPos()).isEqualTo(1235);
    assertThat(in.read()).isEqualTo(TestData.byteAt(3, 1235) & 0xff);
    in.close();
    assertThatThrownBy(in::read).isInstanceOf(IOException.class);
  }

  @Test
  void invalidSlipstreamSettingFailsAtInitializeNamingTheKey() {
    Configuration bad = conf(server);
    bad.set("fs.slipstream.block.size", "big");
    assertThatThrownBy(() -> FileSystem.newInstance(URI.create("s3a://" + BUCKET + "/"), bad))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("fs.slipstream.block.size");
  }
}
