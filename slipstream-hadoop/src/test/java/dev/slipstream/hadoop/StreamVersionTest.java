/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.hadoop;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.slipstream.Counter;
import dev.slipstream.ObjectChangedException;
import dev.slipstream.OpenOptions;
import dev.slipstream.S3Location;
import dev.slipstream.SlipstreamInputStream;
import dev.slipstream.testkit.TestData;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FileRange;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * One stream, one version: a stream opened with a version it has not yet had confirmed (a listing's, or
 * one this client last saw) either reads that version whole, or finds it changed at its first read and
 * reads the current one whole — never bytes of both, whichever read API and however many threads. And
 * S3's answers stand for {@code access.ttl} in the client that got them (docs/architecture.md, rule 8):
 * a re-read by path is a memory copy, a write through the FileSystem forgets, and a block fetched ahead is served only while
 * its own GET's answer stands.
 */
@Timeout(180)
class StreamVersionTest {
  static final String BUCKET = "versions";
  static final int MIB = 1 << 20;
  @RegisterExtension
  static final ShapedBucket S3 = new ShapedBucket(BUCKET);

  static SlipstreamS3AFileSystem newFileSystem(String... extra) throws IOException {
    return S3.newFileSystem(extra);
  }

  static Path path(String name) {
    return new Path("s3a://" + BUCKET + "/" + name);
  }

  /** Writes through a FileSystem of its own: another client, whose writes the reader's client does not hear of. */
  static void writeElsewhere(Path p, long seed, int size) throws IOException {
    try (FileSystem other = newFileSystem(); OutputStream out = other.create(p, true)) {
      out.write(TestData.bytes(seed, size));
    }
  }

  static void deleteElsewhere(Path p) throws IOException {
    try (FileSystem other = newFileSystem()) {
      other.delete(p, false);
    }
  }

  /** The seed whose bytes {@code got} (read at {@code pos}) are: {@code a}, {@code b}, or -1 for neither. */
  static long versionOf(byte[] got, long pos, long a, long b) {
    if (TestData.firstMismatch(a, pos, got, 0, got.length) == -1) {
      return a;
    }
    return TestData.firstMismatch(b, pos, got, 0, got.length) == -1 ? b : -1;
  }

  /**
   * Hole 1: thread B's first read finds the file changed and opens it again; meanwhile thread C reads a
   * block the old stream holds. C must not return the old version while B returns the new one.
   */
  @Test
  void concurrentPositionalReadersNeverGetTwoVersions() throws Exception {
    Path p = path("race/data.bin");
    writeElsewhere(p, 1, 8 * MIB);
    try (SlipstreamS3AFileSystem fs = newFileSystem()) {
      FileStatus v1 = fs.getFileStatus(p);
      S3Location location = new S3Location(BUCKET, "race/data.bin");
      String etag = ((org.apache.hadoop.fs.EtagSource) v1).getEtag();
      SlipstreamInputStream old = fs.slipstream().open(location, OpenOptions.known(8L * MIB, etag));
      // The stream holds block 0 of version 1, as a read of many blocks whose last GET found the file
      // changed leaves it: fetched by its own GETs, servable with no request.
      old.readFully(0, new byte[MIB]);
      writeElsewhere(p, 2, 8 * MIB);
      CountDownLatch reopening = new CountDownLatch(1);
      CountDownLatch proceed = new CountDownLatch(1);
      SlipstreamFSInputStream stream = new SlipstreamFSInputStream(old, () -> {
        reopening.countDown();
        try {
          proceed.await(60, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
        return fs.slipstream().open(location, OpenOptions.NONE.withFromStore(false));
      }, null, MergedRanges.defaults());
      try {
        // B: block 7 is in no cache; its GET (If-Match version 1) is refused, and B opens the file again.
        byte[] bGot = new byte[1000];
        CompletableFuture<Void> b = CompletableFuture.runAsync(() -> {
          try {
            stream.readFully(7L * MIB + 10, bGot, 0, bGot.length);
          } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
          }
        });
        assertThat(reopening.await(60, TimeUnit.SECONDS)).as("B reopens the changed file").isTrue();
        // C: block 0, which the old stream serves from this client's memory.
        byte[] cGot = new byte[1000];
        Thread[] cThread = new Thread[1];
        CompletableFuture<Throwable> c = new CompletableFuture<>();
        cThread[0] = new Thread(() -> {
          try {
            stream.readFully(10, cGot, 0, cGot.length);
            c.complete(null);
          } catch (Throwable t) {
            c.complete(t);
          }
        });
        cThread[0].start();
        // Let C go as far as it can while B is reopening: done, or waiting for B's reopen to end.
        while (!c.isDone() && cThread[0].getState() != Thread.State.BLOCKED) {
          Thread.sleep(5);
        }
        proceed.countDown();
        b.get(60, TimeUnit.SECONDS);
        Throwable cFailure = c.get(60, TimeUnit.SECONDS);
        assertThat(versionOf(bGot, 7L * MIB + 10, 1, 2)).as("B reads the file as it is now").isEqualTo(2);
        if (cFailure == null) {
          assertThat(versionOf(cGot, 10, 1, 2)).as("C, on the stream B read version 2 from").isEqualTo(2);
        } else {
          assertThat(cFailure).isInstanceOf(ObjectChangedException.class);
        }
      } finally {
        proceed.countDown();
        stream.close();
      }
    }
  }

  static List<FileRange> ranges(long... offsets) {
    return java.util.Arrays.stream(offsets).mapToObj(o -> FileRange.createFileRange(o, 1000)).toList();
  }

  static byte[] data(FileRange r) throws Exception {
    ByteBuffer b = r.getData().get(60, TimeUnit.SECONDS);
    byte[] out = new byte[b.remaining()];
    b.get(out);
    return out;
  }

  /** Hole 2: a first read that is vectored opens a file changed since its listing again, as any first read does. */
  @Test
  void aVectoredFirstReadOfAFileChangedSinceItsListingReadsTheNewVersion() throws Exception {
    Path p = path("vectored-new/data.bin");
    writeElsewhere(p, 3, 3 * MIB);
    try (SlipstreamS3AFileSystem fs = newFileSystem()) {
      fs.listStatus(p.getParent()); // open(path) takes the version from here, with no HEAD
      writeElsewhere(p, 4, 3 * MIB);
      try (FSDataInputStream in = fs.open(p)) {
        List<FileRange> ranges = ranges(100, 2 * MIB);
        in.readVectored(ranges, ByteBuffer::allocate);
        assertThat(versionOf(data(ranges.get(0)), 100, 3, 4)).isEqualTo(4);
        assertThat(versionOf(data(ranges.get(1)), 2 * MIB, 3, 4)).isEqualTo(4);
      }
      assertThat(fs.getSlipstreamStatistics().get(Counter.OPENS_FROM_LISTING_CHANGED)).isEqualTo(1);
    }
  }

  /**
   * Hole 2: a vectored read that returned the listed version settles it; a later read that finds the
   * file changed fails, instead of reading the new version into the same stream. With an empty range
   * first too: the version is settled on the first range with bytes to read.
   */
  @ParameterizedTest(name = "empty first range: {0}")
  @ValueSource(booleans = {false, true})
  void aVectoredReadSettlesTheVersionSoALaterChangeFailsTheStream(boolean emptyFirst) throws Exception {
    Path p = path("vectored-settled-" + emptyFirst + "/data.bin");
    writeElsewhere(p, 5, 8 * MIB);
    try (SlipstreamS3AFileSystem fs = newFileSystem()) {
      fs.listStatus(p.getParent());
      try (FSDataInputStream in = fs.open(p)) {
        List<FileRange> ranges = new java.util.ArrayList<>();
        if (emptyFirst) {
          ranges.add(FileRange.createFileRange(0, 0));
        }
        ranges.addAll(ranges(100));
        in.readVectored(ranges, ByteBuffer::allocate);
        assertThat(versionOf(data(ranges.get(ranges.size() - 1)), 100, 5, 6)).isEqualTo(5);
        writeElsewhere(p, 6, 8 * MIB);
        byte[] later = new byte[1000];
        assertThatThrownBy(() -> in.readFully(7L * MIB + 500, later, 0, later.length))
            .isInstanceOf(ObjectChangedException.class);
      }
    }
  }

  /** Rule 8: within access.ttl, a re-read by path makes no request at all: no HEAD, no GET. */
  @Test
  void aReReadByPathWithinTheTtlIsServedWithNoRequest() throws Exception {
    Path p = path("reread/data.bin");
    writeElsewhere(p, 7, 3 * MIB);
    try (SlipstreamS3AFileSystem fs = newFileSystem()) {
      readWhole(fs, p, 7, 3 * MIB);
      long before = S3.shaper().requests();
      readWhole(fs, p, 7, 3 * MIB);
      assertThat(S3.shaper().requests() - before).as("requests of the re-read").isZero();
      assertThat(fs.getSlipstreamStatistics().get(Counter.OPENS_FROM_ANSWER)).isEqualTo(1);
    }
  }

  /** {@code access.ttl=0}: every open asks S3 before a cached byte is served. */
  @Test
  void withNoTtlEveryOpenAsks() throws Exception {
    Path p = path("reread-ask/data.bin");
    writeElsewhere(p, 8, 3 * MIB);
    try (SlipstreamS3AFileSystem fs = newFileSystem("fs.slipstream.access.ttl", "0")) {
      readWhole(fs, p, 8, 3 * MIB);
      long before = S3.shaper().requests();
      readWhole(fs, p, 8, 3 * MIB);
      assertThat(S3.shaper().requests() - before).as("requests of the re-read").isPositive();
      assertThat(fs.getSlipstreamStatistics().get(Counter.OPENS_FROM_ANSWER)).isZero();
    }
  }

  /** A write through the FileSystem forgets S3's answers for its path: the re-read is of the new version. */
  @Test
  void aWriteThroughTheFileSystemForgetsTheAnswer() throws Exception {
    Path p = path("rewrite/data.bin");
    writeElsewhere(p, 9, 3 * MIB);
    try (SlipstreamS3AFileSystem fs = newFileSystem()) {
      readWhole(fs, p, 9, 3 * MIB);
      try (OutputStream out = fs.create(p, true)) {
        out.write(TestData.bytes(10, 2 * MIB));
      }
      readWhole(fs, p, 10, 2 * MIB);
    }
  }

  /**
   * Hole 3: a block fetched ahead is S3's answer of its own GET. Once that answer no longer stands
   * (access.ttl passed), the block is not served: a file overwritten since is read in its new version,
   * a file deleted since is missing.
   */
  @Test
  void aBlockFetchedAheadIsServedOnlyWhileItsAnswerStands() throws Exception {
    writeElsewhere(path("ahead/a"), 11, 100_000);
    writeElsewhere(path("ahead/b"), 12, 100_000);
    writeElsewhere(path("ahead/c"), 13, 100_000);
    try (SlipstreamS3AFileSystem fs = newFileSystem("fs.slipstream.access.ttl", "1s")) {
      FileStatus[] listed = fs.listStatus(path("ahead"));
      fs.readingInOrder(List.of(listed));
      Thread.sleep(2_000); // the fetches' answers no longer stand
      writeElsewhere(path("ahead/b"), 14, 100_000);
      deleteElsewhere(path("ahead/c"));
      readWhole(fs, path("ahead/a"), 11, 100_000);
      readWhole(fs, path("ahead/b"), 14, 100_000);
      assertThatThrownBy(() -> readWhole(fs, path("ahead/c"), 13, 100_000))
          .isInstanceOf(FileNotFoundException.class);
      assertThat(fs.getSlipstreamStatistics().get(Counter.OPEN_AHEAD_USED)).as("blocks served").isZero();
    }
  }

  static void readWhole(FileSystem fs, Path p, long seed, int size) throws IOException {
    try (FSDataInputStream in = fs.open(p)) {
      byte[] all = in.readAllBytes();
      assertThat(all.length).as("length of %s", p).isEqualTo(size);
      assertThat(TestData.firstMismatch(seed, 0, all, 0, all.length)).as("first wrong byte of %s", p).isEqualTo(-1);
    }
  }
}
