/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.hadoop;

import static org.assertj.core.api.Assertions.assertThat;

import dev.slipstream.Counter;
import dev.slipstream.ReadStatistics;
import dev.slipstream.testkit.ForkedS3Server;
import dev.slipstream.testkit.TestData;
import java.io.IOException;
import java.io.OutputStream;
import java.net.URI;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.LocatedFileStatus;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.RemoteIterator;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Open-ahead for readers that start at the footer, through the FileSystem: a table of one file per
 * partition directory, listed, then read as Spark's tasks read Parquet (each file opened by path, its last
 * bytes read first, then opened again for its data), in the orders a reader really follows: largest first
 * (Spark's packing of a scan's files into tasks) and by key.
 */
@Timeout(180)
class OpenAheadFromTheEndTest {
  static final String BUCKET = "openahead-end";
  static final int FILES = 10;
  static final int TAIL = 8 * 1024;
  static final String TABLE = "table";
  /** A table of files of one length, as pyarrow writes random data. */
  static final String EQUAL = "equal";
  static final int EQUAL_SIZE = 700_000;
  static ForkedS3Server server;

  /** Sizes in no order of their keys: 300 KB to 2.1 MB, each different. */
  static int size(int i) {
    return 300_000 + ((i * 7) % FILES) * 200_000;
  }

  @BeforeAll
  static void setUp() throws IOException {
    server = ForkedS3Server.start();
    server.createBucket(BUCKET);
    try (FileSystem fs = newFileSystem()) {
      for (int i = 0; i < FILES; i++) {
        try (OutputStream out = fs.create(file(i), true)) {
          out.write(TestData.bytes(200 + i, size(i)));
        }
        try (OutputStream out = fs.create(file(EQUAL, i), true)) {
          out.write(TestData.bytes(200 + i, EQUAL_SIZE));
        }
      }
    }
  }

  @AfterAll
  static void tearDown() {
    if (server != null) {
      server.close();
    }
  }

  static Path file(int i) {
    return file(TABLE, i);
  }

  static Path file(String table, int i) {
    return new Path(String.format("s3a://%s/%s/dt=%02d/part-0.bin", BUCKET, table, i));
  }

  static SlipstreamS3AFileSystem newFileSystem() throws IOException {
    return newFileSystem(4);
  }

  static SlipstreamS3AFileSystem newFileSystem(int openAheadFiles) throws IOException {
    Configuration conf = SlipstreamS3AFileSystemTest.conf(server);
    conf.set("fs.slipstream.openahead.files", String.valueOf(openAheadFiles));
    // Requests are what is compared: none saved by bytes an earlier stream left in a cache, which depends
    // on when that stream's pieces were kept.
    conf.set("fs.slipstream.cache.disk.mode", "off");
    conf.set("fs.slipstream.cache.memory", "false");
    return (SlipstreamS3AFileSystem) FileSystem.newInstance(URI.create("s3a://" + BUCKET + "/"), conf);
  }

  static List<LocatedFileStatus> list(FileSystem fs) throws IOException {
    return list(fs, TABLE);
  }

  static List<LocatedFileStatus> list(FileSystem fs, String table) throws IOException {
    List<LocatedFileStatus> files = new ArrayList<>();
    RemoteIterator<LocatedFileStatus> it = fs.listFiles(new Path("s3a://" + BUCKET + "/" + table + "/"), true);
    while (it.hasNext()) {
      files.add(it.next());
    }
    return files;
  }

  /** As a footer-first reader: the last bytes, then, opened again, a range of its data; each byte checked. */
  static void readFromTheEnd(FileSystem fs, LocatedFileStatus st) throws IOException {
    int i = Integer.parseInt(st.getPath().getParent().getName().substring(3));
    long len = st.getLen();
    byte[] tail = new byte[TAIL];
    try (FSDataInputStream in = fs.open(st.getPath())) {
      in.seek(len - 8);
      in.readFully(tail, 0, 8);
      in.readFully(len - TAIL, tail, 0, TAIL);
    }
    assertThat(TestData.firstMismatch(200 + i, len - TAIL, tail, 0, TAIL)).isEqualTo(-1);
    byte[] data = new byte[100_000];
    try (FSDataInputStream in = fs.open(st.getPath())) {
      in.seek(1000);
      in.readFully(data);
    }
    assertThat(TestData.firstMismatch(200 + i, 1000, data, 0, data.length)).isEqualTo(-1);
  }

  /** Lists the table, reads its files in {@code order}; the FileSystem's counters. */
  static ReadStatistics readAll(List<LocatedFileStatus> order, int openAheadFiles) throws IOException {
    try (SlipstreamS3AFileSystem fs = newFileSystem(openAheadFiles)) {
      list(fs, order.get(0).getPath().getParent().getParent().getName());
      for (LocatedFileStatus st : order) {
        readFromTheEnd(fs, st);
      }
      return fs.getSlipstreamStatistics();
    }
  }

  /**
   * From the third file on, each file's first open takes a stream opened ahead at the open of the file
   * before it (the order was shown by two files in a row), and each file's second open takes the stream
   * its first open closed (a reopen after a footer was seen twice); none is wasted, and the GETs and bytes
   * are no more than a FileSystem's with open-ahead off.
   */
  static void readsAheadAsWithout(List<LocatedFileStatus> order) throws IOException {
    ReadStatistics ahead = readAll(order, 4);
    ReadStatistics without = readAll(order, 0);
    assertThat(ahead.get(Counter.OPEN_AHEAD_STREAMS_USED)).as("streams opened ahead and taken")
        .isEqualTo(2L * (FILES - 2));
    assertThat(ahead.get(Counter.OPEN_AHEAD_STREAMS_WASTED)).as("wasted").isZero();
    assertThat(ahead.get(Counter.STREAMS_OPENED)).isEqualTo(without.get(Counter.STREAMS_OPENED) - (FILES - 2));
    // No more: a file's data read by the stream its footer read (a file of less than a block, fetched whole
    // at that read) may take no GET of its own. A GET sent again (a retry on a loaded machine) is not a
    // request of the reads'. Both FileSystems run without caches (see newFileSystem).
    assertThat(ahead.get(Counter.GET_REQUESTS) - ahead.get(Counter.RETRIES))
        .isLessThanOrEqualTo(without.get(Counter.GET_REQUESTS) - without.get(Counter.RETRIES));
    assertThat(without.get(Counter.OPEN_AHEAD_STREAMS_STARTED)).isZero();
  }

  /**
   * A reader that reads each file's footer and data through one stream (parquet-java's own): nothing is
   * kept for a reopen that never comes, and the next files' streams opened ahead are all used.
   */
  @Test
  void aReaderOfOneStreamAFileKeepsNoneForAReopen() throws Exception {
    List<LocatedFileStatus> order;
    try (FileSystem fs = newFileSystem()) {
      order = list(fs);
    }
    try (SlipstreamS3AFileSystem fs = newFileSystem(4)) {
      list(fs);
      for (LocatedFileStatus st : order) {
        int i = Integer.parseInt(st.getPath().getParent().getName().substring(3));
        byte[] tail = new byte[TAIL];
        byte[] data = new byte[100_000];
        try (FSDataInputStream in = fs.open(st.getPath())) {
          in.readFully(st.getLen() - TAIL, tail, 0, TAIL);
          in.readFully(1000, data, 0, data.length);
        }
        assertThat(TestData.firstMismatch(200 + i, st.getLen() - TAIL, tail, 0, TAIL)).isEqualTo(-1);
        assertThat(TestData.firstMismatch(200 + i, 1000, data, 0, data.length)).isEqualTo(-1);
      }
      ReadStatistics s = fs.getSlipstreamStatistics();
      assertThat(s.get(Counter.OPEN_AHEAD_STREAMS_USED)).as("the next files' streams").isEqualTo(FILES - 2);
      assertThat(s.get(Counter.OPEN_AHEAD_STREAMS_STARTED)).as("none kept for a reopen").isEqualTo(FILES - 2);
      assertThat(s.get(Counter.OPEN_AHEAD_STREAMS_WASTED)).isZero();
    }
  }

  @Test
  void filesReadLargestFirstAreOpenedAheadWithTheirTails() throws Exception {
    List<LocatedFileStatus> order;
    try (FileSystem fs = newFileSystem()) {
      order = new ArrayList<>(list(fs));
    }
    order.sort(Comparator.comparingLong(LocatedFileStatus::getLen).reversed());
    readsAheadAsWithout(order);
  }

  /**
   * Files of one length, in as many partition directories as Spark's partition discovery hands out in a
   * hash order ({@link PartitionOrder}): read in the order Spark's tasks take them, the directories in the
   * order of a Scala {@code HashMap} of their paths (Scala's own, here), they are opened ahead as in the
   * orders a listing shows.
   */
  @Test
  void filesOfOneLengthReadInSparksPartitionOrderAreOpenedAheadWithTheirTails() throws Exception {
    List<LocatedFileStatus> listed;
    try (FileSystem fs = newFileSystem()) {
      listed = list(fs, EQUAL);
    }
    List<Path> directories = new ArrayList<>();
    listed.forEach(st -> directories.add(st.getPath().getParent()));
    List<LocatedFileStatus> order = new ArrayList<>();
    for (Path d : PartitionOrderTest.scalaOrder(directories)) {
      listed.stream().filter(st -> st.getPath().getParent().equals(d)).forEach(order::add);
    }
    assertThat(order).extracting(st -> st.getPath().getParent().getName())
        .as("not key order").isNotEqualTo(listed.stream().map(st -> st.getPath().getParent().getName()).toList());
    readsAheadAsWithout(order);
  }

  @Test
  void filesReadByKeyAreOpenedAheadWithTheirTails() throws Exception {
    List<LocatedFileStatus> order;
    try (FileSystem fs = newFileSystem()) {
      order = list(fs);
    }
    readsAheadAsWithout(order);
  }
}
