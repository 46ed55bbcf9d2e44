/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;

/** Every way of reading the generated data gives the same bytes: byte by byte, filled, streamed, summed. */
class TestDataTest {
  private static final long SEED = 20240917;

  @Test
  void fillAtAnyOffsetAndLengthGivesTheBytesByteAtGives() {
    for (int offset = 0; offset < 20; offset++) {
      for (int len = 0; len < 40; len++) {
        byte[] b = new byte[len + 2];
        TestData.fill(SEED, offset, b, 1, len);
        for (int i = 0; i < len; i++) {
          assertThat(b[1 + i]).as("offset %d, byte %d", offset, i).isEqualTo(TestData.byteAt(SEED, offset + i));
        }
        assertThat(b[0]).isZero();
        assertThat(b[len + 1]).isZero();
      }
    }
  }

  @Test
  void aStreamFromAnOffsetGivesThoseBytesThenEnds() throws IOException {
    byte[] all = TestData.bytes(SEED, 10_000);
    try (InputStream in = TestData.stream(SEED, 1_234, 5_000)) {
      assertThat(in.read()).isEqualTo(all[1_234] & 0xff);
      assertThat(in.skip(100)).isEqualTo(100);
      byte[] rest = in.readAllBytes();
      assertThat(rest).hasSize(5_000 - 101);
      assertThat(TestData.firstMismatch(SEED, 1_335, rest, 0, rest.length)).isEqualTo(-1);
      assertThat(in.read()).isEqualTo(-1);
      assertThat(in.skip(10)).isZero();
    }
  }

  @Test
  void crc32cIsThatOfTheBytes() {
    byte[] b = TestData.bytes(SEED, 3_000_000);
    CRC32C crc = new CRC32C();
    crc.update(b, 777, 2_500_000);
    assertThat(TestData.crc32c(SEED, 777, 2_500_000)).isEqualTo(crc.getValue());
    assertThat(TestData.crc32c(SEED, 5, 0)).isEqualTo(new CRC32C().getValue());
  }
}
