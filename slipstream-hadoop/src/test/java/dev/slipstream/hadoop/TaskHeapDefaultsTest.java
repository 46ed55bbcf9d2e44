/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.hadoop;

import static org.assertj.core.api.Assertions.assertThat;

import dev.slipstream.SlipstreamConfig;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;

/**
 * The memory budget in a task JVM: a plain client's quarter of the heap, unless set (its idle part yields
 * to the engine, see EnginePressureTest), and not set by the FileSystem itself, so that a FileSystem
 * with the default is never reported as asking for a budget of its own.
 */
class TaskHeapDefaultsTest {
  @Test
  void unsetTheBudgetIsAQuarterOfTheHeapAsForAPlainClient() {
    SlipstreamConfig c = HadoopConfig.slipstreamConfig(new Configuration(false));
    long heap = Runtime.getRuntime().maxMemory();
    assertThat(c.memoryMax()).isEqualTo(Math.max(heap / 4, c.blockSize()));
    assertThat(c.memoryMax()).isEqualTo(SlipstreamConfig.builder().build().memoryMax());
    assertThat(c.get(dev.slipstream.ConfigKey.MEMORY_MAX)).as("a default, not a setting").isEmpty();
  }

  @Test
  void aBudgetSetIsKept() {
    Configuration conf = new Configuration(false);
    conf.set("fs.slipstream.memory.max", "64M");
    assertThat(HadoopConfig.slipstreamConfig(conf).memoryMax()).isEqualTo(64L << 20);
  }
}
