/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.hadoop;

import static org.assertj.core.api.Assertions.assertThat;

import dev.slipstream.testkit.ForkedS3Server;
import java.io.File;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.Arrays;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.s3a.S3AFileSystem;
import org.apache.hadoop.fs.s3a.commit.files.SinglePendingCommit;
import org.apache.hadoop.fs.s3a.commit.impl.CommitOperations;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * What S3A's committers complete is seen at once by the FileSystem that completes it, with
 * {@code access.ttl} and {@code list.reuse.ttl} at their defaults: a key read just before is read again
 * as its new version (not from the answer and the memory cache kept for the old one), and a directory a
 * glob kept lists the new file. The uploads go the way the staging committer's do (a pending commit per
 * file, uploaded by {@link CommitOperations} at task commit, completed by it at job commit); the magic
 * committer completes through the same {@code commitOrFail}. Runs on Hadoop 3.4.1 and 3.5.0.
 */
@Timeout(120)
class CommitsThroughWriteHelperTest {
  static final String BUCKET = "commit-test";
  static ForkedS3Server server;
  static FileSystem stock;

  @BeforeAll
  static void setUp() throws Exception {
    server = ForkedS3Server.start(ForkedS3Server.Storage.TRANSIENT);
    server.createBucket(BUCKET);
    Configuration conf = SlipstreamS3AFileSystemTest.conf(server);
    conf.set("fs.s3a.impl", S3AFileSystem.class.getName());
    stock = FileSystem.newInstance(URI.create("s3a://" + BUCKET + "/"), conf);
    for (String dir : List.of("t/part=1", "t/part=2")) {
      write(stock, path(dir + "/data.csv"), "old " + dir + "\n");
    }
  }

  @AfterAll
  static void tearDown() throws IOException {
    if (stock != null) {
      stock.close();
    }
    if (server != null) {
      server.close();
    }
  }

  static Path path(String p) {
    return new Path("s3a://" + BUCKET + "/" + p);
  }

  static void write(FileSystem fs, Path p, String text) throws IOException {
    try (OutputStream out = fs.create(p, true)) {
      out.write(text.getBytes(StandardCharsets.UTF_8));
    }
  }

  static String read(FileSystem fs, Path p) throws IOException {
    try (FSDataInputStream in = fs.open(p)) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  static List<String> names(FileStatus[] listed) {
    return Arrays.stream(listed).map(s -> s.getPath().getName()).sorted().toList();
  }

  /** Uploads {@code text} as a pending commit to {@code dest} and completes it, as a committer does. */
  static void commit(S3AFileSystem fs, Path dest, String text, File tmp) throws IOException {
    File local = Files.writeString(tmp.toPath().resolve(dest.getName() + "-" + System.nanoTime()), text).toFile();
    CommitOperations commits = new CommitOperations(fs);
    SinglePendingCommit pending = commits.uploadFileToPendingCommit(local, dest, null, 5 << 20, () -> { });
    commits.commitOrFail(pending);
  }

  @Test
  void aCommittedUploadIsReadAndListedAtOnceByTheFileSystemThatCommittedIt(@TempDir File tmp) throws Exception {
    Path overwritten = path("t/part=1/data.csv");
    Path added = path("t/part=1/added.csv");
    Configuration conf = SlipstreamS3AFileSystemTest.conf(server);
    try (SlipstreamS3AFileSystem fs =
        (SlipstreamS3AFileSystem) FileSystem.newInstance(URI.create("s3a://" + BUCKET + "/"), conf)) {
      // The answer for the old version, and its bytes in the memory cache.
      assertThat(read(fs, overwritten)).isEqualTo("old t/part=1\n");
      // Kept: the directories as they are before the commit.
      assertThat(fs.globStatus(new Path("/t/part=*"))).hasSize(2);

      commit(fs, overwritten, "new bytes, longer than the old\n", tmp);
      commit(fs, added, "added\n", tmp);

      SoftAssertions.assertSoftly(soft -> {
        try {
          soft.assertThat(read(fs, overwritten)).as("reopened by path").isEqualTo("new bytes, longer than the old\n");
          soft.assertThat(names(fs.listStatus(path("t/part=1")))).as("listed after the glob")
              .containsExactly("added.csv", "data.csv");
          soft.assertThat(read(fs, added)).isEqualTo("added\n");
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      });
    } finally {
      stock.delete(added, false);
      write(stock, overwritten, "old t/part=1\n");
    }
  }
}
