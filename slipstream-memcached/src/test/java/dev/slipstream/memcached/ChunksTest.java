/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.memcached;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Random;
import org.junit.jupiter.api.Test;

/** A chunk is used only if it is exactly the chunk the reader expects, intact and, with a secret, signed. */
class ChunksTest {
  private static final int LENGTH = 2 * Chunks.CHUNK + 12_345; // three chunks, the last one short

  private static byte[] block() {
    byte[] b = new byte[LENGTH];
    new Random(5).nextBytes(b);
    return b;
  }

  private static byte[] name(int seed) {
    byte[] n = new byte[Chunks.NAME];
    new Random(seed).nextBytes(n);
    return n;
  }

  @Test
  void aBlockSplitIntoChunksComesBackWhole() {
    byte[] block = block();
    byte[] name = name(1);
    for (Chunks chunks : new Chunks[] {new Chunks(null), new Chunks("s3cret")}) {
      assertThat(Chunks.count(LENGTH)).isEqualTo(3);
      byte[] back = new byte[LENGTH + 10];
      for (int c = 0; c < 3; c++) {
        byte[] value = chunks.encode(name, c, block, 0, LENGTH);
        assertThat(value.length).isLessThan(1024 * 1024 - 300); // memcached's 1 MiB item, key and item header
        assertThat(chunks.decode(value, name, c, LENGTH, back, 10)).isEqualTo(Chunks.Verdict.OK);
      }
      assertThat(java.util.Arrays.copyOfRange(back, 10, 10 + LENGTH)).isEqualTo(block);
    }
  }

  @Test
  void aShareOfABlockTakesOnlyItsBytesFromEachChunk() {
    Chunks chunks = new Chunks("s3cret");
    byte[] block = block();
    byte[] name = name(1);
    int from = Chunks.CHUNK - 10;
    int n = 30; // 10 bytes of chunk 0, 20 of chunk 1
    byte[] dst = new byte[n + 8];
    java.util.Arrays.fill(dst, (byte) 7);
    for (int c = 0; c < 2; c++) {
      assertThat(chunks.decode(chunks.encode(name, c, block, 0, LENGTH), name, c, LENGTH, from, n, dst, 4))
          .isEqualTo(Chunks.Verdict.OK);
    }
    assertThat(java.util.Arrays.copyOfRange(dst, 4, 4 + n)).isEqualTo(java.util.Arrays.copyOfRange(block, from, from + n));
    assertThat(java.util.Arrays.copyOfRange(dst, 0, 4)).as("nothing before the share").containsOnly(7);
    assertThat(java.util.Arrays.copyOfRange(dst, 4 + n, dst.length)).as("nothing after it").containsOnly(7);
    // A chunk outside the share copies nothing.
    assertThat(chunks.decode(chunks.encode(name, 2, block, 0, LENGTH), name, 2, LENGTH, from, n, dst, 4))
        .isEqualTo(Chunks.Verdict.OK);
    assertThat(java.util.Arrays.copyOfRange(dst, 4, 4 + n)).isEqualTo(java.util.Arrays.copyOfRange(block, from, from + n));
  }

  @Test
  void aDamagedForeignOrMisplacedChunkIsCorrupt() {
    Chunks chunks = new Chunks(null);
    byte[] block = block();
    byte[] name = name(1);
    byte[] value = chunks.encode(name, 1, block, 0, LENGTH);
    byte[] dst = new byte[LENGTH];

    byte[] flipped = value.clone();
    flipped[flipped.length - 1000] ^= 1;
    assertThat(chunks.decode(flipped, name, 1, LENGTH, dst, 0)).as("a flipped bit").isEqualTo(Chunks.Verdict.CORRUPT);
    assertThat(chunks.decode(value, name(2), 1, LENGTH, dst, 0)).as("another block's").isEqualTo(Chunks.Verdict.CORRUPT);
    assertThat(chunks.decode(value, name, 0, LENGTH, dst, 0)).as("another chunk's place").isEqualTo(Chunks.Verdict.CORRUPT);
    assertThat(chunks.decode(value, name, 1, LENGTH + 1, dst, 0)).as("another length").isEqualTo(Chunks.Verdict.CORRUPT);
    assertThat(chunks.decode(java.util.Arrays.copyOf(value, value.length - 1), name, 1, LENGTH, dst, 0))
        .as("truncated").isEqualTo(Chunks.Verdict.CORRUPT);
    assertThat(chunks.decode("garbage".getBytes(), name, 1, LENGTH, dst, 0)).isEqualTo(Chunks.Verdict.CORRUPT);
    assertThat(dst).as("nothing copied from a bad chunk").containsOnly(0);
  }

  @Test
  void withASecretAnUnsignedOrOtherwiseSignedChunkIsRejected() {
    byte[] block = block();
    byte[] name = name(1);
    byte[] dst = new byte[LENGTH];
    Chunks mine = new Chunks("the-cluster-secret");
    assertThat(mine.decode(new Chunks(null).encode(name, 0, block, 0, LENGTH), name, 0, LENGTH, dst, 0))
        .as("written without the secret").isEqualTo(Chunks.Verdict.REJECTED);
    assertThat(mine.decode(new Chunks("another-secret").encode(name, 0, block, 0, LENGTH), name, 0, LENGTH, dst, 0))
        .as("signed with another").isEqualTo(Chunks.Verdict.REJECTED);
    byte[] forged = mine.encode(name, 0, block, 0, LENGTH);
    forged[forged.length - 1] ^= 1;
    assertThat(mine.decode(forged, name, 0, LENGTH, dst, 0)).as("bytes changed after signing")
        .isEqualTo(Chunks.Verdict.REJECTED);
    assertThat(dst).containsOnly(0);
  }

  @Test
  void keysNameNoObjectAndFitMemcachedsLimit() {
    String key = Chunks.key(name(1), 15);
    assertThat(key).startsWith("slipstream:").endsWith(":15").hasSizeLessThan(250).doesNotContain(" ");
  }
}
