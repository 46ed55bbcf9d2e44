/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.iceberg;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.slipstream.testkit.EmbeddedS3Server;
import dev.slipstream.testkit.RequestInfo;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.iceberg.exceptions.NotFoundException;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.FileInfo;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.io.OutputFile;
import org.apache.iceberg.io.PositionOutputStream;
import org.apache.iceberg.io.RangeReadable;
import org.apache.iceberg.io.SeekableInputStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** SlipstreamFileIO against a real S3 server: what it writes it reads back, with the requests it should make. */
class SlipstreamFileIOTest {
  private static final String BUCKET = "lake";
  private static TestServer s3;
  private SlipstreamFileIO io;

  @BeforeAll
  static void startServer() {
    s3 = new TestServer(BUCKET);
  }

  @AfterAll
  static void stopServer() {
    s3.close();
  }

  @BeforeEach
  void open() {
    io = new SlipstreamFileIO();
    io.initialize(s3.catalogProperties());
  }

  @AfterEach
  void close() {
    io.close();
  }

  @Test
  void whatIsWrittenThroughTheFileIoReadsBackByteForByte() throws IOException {
    for (int size : new int[] {0, 1, 4095, 1 << 20, (3 << 20) + 17}) {
      String path = "s3://" + BUCKET + "/roundtrip/" + size + ".parquet";
      byte[] data = bytes(size, size);
      write(io, path, data);
      assertThat(read(io.newInputFile(path))).as("by path, %d bytes", size).isEqualTo(data);
      assertThat(read(io.newInputFile(path, size))).as("with length, %d bytes", size).isEqualTo(data);
      assertThat(io.newInputFile(path).getLength()).isEqualTo(size);
      assertThat(io.newOutputFile(path).toInputFile()).isInstanceOf(SlipstreamInputFile.class);
    }
  }

  @Test
  void aKnownLengthOpensWithNoHead() throws IOException {
    String path = "s3://" + BUCKET + "/nohead/data.parquet";
    byte[] data = bytes(200_000, 1);
    write(io, path, data);
    s3.shaper.clearRequestLog();

    assertThat(read(io.newInputFile(path, data.length))).isEqualTo(data);

    assertThat(logged("HEAD")).as("%s", s3.shaper.requestLog()).isZero();
    assertThat(logged("GET")).isPositive();
  }

  @Test
  void anUnknownLengthIsAskedForOnceAndOnlyWhenNeeded() throws IOException {
    String path = "s3://" + BUCKET + "/lazy/v1.metadata.json";
    byte[] data = bytes(10_000, 2);
    write(io, path, data);
    s3.shaper.clearRequestLog();

    InputFile file = io.newInputFile(path);
    assertThat(s3.shaper.requestLog().size()).as("no request before one is needed: %s", s3.shaper.requestLog()).isZero();
    assertThat(file.getLength()).isEqualTo(data.length);
    assertThat(logged("HEAD")).isEqualTo(1);
    assertThat(logged("GET")).isZero();
    assertThat(read(file)).isEqualTo(data);
    assertThat(read(file)).isEqualTo(data);
    assertThat(logged("HEAD")).as("the length and ETag are known from then on").isEqualTo(1);
  }

  /**
   * How Iceberg reads a table's metadata.json (a stream by path, read to the end) and a manifest list (a
   * stream by path, then its length for Avro): the first GET says the length, with no HEAD.
   */
  @Test
  void aMetadataFileReadByPathMakesNoHead() throws IOException {
    for (String name : new String[] {"00001-abc.metadata.json", "snap-1-1-abc.avro"}) {
      String path = "s3://" + BUCKET + "/table/metadata/" + name;
      byte[] data = bytes(30_000, 4);
      write(io, path, data);
      s3.shaper.clearRequestLog();

      InputFile file = io.newInputFile(path);
      try (SeekableInputStream in = file.newStream()) {
        assertThat(file.getLength()).isEqualTo(data.length);
        assertThat(in.readAllBytes()).isEqualTo(data);
      }

      assertThat(logged("HEAD")).as("%s: %s", name, s3.shaper.requestLog()).isZero();
      assertThat(logged("GET")).as("%s: %s", name, s3.shaper.requestLog()).isEqualTo(1);
    }
  }

  @Test
  void theStreamIsRangeReadable() throws IOException {
    String path = "s3://" + BUCKET + "/ranges/data.parquet";
    byte[] data = bytes(300_000, 3);
    write(io, path, data);
    try (SeekableInputStream in = io.newInputFile(path, data.length).newStream()) {
      assertThat(in).isInstanceOf(RangeReadable.class);
      RangeReadable ranges = (RangeReadable) in;

      byte[] tail = new byte[8];
      assertThat(ranges.readTail(tail, 0, tail.length)).isEqualTo(8);
      assertThat(tail).isEqualTo(slice(data, data.length - 8, 8));

      byte[] middle = new byte[70_000];
      ranges.readFully(123_456, middle, 0, middle.length);
      assertThat(middle).isEqualTo(slice(data, 123_456, middle.length));
      assertThat(in.getPos()).as("positional reads leave the position").isZero();

      in.seek(299_990);
      byte[] rest = new byte[10];
      assertThat(in.read(rest, 0, 10)).isEqualTo(10);
      assertThat(rest).isEqualTo(slice(data, 299_990, 10));
      assertThat(in.read()).isEqualTo(-1);

      byte[] all = new byte[data.length + 150];
      assertThat(ranges.readTail(all, 100, data.length + 50)).as("a tail longer than the file").isEqualTo(data.length);
      assertThat(slice(all, 100, data.length)).isEqualTo(data);
      assertThatThrownBy(() -> ranges.readFully(data.length - 4, new byte[8], 0, 8)).isInstanceOf(java.io.EOFException.class);
    }
  }

  @Test
  void aMissingFileIsNotFoundAsIcebergExpects() {
    String path = "s3://" + BUCKET + "/missing/nothing.avro";
    assertThat(io.newInputFile(path).exists()).isFalse();
    assertThatThrownBy(() -> io.newInputFile(path).getLength()).isInstanceOf(NotFoundException.class)
        .hasMessageContaining(path);
    assertThatThrownBy(() -> io.newInputFile(path).newStream()).isInstanceOf(NotFoundException.class)
        .hasMessageContaining(path);
    assertThatThrownBy(() -> {
      try (SeekableInputStream in = io.newInputFile(path, 1000).newStream()) {
        in.read();
      }
    }).as("with a length: no HEAD, so the first GET finds it gone").isInstanceOf(NotFoundException.class)
        .hasMessageContaining(path);
  }

  @Test
  void bulkDeletesAndPrefixOperationsGoThroughS3FileIo() throws IOException {
    String prefix = "s3a://" + BUCKET + "/table/data/";
    List<String> paths = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      paths.add(prefix + "part-" + i + ".parquet");
      write(io, paths.get(i), bytes(100 + i, i));
    }
    List<FileInfo> listed = new ArrayList<>();
    io.listPrefix(prefix).forEach(listed::add);
    assertThat(listed).extracting(FileInfo::location).containsExactlyInAnyOrderElementsOf(paths);
    assertThat(listed).extracting(FileInfo::size).containsExactlyInAnyOrder(100L, 101L, 102L, 103L, 104L);

    assertThat(io.newInputFile(paths.get(0)).exists()).isTrue();
    s3.shaper.clearRequestLog();
    io.deleteFiles(paths.subList(0, 2));
    assertThat(s3.shaper.requestLog()).as("one DeleteObjects request").filteredOn(r -> r.method().equals("POST"))
        .extracting(RequestInfo::query).anySatisfy(q -> assertThat(q).contains("delete"));
    assertThat(io.newInputFile(paths.get(0)).exists()).as("forgotten by Slipstream, gone from S3").isFalse();
    assertThat(io.newInputFile(paths.get(2)).exists()).isTrue();

    io.deleteFile(paths.get(2));
    assertThat(io.newInputFile(paths.get(2)).exists()).isFalse();

    io.deletePrefix(prefix);
    assertThat(io.listPrefix(prefix)).isEmpty();
    assertThat(io.newInputFile(paths.get(4)).exists()).isFalse();
  }

  @Test
  void aBadPropertyFailsInitializeNamingIt() {
    Map<String, String> p = s3.catalogProperties();
    p.put("slipstream.prefetch.blocks", "many");
    assertThatThrownBy(() -> new SlipstreamFileIO().initialize(p)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("slipstream.prefetch.blocks='many'")
        .hasMessageNotContaining(EmbeddedS3Server.SECRET_KEY);

    Map<String, String> q = s3.catalogProperties();
    q.put("s3.endpoint", "not a uri");
    assertThatThrownBy(() -> new SlipstreamFileIO().initialize(q)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("s3.endpoint: ");
  }

  @Test
  void onlyS3LocationsAreAccepted() throws IOException {
    assertThatThrownBy(() -> io.newInputFile("gs://lake/x.parquet")).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("gs://lake/x.parquet");
    assertThatThrownBy(() -> io.newOutputFile("file:/tmp/x.parquet")).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("file:/tmp/x.parquet");
    assertThatThrownBy(() -> io.listPrefix("hdfs://nn/lake/")).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("hdfs://nn/lake/");
    String path = "s3n://" + BUCKET + "/schemes/x.avro";
    write(io, "s3://" + BUCKET + "/schemes/x.avro", bytes(10, 9));
    assertThat(read(io.newInputFile(path))).isEqualTo(bytes(10, 9));
    assertThat(read(io.newInputFile("s3a://" + BUCKET + "/schemes/x.avro", 10))).isEqualTo(bytes(10, 9));
  }

  @Test
  void serializedCopiesShareTheClientsTheirJvmKeepsForTheirProperties() throws Exception {
    String path = "s3://" + BUCKET + "/serialized/data.parquet";
    byte[] data = bytes(50_000, 5);
    write(io, path, data);
    SlipstreamFileIO copy = copy(io);
    SlipstreamFileIO another = copy(io);
    assertThat(copy.properties()).isEqualTo(io.properties());
    assertThat(read(copy.newInputFile(path, data.length))).isEqualTo(data);
    assertThat(copy.slipstream()).as("one client per JVM and properties, not one per task")
        .isSameAs(another.slipstream()).isNotSameAs(io.slipstream());

    copy.close();
    assertThatThrownBy(() -> copy.newInputFile(path)).isInstanceOf(IllegalStateException.class);
    assertThat(read(another.newInputFile(path, data.length))).as("closing a copy leaves the shared clients open")
        .isEqualTo(data);
  }

  private static SlipstreamFileIO copy(SlipstreamFileIO io) throws Exception {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
      out.writeObject(io);
    }
    try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(bytes.toByteArray()))) {
      return (SlipstreamFileIO) in.readObject();
    }
  }

  /** Requests of {@code method} since the log was last cleared. */
  private static long logged(String method) {
    return s3.shaper.requestLog().stream().filter(r -> r.method().equals(method)).count();
  }

  private static void write(FileIO io, String path, byte[] data) throws IOException {
    OutputFile file = io.newOutputFile(path);
    try (PositionOutputStream out = file.createOrOverwrite()) {
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

  private static byte[] slice(byte[] data, int from, int length) {
    return java.util.Arrays.copyOfRange(data, from, from + length);
  }
}
