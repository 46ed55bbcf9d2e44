/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.iceberg;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.iceberg.exceptions.NotFoundException;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.io.PositionOutputStream;
import org.apache.iceberg.io.SeekableInputStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A delete through the FileIO leaves no answer standing for what it deleted (docs/architecture.md,
 * rule 8): an open by path afterwards asks S3 and finds the object gone, instead of trusting what S3 said before the delete. The
 * client keeps blocks in memory here, so a standing answer would serve the deleted bytes.
 */
class SlipstreamFileIODeletesTest {
  private static final String BUCKET = "lake";
  /** A bucket of its own, emptied whole by one test. */
  private static final String WHOLE = "whole";
  private static TestServer s3;
  private SlipstreamFileIO io;

  @BeforeAll
  static void startServer() {
    s3 = new TestServer(BUCKET, WHOLE);
  }

  @AfterAll
  static void stopServer() {
    s3.close();
  }

  @BeforeEach
  void open() {
    Map<String, String> p = s3.catalogProperties();
    p.put("slipstream.cache.memory", "true");
    io = new SlipstreamFileIO();
    io.initialize(p);
  }

  @AfterEach
  void close() {
    io.close();
  }

  /**
   * S3FileIO deletes a batch only when it is full or the paths run out: a read of the first path while the
   * second is handed over comes between Slipstream's first forgetting and the delete itself.
   */
  @Test
  void aReadAnsweredWhileTheBatchFillsDoesNotOutliveTheBulkDelete() throws IOException {
    String first = "s3://" + BUCKET + "/bulk/first.parquet";
    String second = "s3://" + BUCKET + "/bulk/second.parquet";
    byte[] data = bytes(20_000, 1);
    write(first, data);
    write(second, bytes(100, 2));
    assertThat(read(io.newInputFile(first))).isEqualTo(data);

    List<String> paths = List.of(first, second);
    io.deleteFiles(() -> new Iterator<>() {
      private int next;

      @Override
      public boolean hasNext() {
        return next < paths.size();
      }

      @Override
      public String next() {
        if (next == 1) {
          try {
            // first is handed over and forgotten, not yet deleted: S3 answers this read
            assertThat(read(io.newInputFile(first))).isEqualTo(data);
          } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
          }
        }
        return paths.get(next++);
      }
    });

    assertThat(io.newInputFile(second).exists()).isFalse();
    assertThat(io.newInputFile(first).exists()).as("no answer from before the delete stands").isFalse();
    assertThatThrownBy(() -> read(io.newInputFile(first))).as("nor are its bytes served")
        .isInstanceOf(NotFoundException.class).hasMessageContaining(first);
  }

  /**
   * Iceberg's expiry hands {@code deleteFiles} every file it removes, lazily, a million at times: each path
   * is forgotten once, after S3FileIO deleted it, and no more than a chunk of paths
   * ({@link SlipstreamFileIO#BATCHES_PER_CHUNK} of S3FileIO's batches) waits for that at any moment. Each
   * forget is a write the client counts ({@code writes().generation()}), so the count says how many there were
   * and when.
   */
  @Test
  void aBulkDeleteForgetsEachPathOnceAfterItIsDeletedHoldingAChunkAtMost() throws IOException {
    Map<String, String> p = s3.catalogProperties();
    p.put("s3.delete.batch-size", "10");
    int chunk = 10 * SlipstreamFileIO.BATCHES_PER_CHUNK;
    int paths = chunk * 5 / 2;
    String first = "s3://" + BUCKET + "/expired/f-0000.parquet";
    try (SlipstreamFileIO small = new SlipstreamFileIO()) {
      small.initialize(p);
      try (PositionOutputStream out = small.newOutputFile(first).createOrOverwrite()) {
        out.write(bytes(1_000, 7));
      }
      assertThat(small.newInputFile(first).exists()).isTrue(); // S3's answer stands
      long start = small.slipstream().writes().generation();
      List<Long> held = new java.util.ArrayList<>();
      small.deleteFiles(() -> new Iterator<>() {
        private int next;

        @Override
        public boolean hasNext() {
          return next < paths;
        }

        @Override
        public String next() {
          long forgotten = small.slipstream().writes().generation() - start;
          held.add(next - forgotten);
          if (next == chunk + 1) {
            assertThat(small.newInputFile(first).exists()).as("the first chunk deleted and forgotten").isFalse();
          }
          return String.format("s3://%s/expired/f-%04d.parquet", BUCKET, next++);
        }
      });
      assertThat(small.slipstream().writes().generation() - start).as("forgets: one a path").isEqualTo(paths);
      assertThat(held).as("paths handed over and not yet deleted and forgotten").allMatch(h -> h <= chunk);
      assertThat(small.newInputFile(first).exists()).isFalse();
    }
  }

  @Test
  void aPathThatIsNoS3LocationFailsTheBulkDeleteAfterThePathsBeforeIt() throws IOException {
    String before = "s3://" + BUCKET + "/bad/before.parquet";
    write(before, bytes(100, 8));
    assertThat(io.newInputFile(before).exists()).isTrue();
    assertThatThrownBy(() -> io.deleteFiles(List.of(before, "hdfs://nn/x.parquet", before + ".never")))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("hdfs://nn/x.parquet");
    assertThat(io.newInputFile(before).exists()).as("deleted, and its answer forgotten").isFalse();
  }

  @Test
  void deletingAWholeBucketForgetsEveryAnswerInIt() throws IOException {
    String path = "s3://" + WHOLE + "/table/data/part-0.parquet";
    String top = "s3://" + WHOLE + "/top.avro";
    byte[] data = bytes(30_000, 3);
    write(path, data);
    write(top, bytes(10, 4));
    assertThat(read(io.newInputFile(path))).isEqualTo(data);
    assertThat(io.newInputFile(top).exists()).isTrue();

    io.deletePrefix("s3://" + WHOLE + "/");

    assertThat(io.listPrefix("s3://" + WHOLE + "/")).as("S3FileIO deleted every object").isEmpty();
    assertThat(io.newInputFile(top).exists()).as("no answer from before the delete stands").isFalse();
    assertThat(io.newInputFile(path).exists()).isFalse();
    assertThatThrownBy(() -> read(io.newInputFile(path))).as("nor are its bytes served")
        .isInstanceOf(NotFoundException.class).hasMessageContaining(path);
  }

  @Test
  void deletingAPrefixForgetsTheAnswersUnderItOnly() throws IOException {
    String under = "s3://" + BUCKET + "/prefix/in/data.parquet";
    String beside = "s3://" + BUCKET + "/prefix/out/data.parquet";
    write(under, bytes(1_000, 5));
    write(beside, bytes(1_000, 6));
    assertThat(io.newInputFile(under).exists()).isTrue();
    assertThat(io.newInputFile(beside).exists()).isTrue();

    io.deletePrefix("s3a://" + BUCKET + "/prefix/in/");

    assertThat(io.newInputFile(under).exists()).isFalse();
    s3.shaper.clearRequestLog();
    assertThat(io.newInputFile(beside).exists()).isTrue();
    assertThat(s3.shaper.requestLog()).as("the answer beside the prefix still stands: no request").isEmpty();
  }

  private void write(String path, byte[] data) throws IOException {
    try (PositionOutputStream out = io.newOutputFile(path).createOrOverwrite()) {
      out.write(data);
    }
  }

  private static byte[] read(InputFile file) throws IOException {
    try (SeekableInputStream in = file.newStream()) {
      return in.readAllBytes();
    }
  }

  private static byte[] bytes(int size, long seed) {
    byte[] b = new byte[size];
    new Random(seed).nextBytes(b);
    return b;
  }
}
