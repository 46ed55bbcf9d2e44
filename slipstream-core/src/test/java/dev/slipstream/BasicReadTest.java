/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.slipstream.testkit.S3ServerExtension;
import dev.slipstream.testkit.TestData;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.AccessDeniedException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

@Timeout(120)
class BasicReadTest {
  @RegisterExtension static final S3ServerExtension S3 = new S3ServerExtension();
  static final int BLOCK = 64 * 1024;
  static Slipstream client;

  @BeforeAll
  static void setUp() {
    S3.server().createBucket("bkt");
    client = Slipstream.builder()
        .config(TestClients.config(S3.server()).set("block.size", "64K").set("memory.max", "4M").build())
        .isolatedResources()
        .build();
  }

  @AfterAll
  static void tearDown() {
    client.close();
  }

  @Test
  void readsWholeObjectAcrossBlocks() throws IOException {
    int size = BLOCK * 5 + 123;
    S3.server().putGenerated("bkt", "whole", 1, size);
    try (SlipstreamInputStream in = client.open("s3://bkt/whole")) {
      assertThat(in.length()).isEqualTo(size);
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      in.transferTo(out);
      assertThat(out.toByteArray()).isEqualTo(TestData.bytes(1, size));
      assertThat(in.read()).isEqualTo(-1);
      assertThat(in.statistics().get(Counter.HEAD_REQUESTS)).isEqualTo(1);
      assertThat(in.statistics().get(Counter.BYTES_READ)).isEqualTo(size);
      assertThat(in.statistics().get(Counter.GET_REQUESTS)).isEqualTo(6);
    }
    assertThat(client.memoryInUse()).isZero();
  }

  @Test
  void knownLengthAndEtagMakeNoHead() throws IOException {
    S3.server().putGenerated("bkt", "known", 2, 1000);
    String etag = S3.server().etag("bkt", "known");
    try (SlipstreamInputStream in = client.open(S3Location.parse("s3://bkt/known"), OpenOptions.known(1000, etag))) {
      assertThat(in.readAllBytes()).isEqualTo(TestData.bytes(2, 1000));
      assertThat(in.statistics().get(Counter.HEAD_REQUESTS)).isZero();
      assertThat(in.statistics().get(Counter.GET_REQUESTS)).isEqualTo(1);
    }
  }

  /** Rule 5: a read from the start needs no HEAD; the first block's GET says the length and version. */
  @Test
  void aSequentialOpenWithNoLengthLearnsItFromItsFirstGetNotAHead() throws IOException {
    for (int size : new int[] {1, 1000, BLOCK - 1, BLOCK, BLOCK + 1, BLOCK * 5 + 123}) {
      S3.server().putGenerated("bkt", "seq-" + size, 5, size);
      try (SlipstreamInputStream in = client.open(S3Location.parse("s3://bkt/seq-" + size),
          OpenOptions.NONE.withPolicy(ReadPolicy.SEQUENTIAL))) {
        assertThat(in.length()).as("%d bytes", size).isEqualTo(size);
        assertThat(in.etag().replace("\"", "")).isEqualTo(S3.server().etag("bkt", "seq-" + size).replace("\"", ""));
        assertThat(in.readAllBytes()).isEqualTo(TestData.bytes(5, size));
        assertThat(in.statistics().get(Counter.HEAD_REQUESTS)).as("%d bytes", size).isZero();
        assertThat(in.statistics().get(Counter.GET_REQUESTS)).as("one GET a block, the first one the open's")
            .isEqualTo((size + BLOCK - 1) / BLOCK);
        assertThat(in.statistics().get(Counter.BYTES_FETCHED)).isEqualTo(size);
      }
    }
    assertThat(client.memoryInUse()).isZero();
  }

  /**
   * With blocks larger than the first GET's 1 MiB: an object within it comes whole with the open; a larger
   * one pays that GET in place of a HEAD and fetches its first block as any other.
   */
  @Test
  void aSequentialOpenWithNoLengthAsksAtMostOneMebibyteFirst() throws IOException {
    int mib = Slipstream.FIRST_GET_BYTES;
    try (Slipstream large = Slipstream.builder()
        .config(TestClients.config(S3.server()).set("block.size", "2M").set("memory.max", "16M").build())
        .isolatedResources().build()) {
      for (int size : new int[] {mib - 1000, mib, 3 * mib + 5}) {
        S3.server().putGenerated("bkt", "seq-large-" + size, 6, size);
        try (SlipstreamInputStream in = large.open(S3Location.parse("s3://bkt/seq-large-" + size),
            OpenOptions.NONE.withPolicy(ReadPolicy.SEQUENTIAL))) {
          assertThat(in.length()).isEqualTo(size);
          assertThat(in.readAllBytes()).isEqualTo(TestData.bytes(6, size));
          ReadStatistics s = in.statistics();
          assertThat(s.get(Counter.HEAD_REQUESTS)).as("%d bytes", size).isZero();
          long blocks = (size + 2L * mib - 1) / (2L * mib);
          boolean whole = size <= mib;
          assertThat(s.get(Counter.GET_REQUESTS)).as("%d bytes: GETs", size).isEqualTo(whole ? 1 : 1 + blocks);
          assertThat(s.get(Counter.BYTES_FETCHED)).as("%d bytes: fetched", size).isEqualTo(whole ? size : size + mib);
        }
      }
      assertThat(large.memoryInUse()).isZero();
    }
  }

  @Test
  void aSequentialOpenWithNoLengthOfAnEmptyOrMissingObject() throws IOException {
    S3.server().putObject("bkt", "seq-empty", new byte[0]);
    try (SlipstreamInputStream in = client.open(S3Location.parse("s3://bkt/seq-empty"),
        OpenOptions.NONE.withPolicy(ReadPolicy.SEQUENTIAL))) {
      assertThat(in.length()).isZero();
      assertThat(in.read()).isEqualTo(-1);
      assertThat(in.statistics().get(Counter.HEAD_REQUESTS)).as("no byte 0 to GET: a HEAD says the length")
          .isLessThanOrEqualTo(1);
    }
    assertThatThrownBy(() -> client.open(S3Location.parse("s3://bkt/seq-missing"),
        OpenOptions.NONE.withPolicy(ReadPolicy.SEQUENTIAL))).isInstanceOf(java.io.FileNotFoundException.class)
        .hasMessageContaining("s3://bkt/seq-missing");
  }

  @Test
  void emptyObject() throws IOException {
    S3.server().putObject("bkt", "empty", new byte[0]);
    try (SlipstreamInputStream in = client.open("s3://bkt/empty")) {
      assertThat(in.length()).isZero();
      assertThat(in.read()).isEqualTo(-1);
      assertThat(in.read(new byte[10], 0, 10)).isEqualTo(-1);
      in.seek(0);
      assertThatThrownBy(() -> in.seek(1)).isInstanceOf(EOFException.class);
      assertThat(in.statistics().get(Counter.GET_REQUESTS)).isZero();
    }
  }

  @Test
  void directBuffersReadAsArraysDoUpToTheEndOfTheObject() throws IOException {
    int size = BLOCK + 500;
    S3.server().putGenerated("bkt", "direct", 4, size);
    byte[] expected = TestData.bytes(4, size);
    try (SlipstreamInputStream in = client.open("s3://bkt/direct")) {
      ByteBuffer dst = ByteBuffer.allocateDirect(2 * BLOCK);
      assertThat(in.read(size - 300, dst)).isEqualTo(300); // what is left, not the buffer's room
      assertThat(dst.position()).isEqualTo(300);
      assertThat(in.read(size, ByteBuffer.allocateDirect(10))).isEqualTo(-1);
      assertThat(in.read(size, ByteBuffer.allocateDirect(0))).isZero();
      assertThatThrownBy(() -> in.read(-1, ByteBuffer.allocateDirect(10))).isInstanceOf(EOFException.class);
      in.seek(size - 100);
      ByteBuffer rest = ByteBuffer.allocateDirect(1000);
      assertThat(in.read(rest)).isEqualTo(100);
      rest.flip();
      byte[] got = new byte[100];
      rest.get(got);
      assertThat(got).isEqualTo(java.util.Arrays.copyOfRange(expected, size - 100, size));
      assertThat(in.read(ByteBuffer.allocateDirect(10))).isEqualTo(-1);
      assertThat(in.read(ByteBuffer.allocateDirect(0))).isZero();
      assertThat(in.getPos()).isEqualTo(size);
    }
  }

  @Test
  void seekPositionalAndByteBuffer() throws IOException {
    int size = BLOCK * 3;
    S3.server().putGenerated("bkt", "seek", 3, size);
    byte[] expected = TestData.bytes(3, size);
    try (SlipstreamInputStream in = client.open("s3://bkt/seek")) {
      in.seek(BLOCK + 10);
      assertThat(in.read()).isEqualTo(expected[BLOCK + 10] & 0xff);
      assertThat(in.getPos()).isEqualTo(BLOCK + 11);
      byte[] buf = new byte[100];
      in.readFully(BLOCK * 2 - 50, buf);
      assertThat(buf).isEqualTo(java.util.Arrays.copyOfRange(expected, BLOCK * 2 - 50, BLOCK * 2 + 50));
      assertThat(in.getPos()).isEqualTo(BLOCK + 11);
      ByteBuffer direct = ByteBuffer.allocateDirect(200);
      assertThat(in.read(direct)).isEqualTo(200);
      direct.flip();
      byte[] got = new byte[200];
      direct.get(got);
      assertThat(got).isEqualTo(java.util.Arrays.copyOfRange(expected, BLOCK + 11, BLOCK + 211));
      assertThat(in.skip(size)).isEqualTo(size - (BLOCK + 211));
      assertThat(in.read()).isEqualTo(-1);
      assertThat(in.read(size, new byte[1], 0, 1)).isEqualTo(-1);
      assertThatThrownBy(() -> in.seek(-1)).isInstanceOf(EOFException.class);
      assertThatThrownBy(() -> in.seek(size + 1)).isInstanceOf(EOFException.class).hasMessageContaining("s3://bkt/seek");
      assertThatThrownBy(() -> in.readFully(size - 1, new byte[2])).isInstanceOf(EOFException.class);
    }
  }

  @Test
  void useAfterCloseFailsNamingTheObject() throws IOException {
    S3.server().putGenerated("bkt", "closed", 4, 10);
    SlipstreamInputStream in = client.open("s3://bkt/closed");
    in.close();
    in.close();
    assertThatThrownBy(in::read).isInstanceOf(IOException.class).hasMessageContaining("s3://bkt/closed");
    assertThatThrownBy(() -> in.seek(0)).isInstanceOf(IOException.class).hasMessageContaining("closed");
    assertThatThrownBy(() -> in.read(0, new byte[1], 0, 1)).isInstanceOf(IOException.class);
  }

  @Test
  void missingObjectIsFileNotFound() {
    assertThatThrownBy(() -> client.open("s3://bkt/nope"))
        .isInstanceOf(FileNotFoundException.class)
        .hasMessageContaining("s3://bkt/nope");
  }

  @Test
  void missingObjectWithKnownLengthIsFileNotFoundOnRead() throws IOException {
    try (SlipstreamInputStream in = client.open(S3Location.parse("s3://bkt/nope2"), OpenOptions.length(100))) {
      assertThatThrownBy(in::read).isInstanceOf(FileNotFoundException.class).hasMessageContaining("s3://bkt/nope2");
    }
  }

  @Test
  void wrongCredentialsAreAccessDeniedWithoutTheSecret() throws IOException {
    S3.server().putGenerated("bkt", "secret", 5, 10);
    SlipstreamConfig bad = TestClients.config(S3.server()).set("secret.key", "wrong-secret-value-123").build();
    try (Slipstream other = Slipstream.builder().config(bad).isolatedResources().build()) {
      assertThatThrownBy(() -> other.open("s3://bkt/secret"))
          .isInstanceOf(AccessDeniedException.class)
          .hasMessageContaining("s3://bkt/secret")
          .satisfies(e -> assertThat(stackText(e)).doesNotContain("wrong-secret-value-123"));
    }
    assertThat(bad.toString()).doesNotContain("wrong-secret-value-123");
  }

  static String stackText(Throwable t) {
    java.io.StringWriter sw = new java.io.StringWriter();
    t.printStackTrace(new java.io.PrintWriter(sw));
    return sw.toString();
  }

  @Test
  void aLengthGivenAtOpenThatIsTooLongIsAnErrorNotAnEndOfData() throws IOException {
    S3.server().putGenerated("bkt", "short", 6, 100_000);
    try (SlipstreamInputStream in = client.open(S3Location.parse("s3://bkt/short"), OpenOptions.length(300_000))) {
      in.seek(200_000);
      assertThatThrownBy(in::read)
          .isInstanceOf(IOException.class)
          .isNotInstanceOf(EOFException.class)
          .hasMessageContaining("s3://bkt/short")
          .hasMessageContaining("300000");
    }
  }
}
