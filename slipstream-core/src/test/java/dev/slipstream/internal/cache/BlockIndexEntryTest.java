/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.cache;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Random;
import org.junit.jupiter.api.Test;

class BlockIndexEntryTest {
  @Test
  void aBlockNameHeldAsFourLongsGivesTheSameNameBack() {
    Random random = new Random(3);
    for (int i = 0; i < 1000; i++) {
      byte[] id = new byte[BlockFile.ID_BYTES];
      random.nextBytes(id);
      String name = BlockFile.name(id);
      BlockIndex.Entry e = BlockIndex.Entry.of(name, i);
      assertThat(e.name()).isEqualTo(name);
      assertThat(e.size).isEqualTo(i);
      assertThat(BlockIndex.Entry.of(name, 7)).isEqualTo(e).hasSameHashCodeAs(e); // equal by name alone
    }
    String zeros = "0".repeat(64);
    assertThat(BlockIndex.Entry.of(zeros, 0).name()).isEqualTo(zeros);
    assertThat(BlockIndex.Entry.of("f".repeat(64), 0)).isNotEqualTo(BlockIndex.Entry.of("f".repeat(63) + "e", 0));
  }

  @Test
  void aNameThatIsNotABlocksIsRefused() {
    assertThatThrownBy(() -> BlockIndex.Entry.of("abc", 0)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> BlockIndex.Entry.of("g".repeat(64), 0)).isInstanceOf(NumberFormatException.class);
  }
}
