/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.hadoop;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.slipstream.Counter;
import dev.slipstream.testkit.TestData;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.OutputStream;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code open(path)} with no status, as record readers call it, of a file this FileSystem listed moments
 * before: no HEAD (the listing gave the length and version), and S3A's semantics kept — a file changed
 * since is read in its current version, a file deleted since is missing.
 */
@Timeout(180)
class OpenFromListingTest {
  static final String BUCKET = "open-listed";
  static final int FILES = 6;
  @RegisterExtension
  static final ShapedBucket S3 = new ShapedBucket(BUCKET);

  static int size(int i) {
    return 20_000 + i * 41_000;
  }

  @BeforeEach
  void writeFiles() throws IOException {
    try (FileSystem fs = newFileSystem()) {
      for (int i = 0; i < FILES; i++) {
        write(fs, file(i), 100 + i, size(i));
      }
    }
  }

  static Path dir() {
    return new Path("s3a://" + BUCKET + "/dir/");
  }

  static Path file(int i) {
    return new Path("s3a://" + BUCKET + "/dir/part-" + i);
  }

  static void write(FileSystem fs, Path p, long seed, int size) throws IOException {
    try (OutputStream out = fs.create(p, true)) {
      out.write(TestData.bytes(seed, size));
    }
  }

  static SlipstreamS3AFileSystem newFileSystem(String... extra) throws IOException {
    return S3.newFileSystem(extra);
  }

  static long heads() {
    return S3.shaper().requests("HEAD");
  }

  static void assertReads(FileSystem fs, Path p, long seed, int size) throws IOException {
    try (FSDataInputStream in = fs.open(p)) {
      byte[] all = in.readAllBytes();
      assertThat(all.length).as("length of %s", p).isEqualTo(size);
      assertThat(TestData.firstMismatch(seed, 0, all, 0, all.length)).as("first wrong byte of %s", p).isEqualTo(-1);
    }
  }

  @Test
  void openingListedFilesSendsNoHeadAndOneRequestPerFile() throws Exception {
    try (SlipstreamS3AFileSystem fs = newFileSystem()) {
      FileStatus[] listed = fs.listStatus(dir());
      assertThat(listed).hasSize(FILES);
      long headsBefore = heads();
      long requestsBefore = S3.shaper().requests();
      for (FileStatus st : listed) {
        int i = Integer.parseInt(st.getPath().getName().substring(5));
        assertReads(fs, st.getPath(), 100 + i, size(i));
      }
      var stats = fs.getSlipstreamStatistics();
      assertThat(heads() - headsBefore).as("HEADs of the opens").isZero();
      assertThat(stats.get(Counter.HEAD_REQUESTS)).isZero();
      assertThat(stats.get(Counter.OPENS_FROM_LISTING)).isEqualTo(FILES);
      assertThat(stats.get(Counter.GET_REQUESTS)).as("requests of the reads").isEqualTo(FILES);
      assertThat(S3.shaper().requests() - requestsBefore).as("requests on the wire").isEqualTo(FILES);
    }
  }

  @Test
  void aFileOverwrittenElsewhereSinceTheListingIsReadInItsCurrentVersion() throws Exception {
    try (SlipstreamS3AFileSystem fs = newFileSystem(); FileSystem other = newFileSystem()) {
      fs.listStatus(dir());
      write(other, file(2), 999, 77_777); // another client: this FileSystem cannot know
      long headsBefore = heads();
      assertReads(fs, file(2), 999, 77_777);
      assertThat(fs.getSlipstreamStatistics().get(Counter.OPENS_FROM_LISTING_CHANGED)).isEqualTo(1);
      assertThat(heads() - headsBefore).as("one HEAD, once the change was found").isEqualTo(1);
      // a positioned first read finds the change too
      write(other, file(3), 555, 66_666);
      fs.listStatus(dir());
      write(other, file(3), 556, 55_555);
      try (FSDataInputStream in = fs.open(file(3))) {
        byte[] part = new byte[1000];
        in.readFully(40_000, part);
        assertThat(TestData.firstMismatch(556, 40_000, part, 0, part.length)).isEqualTo(-1);
      }
      assertThat(fs.getSlipstreamStatistics().get(Counter.OPENS_FROM_LISTING_CHANGED)).isEqualTo(2);
    }
  }

  @Test
  void aFileWrittenThroughThisFileSystemIsOpenedAfterAHead() throws Exception {
    try (SlipstreamS3AFileSystem fs = newFileSystem()) {
      fs.listStatus(dir());
      write(fs, file(1), 321, 12_345);
      long headsBefore = heads();
      assertReads(fs, file(1), 321, 12_345);
      assertThat(heads() - headsBefore).isEqualTo(1);
      assertThat(fs.getSlipstreamStatistics().get(Counter.OPENS_FROM_LISTING)).isZero();
      // the other listed files are still opened from the listing
      assertReads(fs, file(4), 104, size(4));
      assertThat(fs.getSlipstreamStatistics().get(Counter.OPENS_FROM_LISTING)).isEqualTo(1);
    }
  }

  /**
   * A listing whose request went out before a write through this FileSystem, and whose answer is handed
   * out after it, may name the version the write replaced: it is not remembered for opens. Driven on the
   * wire: the listing's second page is held until the write is done, so its first page, with the file,
   * was answered before the write, and the listing returns after it.
   */
  @Test
  void aListingAnsweredBeforeAWriteThroughThisFileSystemIsNotUsedAfterIt() throws Exception {
    try (SlipstreamS3AFileSystem fs = newFileSystem("fs.s3a.paging.maximum", "2")) {
      S3.shaper().onRequest(r -> r.isGet() && r.query() != null && r.query().contains("continuation-token"), () -> {
        try {
          write(fs, file(0), 777, 33_333);
        } catch (IOException e) {
          throw new java.io.UncheckedIOException(e);
        }
      });
      FileStatus[] listed = fs.listStatus(dir());
      assertThat(listed).hasSize(FILES);
      assertThat(listed[0].getLen()).as("the first page, answered before the write").isEqualTo(size(0));
      long headsBefore = heads();
      assertReads(fs, file(0), 777, 33_333);
      assertThat(fs.getSlipstreamStatistics().get(Counter.OPENS_FROM_LISTING_CHANGED))
          .as("opens of the version the write replaced").isZero();
      assertThat(fs.getSlipstreamStatistics().get(Counter.OPENS_FROM_LISTING)).isZero();
      assertThat(heads() - headsBefore).as("S3A's HEAD, as for a file just written").isEqualTo(1);
      assertReads(fs, file(4), 104, size(4)); // the files no write touched are still opened from the listing
      assertThat(fs.getSlipstreamStatistics().get(Counter.OPENS_FROM_LISTING)).isEqualTo(1);
    }
  }

  @Test
  void aDirectoryDeletedThroughThisFileSystemIsMissingAtOpen() throws Exception {
    try (SlipstreamS3AFileSystem fs = newFileSystem()) {
      fs.listStatus(dir());
      assertThat(fs.delete(dir(), true)).isTrue();
      assertThatThrownBy(() -> fs.open(file(0))).as("S3A's HEAD, as the listing was forgotten")
          .isInstanceOf(FileNotFoundException.class);
      assertThat(fs.getSlipstreamStatistics().get(Counter.OPENS_FROM_LISTING)).isZero();
    }
  }

  @Test
  void aFileDeletedElsewhereSinceTheListingIsMissingAtItsFirstRead() throws Exception {
    try (SlipstreamS3AFileSystem fs = newFileSystem(); FileSystem other = newFileSystem()) {
      fs.listStatus(dir());
      assertThat(other.delete(file(5), false)).isTrue();
      try (FSDataInputStream in = fs.open(file(5))) {
        assertThatThrownBy(in::read).isInstanceOf(FileNotFoundException.class).hasMessageContaining("part-5");
      }
    }
  }

  @Test
  void withListingReuseOffEveryOpenSendsAHead() throws Exception {
    try (SlipstreamS3AFileSystem fs = newFileSystem("fs.slipstream.list.reuse.ttl", "0")) {
      fs.listStatus(dir());
      long headsBefore = heads();
      assertReads(fs, file(0), 100, size(0));
      assertThat(heads() - headsBefore).isEqualTo(1);
      assertThat(fs.getSlipstreamStatistics().get(Counter.OPENS_FROM_LISTING)).isZero();
    }
  }
}
