/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.hadoop;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.slipstream.Counter;
import dev.slipstream.ObjectChangedException;
import dev.slipstream.testkit.RequestInfo;
import dev.slipstream.testkit.ScriptedS3Server;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.EtagSource;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.LocatedFileStatus;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.RemoteIterator;
import org.apache.hadoop.fs.s3a.S3AFileSystem;
import org.apache.hadoop.util.functional.FutureIO;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code getFileStatus(path)} of a file this FileSystem listed moments before, as Parquet's
 * {@code HadoopInputFile.fromPath} asks for each file a Spark task reads: the listing's own status, with no
 * request; and S3A's answer, its HEAD, for everything else: directories, files not listed, empty files,
 * listings past {@code list.reuse.ttl}, files written, deleted or renamed through the FileSystem since,
 * {@code list.reuse.ttl=0} and requester-pays buckets. Requests are counted on the wire.
 */
@Timeout(180)
class StatusFromListingTest {
  static final String BUCKET = "status-listed";
  static final int FILES = 4;
  @RegisterExtension
  static final ShapedBucket S3 = new ShapedBucket(BUCKET);

  static int size(int i) {
    return 10_000 + i * 7_000;
  }

  @BeforeEach
  void writeFiles() throws IOException {
    try (FileSystem fs = newFileSystem()) {
      fs.delete(dir(), true);
      fs.delete(path("other"), true);
      for (int i = 0; i < FILES; i++) {
        OpenFromListingTest.write(fs, file(i), 100 + i, size(i));
      }
      OpenFromListingTest.write(fs, path("dir/empty"), 1, 0);
      OpenFromListingTest.write(fs, path("dir/sub/x"), 2, 1_000);
      OpenFromListingTest.write(fs, path("other/unlisted"), 3, 5_000);
    }
  }

  static Path path(String key) {
    return new Path("s3a://" + BUCKET + "/" + key);
  }

  static Path dir() {
    return path("dir");
  }

  static Path file(int i) {
    return path("dir/part-" + i);
  }

  static SlipstreamS3AFileSystem newFileSystem(String... extra) throws IOException {
    return S3.newFileSystem(extra);
  }

  static FileSystem stockS3A() throws IOException {
    Configuration conf = SlipstreamS3AFileSystemTest.confAt(S3.shaper().endpoint());
    conf.set("fs.s3a.impl", S3AFileSystem.class.getName());
    return FileSystem.newInstance(URI.create("s3a://" + BUCKET + "/"), conf);
  }

  static long fromListing(SlipstreamS3AFileSystem fs) {
    return fs.getSlipstreamStatistics().get(Counter.STATUSES_FROM_LISTING);
  }

  static List<FileStatus> files(FileStatus[] listed) {
    List<FileStatus> files = new ArrayList<>();
    for (FileStatus st : listed) {
      if (st.isFile() && st.getLen() > 0) {
        files.add(st);
      }
    }
    return files;
  }

  static String etag(FileStatus st) {
    return ((EtagSource) st).getEtag();
  }

  @Test
  void aListedFileIsItsListingsOwnStatusWithNoRequest() throws IOException {
    try (SlipstreamS3AFileSystem fs = newFileSystem(); FileSystem stock = stockS3A()) {
      List<FileStatus> listed = files(fs.listStatus(dir()));
      assertThat(listed).hasSize(FILES);
      long requestsBefore = S3.shaper().requests();
      for (FileStatus st : listed) {
        // A new Path from the file's name, as HadoopInputFile.fromPath(path) is given one.
        assertThat(fs.getFileStatus(new Path(st.getPath().toString()))).isSameAs(st);
      }
      assertThat(S3.shaper().requests() - requestsBefore).as("requests of the getFileStatus calls").isZero();
      assertThat(fromListing(fs)).isEqualTo(FILES);
      // What S3A's own getFileStatus (its HEAD) says of each file now.
      for (FileStatus st : listed) {
        FileStatus head = stock.getFileStatus(st.getPath());
        assertThat(st.getPath()).isEqualTo(head.getPath());
        assertThat(st.isFile()).isTrue();
        assertThat(st.getLen()).isEqualTo(head.getLen());
        assertThat(etag(st)).isEqualTo(etag(head));
        assertThat(st.getModificationTime() / 1000).as("modified, to the second a HEAD gives")
            .isEqualTo(head.getModificationTime() / 1000);
        assertThat(st.getBlockSize()).isEqualTo(head.getBlockSize());
        assertThat(st.getOwner()).isEqualTo(head.getOwner());
      }
    }
  }

  @Test
  void filesOfARecursiveListingAreTheirLocatedStatusesWithNoRequest() throws IOException {
    try (SlipstreamS3AFileSystem fs = newFileSystem()) {
      List<LocatedFileStatus> listed = new ArrayList<>();
      RemoteIterator<LocatedFileStatus> it = fs.listFiles(path(""), true);
      while (it.hasNext()) {
        LocatedFileStatus st = it.next();
        if (st.getLen() > 0) {
          listed.add(st);
        }
      }
      assertThat(listed).hasSize(FILES + 2);
      long requestsBefore = S3.shaper().requests();
      for (LocatedFileStatus st : listed) {
        assertThat(fs.getFileStatus(st.getPath())).isSameAs(st);
      }
      assertThat(S3.shaper().requests() - requestsBefore).isZero();
      assertThat(fromListing(fs)).isEqualTo(FILES + 2);
    }
  }

  @Test
  void aDirectoryAFileNotListedAnEmptyFileAndAMissingOneAreS3As() throws IOException {
    try (SlipstreamS3AFileSystem fs = newFileSystem()) {
      FileStatus[] listed = fs.listStatus(dir());
      assertThat(listed).extracting(st -> st.getPath().getName()).contains("sub", "empty");
      long headsBefore = S3.shaper().requests("HEAD");
      assertThat(fs.getFileStatus(path("dir/sub")).isDirectory()).isTrue();
      assertThat(S3.shaper().requests("HEAD") - headsBefore).as("S3A's HEAD of a listed directory").isPositive();
      headsBefore = S3.shaper().requests("HEAD");
      assertThat(fs.getFileStatus(path("other/unlisted")).getLen()).isEqualTo(5_000);
      assertThat(fs.getFileStatus(path("dir/empty")).getLen()).isZero();
      assertThat(S3.shaper().requests("HEAD") - headsBefore).as("HEADs of a file not listed, and of an empty one")
          .isEqualTo(2);
      assertThatThrownBy(() -> fs.getFileStatus(path("dir/part-missing"))).isInstanceOf(FileNotFoundException.class);
      assertThat(fromListing(fs)).isZero();
    }
  }

  @Test
  void aListingPastTheWindowIsNotUsed() throws Exception {
    try (SlipstreamS3AFileSystem fs = newFileSystem("fs.slipstream.list.reuse.ttl", "50ms")) {
      fs.listStatus(dir());
      Thread.sleep(200);
      long headsBefore = S3.shaper().requests("HEAD");
      assertThat(fs.getFileStatus(file(1)).getLen()).isEqualTo(size(1));
      assertThat(S3.shaper().requests("HEAD") - headsBefore).isEqualTo(1);
      assertThat(fromListing(fs)).isZero();
    }
  }

  @Test
  void aFileWrittenDeletedOrRenamedThroughThisFileSystemIsAskedOfS3() throws IOException {
    try (SlipstreamS3AFileSystem fs = newFileSystem()) {
      fs.listStatus(dir());
      OpenFromListingTest.write(fs, file(0), 999, 4_321);
      long headsBefore = S3.shaper().requests("HEAD");
      FileStatus written = fs.getFileStatus(file(0));
      assertThat(written.getLen()).as("the version written").isEqualTo(4_321);
      assertThat(S3.shaper().requests("HEAD") - headsBefore).isEqualTo(1);
      assertThat(fs.delete(file(1), false)).isTrue();
      assertThatThrownBy(() -> fs.getFileStatus(file(1))).isInstanceOf(FileNotFoundException.class);
      assertThat(fs.rename(file(2), path("other/moved"))).isTrue();
      assertThatThrownBy(() -> fs.getFileStatus(file(2))).isInstanceOf(FileNotFoundException.class);
      assertThat(fs.getFileStatus(path("other/moved")).getLen()).isEqualTo(size(2));
      assertThat(fromListing(fs)).isZero();
      // The one file no write touched is still the listing's, until its parent is deleted.
      assertThat(fs.getFileStatus(file(3)).getLen()).isEqualTo(size(3));
      assertThat(fromListing(fs)).isEqualTo(1);
      assertThat(fs.delete(dir(), true)).isTrue();
      assertThatThrownBy(() -> fs.getFileStatus(file(3))).isInstanceOf(FileNotFoundException.class);
      assertThat(fromListing(fs)).isEqualTo(1);
    }
  }

  @Test
  void withListingReuseOffEveryStatusIsAHead() throws IOException {
    try (SlipstreamS3AFileSystem fs = newFileSystem("fs.slipstream.list.reuse.ttl", "0")) {
      List<FileStatus> listed = files(fs.listStatus(dir()));
      long headsBefore = S3.shaper().requests("HEAD");
      for (FileStatus st : listed) {
        assertThat(fs.getFileStatus(st.getPath()).getLen()).isEqualTo(st.getLen());
      }
      assertThat(S3.shaper().requests("HEAD") - headsBefore).isEqualTo(FILES);
      assertThat(fromListing(fs)).isZero();
    }
  }

  /**
   * The window's cost, as documented: a file another client replaced after the listing shows as listed
   * until the window ends, as the listing itself does. A read opened with that status names the listed
   * version and fails saying so, never with the other version's bytes; opening it by path reads it as it
   * is now.
   */
  @Test
  void aFileReplacedElsewhereShowsAsListedWithinTheWindow() throws Exception {
    try (SlipstreamS3AFileSystem fs = newFileSystem(); FileSystem other = newFileSystem()) {
      FileStatus listed = files(fs.listStatus(dir())).get(1);
      assertThat(listed.getPath()).isEqualTo(file(1));
      OpenFromListingTest.write(other, file(1), 555, size(1));
      String now = etag(other.getFileStatus(file(1)));
      assertThat(now).isNotEqualTo(etag(listed));
      FileStatus status = fs.getFileStatus(file(1));
      assertThat(status).as("as listed").isSameAs(listed);
      try (FSDataInputStream in = FutureIO.awaitFuture(fs.openFile(file(1)).withFileStatus(status).build())) {
        assertThatThrownBy(in::read).isInstanceOf(ObjectChangedException.class);
      }
      OpenFromListingTest.assertReads(fs, file(1), 555, size(1));
    }
  }

  /** Requester pays leaves every listing to S3A, and so every getFileStatus: the same rule as opens. */
  @Test
  void inARequesterPaysBucketEveryStatusIsAHead() throws IOException {
    try (ScriptedS3Server scripted = ScriptedS3Server.start()) {
      scripted.put("payer", "dir/a.bin", new byte[1234]);
      Configuration conf = SlipstreamS3AFileSystemTest.scriptedConf(scripted, SlipstreamS3AFileSystem.class);
      conf.setBoolean("fs.s3a.requester.pays.enabled", true);
      try (SlipstreamS3AFileSystem fs = (SlipstreamS3AFileSystem) FileSystem.newInstance(URI.create("s3a://payer/"), conf)) {
        assertThat(fs.listStatus(new Path("s3a://payer/dir"))).hasSize(1);
        scripted.reset();
        assertThat(fs.getFileStatus(new Path("s3a://payer/dir/a.bin")).getLen()).isEqualTo(1234);
        assertThat(scripted.requests()).filteredOn(RequestInfo::isHead).hasSize(1);
        assertThat(fromListing(fs)).isZero();
      }
    }
  }
}
