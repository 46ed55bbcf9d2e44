/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.hadoop;

import static org.assertj.core.api.Assertions.assertThat;

import dev.slipstream.testkit.ForkedS3Server;
import dev.slipstream.testkit.LinkProfile;
import dev.slipstream.testkit.LinkShaper;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.BulkDelete;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.MultipartUploader;
import org.apache.hadoop.fs.PartHandle;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.UploadHandle;
import org.apache.hadoop.fs.s3a.S3AFileSystem;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * A listing kept for later calls (a glob's, see {@link ListingReuse}) never answers for a state older
 * than the last write through the same FileSystem: every kind of write, and a write that finishes while
 * the listing is under way. Checked against stock S3A on the same s3proxy bucket.
 */
@Timeout(300)
class ListingsAfterWritesTest {
  static final String BUCKET = "writes-test";
  /** Directories {@code g/d=000} on, 3 files each: 1,200 keys, two LIST pages. */
  static final int DIRS = 400;
  static ForkedS3Server server;
  static LinkShaper shaper;
  static S3Client s3;
  static FileSystem stock;

  @BeforeAll
  static void setUp() throws Exception {
    server = ForkedS3Server.start(ForkedS3Server.Storage.TRANSIENT);
    server.createBucket(BUCKET);
    shaper = LinkShaper.start(server.endpoint(), LinkProfile.LOOPBACK, 7);
    s3 = ListingTest.uploadClient(server.endpoint());
    for (int d = 0; d < DIRS; d++) {
      for (int f = 0; f < 3; f++) {
        put(String.format("g/d=%03d/part-%d.csv", d, f));
      }
    }
    stock = FileSystem.newInstance(URI.create("s3a://" + BUCKET + "/"),
        ListingTest.conf(server.endpoint(), S3AFileSystem.class.getName()));
  }

  @AfterAll
  static void tearDown() {
    for (AutoCloseable c : new AutoCloseable[] {stock, s3, shaper, server}) {
      if (c != null) {
        try {
          c.close();
        } catch (Exception e) {
          // best effort
        }
      }
    }
  }

  static void put(String key) {
    s3.putObject(r -> r.bucket(BUCKET).key(key), RequestBody.fromString("x," + key + "\n"));
  }

  static Path path(String p) {
    return new Path("s3a://" + BUCKET + "/" + p);
  }

  /** A new Slipstream FileSystem through the shaper, listing in one key range (pages one after another). */
  static SlipstreamS3AFileSystem fresh() throws IOException {
    Configuration conf = ListingTest.conf(shaper.endpoint(), SlipstreamS3AFileSystem.class.getName());
    conf.set("fs.slipstream.list.parallelism", "1");
    return (SlipstreamS3AFileSystem) FileSystem.newInstance(URI.create("s3a://" + BUCKET + "/"), conf);
  }

  /** Slipstream's listing of {@code dir}, which must be stock S3A's. */
  static List<String> listedAlike(FileSystem fs, String dir) throws IOException {
    List<String> got = GlobListingTest.describe(fs.listStatus(path(dir)));
    assertThat(got).as(dir).isEqualTo(GlobListingTest.describe(stock.listStatus(path(dir))));
    return got;
  }

  @Test
  void aWriteWhileAGlobListsIsNotAnsweredFromThatListing() throws Exception {
    String gone = "g/d=000/part-0.csv";
    AtomicBoolean deleted = new AtomicBoolean();
    try (SlipstreamS3AFileSystem fs = fresh()) {
      // The glob's second page is held until the delete is done: the first page saw the file.
      shaper.onRequest(r -> r.isGet() && r.query() != null && r.query().contains("continuation-token"), () -> {
        try {
          deleted.set(fs.delete(path(gone), false));
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      });
      assertThat(fs.globStatus(new Path("/g/d=*"))).hasSize(DIRS);
      assertThat(deleted).isTrue();
      assertThat(listedAlike(fs, "g/d=000")).noneMatch(s -> s.contains("part-0.csv"));
    } finally {
      put(gone);
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"create", "createNonRecursive", "createFile"})
  void aCreatedFileIsListedOnceItsStreamIsClosed(String call) throws Exception {
    Path file = path("g/d=001/new.csv");
    try (SlipstreamS3AFileSystem fs = fresh()) {
      FSDataOutputStream out = switch (call) {
        case "create" -> fs.create(file, true);
        case "createNonRecursive" -> fs.createNonRecursive(file, true, 4096, (short) 1, 1 << 20, null);
        default -> fs.createFile(file).overwrite(true).build();
      };
      out.write("new\n".getBytes(StandardCharsets.UTF_8));
      fs.globStatus(new Path("/g/d=00*")); // kept: the directories as they are before the file exists
      out.close();
      assertThat(listedAlike(fs, "g/d=001")).anyMatch(s -> s.contains("new.csv"));
    } finally {
      stock.delete(file, false);
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"copyFromLocalFile", "moveFromLocalFile"})
  void aFileCopiedFromLocalIsListed(String call, @TempDir java.nio.file.Path tmp) throws Exception {
    Path file = path("g/d=002/" + call + ".csv");
    Path local = new Path(Files.writeString(tmp.resolve("local.csv"), "local\n").toUri());
    try (SlipstreamS3AFileSystem fs = fresh()) {
      fs.globStatus(new Path("/g/d=00*"));
      if (call.equals("copyFromLocalFile")) {
        fs.copyFromLocalFile(local, file);
      } else {
        fs.moveFromLocalFile(local, file);
      }
      assertThat(listedAlike(fs, "g/d=002")).anyMatch(s -> s.contains(call + ".csv"));
    } finally {
      stock.delete(file, false);
    }
  }

  @Test
  void aBulkDeleteIsNotListedAfter() throws Exception {
    String gone = "g/d=003/part-1.csv";
    try (SlipstreamS3AFileSystem fs = fresh()) {
      fs.globStatus(new Path("/g/d=00*"));
      try (BulkDelete bulk = fs.createBulkDelete(path("g/d=003"))) {
        assertThat(bulk.bulkDelete(List.of(path(gone)))).isEmpty();
      }
      assertThat(listedAlike(fs, "g/d=003")).noneMatch(s -> s.contains("part-1.csv"));
    } finally {
      put(gone);
    }
  }

  @Test
  void aMultipartUploadIsListedOnceCompleted() throws Exception {
    Path file = path("g/d=004/uploaded.csv");
    byte[] body = "uploaded\n".getBytes(StandardCharsets.UTF_8);
    try (SlipstreamS3AFileSystem fs = fresh()) {
      fs.globStatus(new Path("/g/d=00*"));
      FileSystem plain = fs;
      try (MultipartUploader mpu = (MultipartUploader) plain.createMultipartUploader(path("g/d=004")).build()) {
        UploadHandle upload = mpu.startUpload(file).get();
        PartHandle part = mpu.putPart(upload, 1, true, file, new ByteArrayInputStream(body), body.length).get();
        mpu.complete(upload, file, Map.of(1, part)).get();
      }
      assertThat(listedAlike(fs, "g/d=004")).anyMatch(s -> s.contains("uploaded.csv"));
    } finally {
      stock.delete(file, false);
    }
  }
}
