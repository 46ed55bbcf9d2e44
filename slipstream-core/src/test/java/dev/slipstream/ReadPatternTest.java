/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream;

import static org.assertj.core.api.Assertions.assertThat;

import dev.slipstream.testkit.S3ServerExtension;
import dev.slipstream.testkit.TestData;
import java.io.IOException;
import java.util.Random;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/** What each access pattern costs in requests and bytes: counted, not timed. */
@Timeout(120)
class ReadPatternTest {
  @RegisterExtension static final S3ServerExtension S3 = new S3ServerExtension();
  static final String BUCKET = "patterns";
  static final int BLOCK = 1 << 20;
  static final long SIZE = 24L * BLOCK;
  static Slipstream client;

  @BeforeAll
  static void setUp() {
    S3.server().createBucket(BUCKET);
    S3.server().putGenerated(BUCKET, "obj", 8, SIZE);
    client = Slipstream.builder().isolatedResources()
        .config(TestClients.config(S3.server()).set("block.size", "1M").set("memory.max", "32M").build())
        .build();
  }

  @AfterAll
  static void tearDown() {
    client.close();
  }

  @Test
  void sequentialReadPrefetchesAndWastesNothing() throws IOException {
    try (SlipstreamInputStream in = client.open("s3://" + BUCKET + "/obj")) {
      byte[] buf = new byte[64 * 1024];
      long pos = 0;
      int n;
      while ((n = in.read(buf)) > 0) {
        assertThat(TestData.firstMismatch(8, pos, buf, 0, n)).isEqualTo(-1);
        pos += n;
      }
      ReadStatistics s = in.statistics();
      assertThat(s.get(Counter.GET_REQUESTS)).isEqualTo(24);
      assertThat(s.get(Counter.BYTES_FETCHED)).isEqualTo(SIZE);
      assertThat(s.get(Counter.PREFETCH_USED)).isEqualTo(23); // every block but the first was fetched ahead
      assertThat(s.get(Counter.PREFETCH_WASTED)).isZero();
    }
  }

  @Test
  void smallRandomPositionalReadsFetchOnlyTheirBytes() throws IOException {
    try (SlipstreamInputStream in = client.open("s3://" + BUCKET + "/obj")) {
      Random r = new Random(1);
      long asked = 0;
      for (int i = 0; i < 50; i++) {
        int len = 1 + r.nextInt(64 * 1024);
        long at = (long) (r.nextDouble() * (SIZE - len));
        byte[] buf = new byte[len];
        in.readFully(at, buf);
        assertThat(TestData.firstMismatch(8, at, buf, 0, len)).isEqualTo(-1);
        asked += len;
      }
      ReadStatistics s = in.statistics();
      // No prefetch storm: one GET per read, no byte fetched that was not asked for.
      assertThat(s.get(Counter.GET_REQUESTS)).isLessThanOrEqualTo(50);
      assertThat(s.get(Counter.BYTES_FETCHED)).isLessThanOrEqualTo(asked);
      assertThat(s.get(Counter.PREFETCH_WASTED)).isZero();
    }
  }

  @Test
  void seeksAroundTheFileCostAtMostABlockPerSmallRead() throws IOException {
    try (SlipstreamInputStream in = client.open("s3://" + BUCKET + "/obj")) {
      Random r = new Random(2);
      int reads = 40;
      for (int i = 0; i < reads; i++) {
        in.seek((long) (r.nextDouble() * (SIZE - 100_000)));
        byte[] buf = new byte[1 + r.nextInt(100_000)];
        long at = in.getPos();
        in.readNBytes(buf, 0, buf.length);
        assertThat(TestData.firstMismatch(8, at, buf, 0, buf.length)).isEqualTo(-1);
      }
      assertThat(in.statistics().get(Counter.BYTES_FETCHED)).isLessThanOrEqualTo((long) reads * BLOCK);
    }
  }

  @Test
  void footerThenSequentialScanLikeAColumnarReader() throws IOException {
    try (SlipstreamInputStream in = client.open("s3://" + BUCKET + "/obj")) {
      byte[] tail = new byte[8];
      in.readFully(SIZE - 8, tail);
      byte[] footer = new byte[40_000];
      in.readFully(SIZE - 8 - footer.length, footer);
      assertThat(TestData.firstMismatch(8, SIZE - 8 - footer.length, footer, 0, footer.length)).isEqualTo(-1);
      // then a column chunk read in order: blocks fetched ahead again
      in.seek(5L * BLOCK);
      byte[] chunk = new byte[6 * BLOCK];
      in.readNBytes(chunk, 0, chunk.length);
      assertThat(TestData.firstMismatch(8, 5L * BLOCK, chunk, 0, chunk.length)).isEqualTo(-1);
      assertThat(in.statistics().get(Counter.DIRECT_READS)).isEqualTo(2);
      assertThat(in.statistics().get(Counter.BYTES_FETCHED)).isLessThan(16L * BLOCK);
    }
  }

  @Test
  void splitEndStopsPrefetchButNotReading() throws IOException {
    long splitEnd = 4L * BLOCK + 10;
    try (SlipstreamInputStream in = client.open(S3Location.parse("s3://" + BUCKET + "/obj"),
        OpenOptions.length(SIZE).withSplitEnd(splitEnd).withPolicy(ReadPolicy.SEQUENTIAL))) {
      byte[] split = in.readNBytes((int) splitEnd);
      assertThat(TestData.firstMismatch(8, 0, split, 0, split.length)).isEqualTo(-1);
      // Blocks 0..4 hold the split; nothing past them was fetched ahead.
      assertThat(in.statistics().get(Counter.BYTES_FETCHED)).isEqualTo(5L * BLOCK);
      // The record straddling the split end can still be read, block by block.
      byte[] more = in.readNBytes(2 * BLOCK);
      assertThat(TestData.firstMismatch(8, splitEnd, more, 0, more.length)).isEqualTo(-1);
      assertThat(in.statistics().get(Counter.BYTES_FETCHED)).isEqualTo(7L * BLOCK);
    }
  }

  @Test
  void randomPolicyFetchesTheFirstReadsBytesAsOne64KiBGetNotABlock() throws IOException {
    try (SlipstreamInputStream in = client.open(S3Location.parse("s3://" + BUCKET + "/obj"),
        OpenOptions.NONE.withPolicy(ReadPolicy.RANDOM))) {
      byte[] head = in.readNBytes(1000);
      assertThat(TestData.firstMismatch(8, 0, head, 0, head.length)).isEqualTo(-1);
      assertThat(in.statistics().get(Counter.GET_REQUESTS)).isEqualTo(1);
      assertThat(in.statistics().get(Counter.BYTES_FETCHED)).isEqualTo(64 * 1024);
    }
  }

  @Test
  void sequentialPolicyPrefetchesTheWholeDepthAtOnceEvenOnAFreshClient() throws IOException {
    // A fresh client has learned no depth yet; a declared sequential read starts at the cap all the same.
    try (Slipstream fresh = Slipstream.builder().isolatedResources()
        .config(TestClients.config(S3.server()).set("block.size", "1M").set("memory.max", "64M").build())
        .build()) {
      try (SlipstreamInputStream in = fresh.open(S3Location.parse("s3://" + BUCKET + "/obj"),
          OpenOptions.NONE.withPolicy(ReadPolicy.SEQUENTIAL))) {
        assertThat(in.read()).isEqualTo(TestData.byteAt(8, 0) & 0xff);
        in.close(); // the first read started prefetch.blocks at once; closing now wastes them all
        assertThat(in.statistics().get(Counter.PREFETCH_WASTED)).isEqualTo(fresh.config().prefetchBlocks());
      }
      try (SlipstreamInputStream in = fresh.open("s3://" + BUCKET + "/obj")) {
        assertThat(in.read()).isEqualTo(TestData.byteAt(8, 0) & 0xff);
        in.close();
        assertThat(in.statistics().get(Counter.PREFETCH_WASTED)).isEqualTo(2); // adaptive: 2
      }
    }
  }

  @Test
  void unbufferGivesMemoryBackAndKeepsThePosition() throws IOException {
    try (SlipstreamInputStream in = client.open("s3://" + BUCKET + "/obj")) {
      byte[] a = in.readNBytes(3 * BLOCK + 5);
      assertThat(TestData.firstMismatch(8, 0, a, 0, a.length)).isEqualTo(-1);
      in.unbuffer();
      assertThat(client.memoryInUse()).isZero();
      assertThat(in.getPos()).isEqualTo(3L * BLOCK + 5);
      byte[] b = in.readNBytes(BLOCK);
      assertThat(TestData.firstMismatch(8, 3L * BLOCK + 5, b, 0, b.length)).isEqualTo(-1);
    }
  }
}
