/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.hadoop;

import dev.slipstream.ConfigKey;
import dev.slipstream.SlipstreamConfig;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.hadoop.conf.Configuration;

/** Slipstream's settings from a Hadoop Configuration: its {@code fs.slipstream.*} keys, and this module's defaults. */
final class HadoopConfig {
  /**
   * The name of the logger this module's parts log under: the FileSystem's, so that its messages keep the
   * name they always had, without the parts depending on the class that calls them.
   */
  static final String LOGGER = "dev.slipstream.hadoop.SlipstreamS3AFileSystem";
  private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(LOGGER);
  private static final AtomicBoolean ANNOUNCED = new AtomicBoolean();

  private HadoopConfig() {}

  /** {@code fs.slipstream.*} of {@code conf}; endpoint and credential keys are S3A's business here. */
  static SlipstreamConfig slipstreamConfig(Configuration conf) {
    Map<String, String> props = new HashMap<>();
    for (Map.Entry<String, String> e : conf.getPropsWithPrefix(SlipstreamConfig.HADOOP_PREFIX).entrySet()) {
      props.put(SlipstreamConfig.HADOOP_PREFIX + e.getKey(), e.getValue());
    }
    for (ConfigKey k : new ConfigKey[] {ConfigKey.ENDPOINT, ConfigKey.REGION, ConfigKey.PATH_STYLE_ACCESS,
        ConfigKey.ACCESS_KEY, ConfigKey.SECRET_KEY, ConfigKey.SESSION_TOKEN, ConfigKey.CHANGE_DETECTION,
        ConfigKey.CHANGE_DETECTION_SOURCE}) {
      if (props.remove(SlipstreamConfig.HADOOP_PREFIX + k.key()) != null) {
        LOG.warn("{}{} is ignored by SlipstreamS3AFileSystem: the fs.s3a.* settings apply",
            SlipstreamConfig.HADOOP_PREFIX, k.key());
      }
    }
    // memory.max keeps a plain client's default, a quarter of the heap: the heap of a task JVM is the
    // engine's, and the pool's idle memory (its memory cache) yields to it when it needs heap.
    return SlipstreamConfig.fromMap(props, SlipstreamConfig.HADOOP_PREFIX);
  }

  /** Says once per JVM, at the first FileSystem's start, that Slipstream reads and with what settings. */
  static void announce(String bucket, SlipstreamConfig config) {
    if (ANNOUNCED.compareAndSet(false, true)) {
      LOG.info("Slipstream read path enabled for s3a:// (first bucket: {}): {} KiB blocks, up to {} prefetched,"
          + " {} MiB JVM-wide memory budget", bucket, config.blockSize() >> 10,
          config.prefetchBlocks(), config.memoryMax() >> 20);
    }
  }
}
