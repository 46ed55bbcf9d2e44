/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.iceberg;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.slipstream.Slipstream;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.BooleanSupplier;
import org.apache.iceberg.io.FileInfo;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.io.PositionOutputStream;
import org.apache.iceberg.io.SeekableInputStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The clients a JVM shares among deserialized FileIO copies are closed once nothing uses them, so that
 * rotating credentials (a REST catalog vends new ones as they expire; each set is a new pair of clients)
 * leave no clients or caches behind, and no connection pool (a pair has none of its own: its S3 client is
 * S3FileIO's, on Iceberg's shared HTTP client); and never while a copy, a file or a stream of theirs
 * is in use.
 */
class SharedClientsTest {
  private static final String BUCKET = "lake";
  private static final String PATH = "s3://" + BUCKET + "/shared/data.parquet";
  private static final byte[] DATA = bytes(300_000, 7);
  private static TestServer s3;

  @BeforeAll
  static void start() throws IOException {
    s3 = new TestServer(BUCKET);
    SharedClients.JVM.idle(Duration.ZERO); // released pairs close at once: what a rotation leaves is visible
    SlipstreamFileIO io = new SlipstreamFileIO();
    io.initialize(s3.catalogProperties());
    try (PositionOutputStream out = io.newOutputFile(PATH).createOrOverwrite()) {
      out.write(DATA);
    }
    io.close();
  }

  @AfterAll
  static void stop() {
    SharedClients.JVM.idle(SharedClients.IDLE);
    s3.close();
  }

  @Test
  void rotatedCredentialsLeaveNoClientsOrConnectionsBehind() throws Exception {
    // Reads and writes go through S3FileIO's S3 client, whose HTTP client is Iceberg's, one per JVM and HTTP
    // settings (Iceberg 1.10's HttpClientCache): a pair has no connection pool of its own, and the rotations
    // reuse the connections the first one opened.
    List<Map<String, String>> rotations = new ArrayList<>();
    rotations.add(rotate(0, true));
    int afterOne = s3.shaper.openClientConnections();
    for (int i = 1; i < 12; i++) {
      rotations.add(rotate(i, i % 2 == 0));
    }
    assertThat(s3.shaper.openClientConnections()).as("connections after 12 rotations, one pool for all")
        .isLessThanOrEqualTo(afterOne);

    awaitCollected(() -> held(rotations) == 0);
    assertThat(held(rotations)).as("pairs left open of 12 rotations, half closed, half dropped").isZero();
    assertThat(s3.shaper.openClientConnections()).as("no pool left behind by a pair").isLessThanOrEqualTo(afterOne);
  }

  @Test
  void aSharedPairStaysOpenWhileAStreamOfItReads() throws Exception {
    SlipstreamFileIO copy = copy(rotated(100));
    Slipstream client = copy.slipstream();
    byte[] read = new byte[DATA.length];
    try (SeekableInputStream in = copy.newInputFile(PATH, DATA.length).newStream()) {
      readFully(in, read, 0, 1000);
      copy.close();
      SharedClients.JVM.settle();
      assertThat(SharedClients.JVM.holds(copy.properties())).as("the open stream holds the pair").isTrue();
      readFully(in, read, 1000, DATA.length - 1000);
    }
    assertThat(read).isEqualTo(DATA);

    SharedClients.JVM.settle();
    assertThat(SharedClients.JVM.holds(copy.properties())).as("closed with its last stream").isFalse();
    assertThatThrownBy(() -> client.open(PATH)).isInstanceOf(IOException.class).hasMessageContaining("closed");
  }

  @Test
  void aDroppedCopysFilesAndListingsKeepItsPairOpen() throws Exception {
    Map<String, String> fileProperties = rotated(101).properties();
    Map<String, String> listingProperties = rotated(102).properties();
    InputFile file = copy(fileProperties).newInputFile(PATH, DATA.length);
    Iterable<FileInfo> listing = copy(listingProperties).listPrefix("s3://" + BUCKET + "/shared/");

    for (int i = 0; i < 3; i++) {
      System.gc();
      Thread.sleep(100);
      SharedClients.JVM.settle();
    }
    assertThat(SharedClients.JVM.holds(fileProperties)).as("what a file reaches stays open").isTrue();
    assertThat(SharedClients.JVM.holds(listingProperties)).as("what a listing reaches stays open").isTrue();
    assertThat(read(file)).isEqualTo(DATA);
    assertThat(listing).extracting(FileInfo::location).contains(PATH);

    file = null;
    listing = null;
    awaitCollected(() -> held(List.of(fileProperties, listingProperties)) == 0);
    assertThat(held(List.of(fileProperties, listingProperties))).as("closed once nothing reaches them").isZero();
  }

  @Test
  void aReleasedPairServesTheNextCopyOfItsPropertiesUntilIdle() throws Exception {
    SharedClients.JVM.idle(Duration.ofHours(1));
    try {
      SlipstreamFileIO driver = rotated(200);
      SlipstreamFileIO first = copy(driver);
      Slipstream client = first.slipstream();
      first.close();
      SharedClients.JVM.settle();

      SlipstreamFileIO next = copy(driver);
      assertThat(next.slipstream()).as("the next task's copy finds the caches warm").isSameAs(client);
      assertThat(read(next.newInputFile(PATH, DATA.length))).isEqualTo(DATA);
      next.close();

      SharedClients.JVM.idle(Duration.ZERO);
      SlipstreamFileIO last = copy(driver);
      assertThat(last.slipstream()).isSameAs(client);
      last.close(); // a lease taken and ended: the pair closes now, not in an hour
      SharedClients.JVM.settle();
      assertThat(SharedClients.JVM.holds(driver.properties())).isFalse();
    } finally {
      SharedClients.JVM.idle(Duration.ZERO);
    }
  }

  /**
   * One rotation: a catalog's FileIO with new credentials, and a task's copy of it that reads, then is
   * closed or dropped; the rotation's properties.
   */
  private static Map<String, String> rotate(int i, boolean close) throws Exception {
    SlipstreamFileIO copy = copy(rotated(i));
    assertThat(read(copy.newInputFile(PATH, DATA.length))).isEqualTo(DATA);
    assertThat(copy.listPrefix("s3://" + BUCKET + "/shared/")).isNotEmpty();
    if (close) {
      copy.close();
    }
    return copy.properties();
  }

  /**
   * The driver's FileIO after the {@code i}th rotation, closed (its own clients are not shared): only its
   * properties matter. The expiry is a property a REST catalog vends with each set of credentials.
   */
  private static SlipstreamFileIO rotated(int i) {
    Map<String, String> p = s3.catalogProperties();
    p.put("s3.session-token-expires-at-ms", Long.toString(1_900_000_000_000L + i));
    SlipstreamFileIO io = new SlipstreamFileIO();
    io.initialize(p);
    io.close();
    return io;
  }

  /** How many of these property sets have a pair open. */
  private static long held(List<Map<String, String>> properties) {
    return properties.stream().filter(SharedClients.JVM::holds).count();
  }

  /** Collects garbage until {@code done}, for at most a minute. */
  private static void awaitCollected(BooleanSupplier done) throws Exception {
    long deadline = System.nanoTime() + Duration.ofMinutes(1).toNanos();
    while (!done.getAsBoolean() && System.nanoTime() < deadline) {
      System.gc();
      Thread.sleep(100);
      SharedClients.JVM.settle();
    }
  }

  /** A copy as a Spark task deserializes it: only the properties travel. */
  private static SlipstreamFileIO copy(Map<String, String> properties) throws Exception {
    SlipstreamFileIO io = new SlipstreamFileIO();
    io.initialize(properties);
    io.close();
    return copy(io);
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

  private static byte[] read(InputFile file) throws IOException {
    try (SeekableInputStream in = file.newStream()) {
      return in.readAllBytes();
    }
  }

  private static void readFully(SeekableInputStream in, byte[] into, int off, int len) throws IOException {
    int done = 0;
    while (done < len) {
      int n = in.read(into, off + done, len - done);
      assertThat(n).isPositive();
      done += n;
    }
  }

  private static byte[] bytes(int size, long seed) {
    byte[] b = new byte[size];
    new Random(seed).nextBytes(b);
    return b;
  }
}
