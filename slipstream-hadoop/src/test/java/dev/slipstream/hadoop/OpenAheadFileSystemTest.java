/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.hadoop;

import static org.assertj.core.api.Assertions.assertThat;

import dev.slipstream.Counter;
import dev.slipstream.ObjectRef;
import dev.slipstream.S3Location;
import dev.slipstream.WriteLog;
import dev.slipstream.testkit.ForkedS3Server;
import dev.slipstream.testkit.TestData;
import java.io.IOException;
import java.io.OutputStream;
import java.net.URI;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.util.functional.FutureIO;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Open-ahead through the FileSystem: files read in listing order start with their first block in memory. */
@Timeout(180)
class OpenAheadFileSystemTest {
  static final String BUCKET = "openahead-fs";
  static final int FILES = 10;
  static ForkedS3Server server;

  static int size(int i) {
    return 10_000 + i * 37_000; // 10 KB to 343 KB, under the 1 MiB block
  }

  @BeforeAll
  static void setUp() throws IOException {
    server = ForkedS3Server.start();
    server.createBucket(BUCKET);
    try (FileSystem fs = newFileSystem()) {
      for (int i = 0; i < FILES; i++) {
        try (OutputStream out = fs.create(file(i), true)) {
          out.write(TestData.bytes(100 + i, size(i)));
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
    return new Path("s3a://" + BUCKET + "/small/part-" + i);
  }

  /** A new instance (not cached), so its counters are this test's alone. */
  static SlipstreamS3AFileSystem newFileSystem() throws IOException {
    Configuration conf = SlipstreamS3AFileSystemTest.conf(server);
    conf.set("fs.slipstream.openahead.files", "3");
    return (SlipstreamS3AFileSystem) FileSystem.newInstance(URI.create("s3a://" + BUCKET + "/"), conf);
  }

  static long headRequests(FileSystem fs) {
    // S3A counts its HEADs in its IOStatistics; its StorageStatistics leave this one at 0.
    Long n = ((org.apache.hadoop.fs.statistics.IOStatisticsSource) fs).getIOStatistics().counters()
        .get("object_metadata_request");
    return n == null ? 0 : n;
  }

  static FileStatus[] listSorted(FileSystem fs) throws IOException {
    FileStatus[] statuses = fs.listStatus(new Path("s3a://" + BUCKET + "/small/"));
    Arrays.sort(statuses, Comparator.comparing(s -> Integer.parseInt(s.getPath().getName().substring(5))));
    return statuses;
  }

  static void readAndVerify(FileSystem fs, FileStatus st) throws Exception {
    int i = Integer.parseInt(st.getPath().getName().substring(5));
    try (FSDataInputStream in = FutureIO.awaitFuture(fs.openFile(st.getPath()).withFileStatus(st).build())) {
      byte[] all = in.readAllBytes();
      assertThat(all.length).isEqualTo(size(i));
      assertThat(TestData.firstMismatch(100 + i, 0, all, 0, all.length)).as("first wrong byte of %s", st.getPath())
          .isEqualTo(-1);
    }
  }

  @Test
  void filesReadInListingOrderStartWithTheirFirstBlockFetchedAheadAndNoHead() throws Exception {
    try (SlipstreamS3AFileSystem fs = newFileSystem()) {
      FileStatus[] statuses = listSorted(fs);
      assertThat(statuses).hasSize(FILES);
      fs.listings().memory().listed(statuses); // what the FileSystem's listing does for every listing it returns
      long heads = headRequests(fs);
      for (FileStatus st : statuses) {
        readAndVerify(fs, st);
      }
      assertThat(headRequests(fs)).as("HEAD requests while reading").isEqualTo(heads);
      var stats = fs.getSlipstreamStatistics();
      assertThat(stats.get(Counter.HEAD_REQUESTS)).isZero();
      // Open-ahead starts once the evidence is there: file 1 opened after file 0, which was read from its
      // first byte. Every file after file 1 was fetched ahead.
      assertThat(stats.get(Counter.OPEN_AHEAD_USED)).isEqualTo(FILES - 2);
      assertThat(stats.get(Counter.OPEN_AHEAD_WASTED)).isZero();
      // A GET whose first byte came late on a busy machine is hedged: the same GET again, not another one.
      assertThat(stats.get(Counter.GET_REQUESTS) - stats.get(Counter.HEDGED_REQUESTS)).as("one GET per file")
          .isEqualTo(FILES);
    }
  }

  @Test
  void theFileSystemsOwnListingsGiveTheOrder() throws Exception {
    try (SlipstreamS3AFileSystem fs = newFileSystem()) {
      // listStatus, as a task or FileInputFormat calls it, in the order it returns
      for (FileStatus st : fs.listStatus(new Path("s3a://" + BUCKET + "/small/"))) {
        readAndVerify(fs, st);
      }
      assertThat(fs.getSlipstreamStatistics().get(Counter.OPEN_AHEAD_USED)).isEqualTo(FILES - 2);
    }
    try (SlipstreamS3AFileSystem fs = newFileSystem()) {
      // listFiles: each status is remembered as the iterator hands it out
      org.apache.hadoop.fs.RemoteIterator<org.apache.hadoop.fs.LocatedFileStatus> it =
          fs.listFiles(new Path("s3a://" + BUCKET + "/small/"), false);
      java.util.List<FileStatus> listed = new java.util.ArrayList<>();
      while (it.hasNext()) {
        listed.add(it.next());
      }
      for (FileStatus st : listed) {
        readAndVerify(fs, st);
      }
      assertThat(fs.getSlipstreamStatistics().get(Counter.OPEN_AHEAD_USED)).isEqualTo(FILES - 2);
      var stats = fs.getSlipstreamStatistics();
      assertThat(stats.get(Counter.GET_REQUESTS) - stats.get(Counter.HEDGED_REQUESTS)).as("one GET per file, hedges apart")
          .isEqualTo(FILES);
    }
  }

  @Test
  void readersThatStartAtTheFooterOrOpenOutOfOrderGetNoOpenAhead() throws Exception {
    try (SlipstreamS3AFileSystem fs = newFileSystem()) {
      FileStatus[] statuses = fs.listStatus(new Path("s3a://" + BUCKET + "/small/"));
      // As a Parquet reader does: the last 8 bytes first, in listing order.
      for (FileStatus st : statuses) {
        int i = Integer.parseInt(st.getPath().getName().substring(5));
        try (FSDataInputStream in = FutureIO.awaitFuture(fs.openFile(st.getPath()).withFileStatus(st).build())) {
          byte[] tail = new byte[8];
          in.readFully(size(i) - 8, tail);
          assertThat(TestData.firstMismatch(100 + i, size(i) - 8, tail, 0, 8)).isEqualTo(-1);
        }
      }
      // From the first byte, but every other file: never the one listed next.
      for (int k = 0; k < statuses.length; k += 2) {
        readAndVerify(fs, statuses[k]);
      }
      assertThat(fs.getSlipstreamStatistics().get(Counter.OPEN_AHEAD_STARTED)).isZero();
    }
  }

  @Test
  void anExplicitReadingOrderPreparesEveryFileAndOpenWithAHeadStillUsesThem() throws Exception {
    try (SlipstreamS3AFileSystem fs = newFileSystem()) {
      List<FileStatus> statuses = Arrays.asList(listSorted(fs));
      fs.readingInOrder(statuses);
      for (FileStatus st : statuses.subList(0, 5)) {
        readAndVerify(fs, st);
      }
      // open(path) makes S3A's HEAD: its ETag is the listed one, so the prepared block is served too.
      for (FileStatus st : statuses.subList(5, FILES)) {
        int i = Integer.parseInt(st.getPath().getName().substring(5));
        try (FSDataInputStream in = fs.open(st.getPath())) {
          byte[] all = in.readAllBytes();
          assertThat(TestData.firstMismatch(100 + i, 0, all, 0, all.length)).isEqualTo(-1);
          assertThat(all.length).isEqualTo(size(i));
        }
      }
      var stats = fs.getSlipstreamStatistics();
      assertThat(stats.get(Counter.OPEN_AHEAD_USED)).isEqualTo(FILES);
      assertThat(stats.get(Counter.GET_REQUESTS)).isEqualTo(FILES);
    }
  }

  @Test
  void wrongGuessesAreDroppedAndCounted() throws Exception {
    SlipstreamS3AFileSystem fs = newFileSystem();
    var stats = fs.getSlipstreamStatistics();
    try {
      List<FileStatus> statuses = Arrays.asList(listSorted(fs));
      fs.hintNextFiles(statuses.subList(0, 3));
      fs.hintNextFiles(statuses.subList(5, 8)); // the first three were wrong guesses
      assertThat(stats.get(Counter.OPEN_AHEAD_STARTED)).isEqualTo(6);
      assertThat(stats.get(Counter.OPEN_AHEAD_WASTED)).isEqualTo(3);
      readAndVerify(fs, statuses.get(6));
      assertThat(stats.get(Counter.OPEN_AHEAD_USED)).isEqualTo(1);
    } finally {
      fs.close();
    }
    // At close every block fetched ahead and not used is wasted (opening file 6 also hinted the files
    // after it in the listing order, which nobody opened).
    assertThat(stats.get(Counter.OPEN_AHEAD_WASTED))
        .isEqualTo(stats.get(Counter.OPEN_AHEAD_STARTED) - stats.get(Counter.OPEN_AHEAD_USED))
        .isGreaterThanOrEqualTo(5);
  }

  @Test
  void listingOrderIsPerListingAndBounded() {
    ListingOrder order = new ListingOrder(5, false,
        s -> new ObjectRef(new S3Location("b", s.getPath().getName()), s.getLen(), null), new WriteLog());
    ListingOrder.Listing a = order.newListing(order.generation());
    ListingOrder.Listing b = order.newListing(order.generation());
    // Two listings handed out at the same time, interleaved: each keeps its own order.
    for (int i = 0; i < 3; i++) {
      a.listed(status("a" + i));
      if (i < 2) {
        b.listed(status("b" + i));
      }
    }
    // directories: ignored
    order.listed(new FileStatus[] {new FileStatus(0, true, 1, 0, 0, new Path("s3a://b/dir"))}, order.generation());
    assertThat(order.size()).isEqualTo(5);
    assertThat(names(order.after(new S3Location("b", "a0"), 5))).containsExactly("a1", "a2");
    assertThat(names(order.after(new S3Location("b", "a1"), 1))).containsExactly("a2");
    assertThat(names(order.after(new S3Location("b", "b0"), 5))).containsExactly("b1");
    assertThat(order.after(new S3Location("b", "nowhere"), 3)).isEmpty();
    b.listed(status("b2")); // a sixth file: the oldest listing is forgotten
    assertThat(order.size()).isEqualTo(3);
    assertThat(order.after(new S3Location("b", "a0"), 3)).isEmpty();
    assertThat(names(order.after(new S3Location("b", "b1"), 3))).containsExactly("b2");
    List<FileStatus> many = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      many.add(status("c" + i));
    }
    order.listed(many.toArray(new FileStatus[0]), order.generation());
    assertThat(order.size()).isLessThanOrEqualTo(5);
    assertThat(names(order.after(new S3Location("b", "c18"), 3))).containsExactly("c19");
    assertThat(order.after(new S3Location("b", "a0"), 3)).isEmpty();
  }

  private static FileStatus status(String name) {
    return new FileStatus(100, false, 1, 1 << 20, 0, new Path("s3a://b/" + name));
  }

  private static List<String> names(List<ObjectRef> refs) {
    return refs.stream().map(r -> r.location().key()).toList();
  }
}
