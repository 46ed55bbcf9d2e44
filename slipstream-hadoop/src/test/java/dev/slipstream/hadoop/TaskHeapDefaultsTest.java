/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.hadoop;

import static org.assertj.core.api.Assertions.assertThat;

import dev.slipstream.SlipstreamConfig;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;

/** The memory budget in a task JVM: a smaller share of the heap than a plain client's, unless set. */
class TaskHeapDefaultsTest {
  @Test
  void unsetTheBudgetIsAnEighthOfTheHeap() {
    SlipstreamConfig c = HadoopConfig.slipstreamConfig(new Configuration(false));
    long heap = Runtime.getRuntime().maxMemory();
    assertThat(c.memoryMax()).isEqualTo(Math.max(heap / 8, c.blockSize()));
    assertThat(c.memoryMax()).isLessThan(SlipstreamConfig.builder().build().memoryMax());
  }

  @Test
  void aBudgetSetIsKept() {
    Configuration conf = new Configuration(false);
    conf.set("fs.slipstream.memory.max", "64M");
    assertThat(HadoopConfig.slipstreamConfig(conf).memoryMax()).isEqualTo(64L << 20);
  }
}
