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
        ConfigKey.CHANGE_DETECTION_SOURCE, ConfigKey.SSE_CUSTOMER_KEY}) {
      if (props.remove(SlipstreamConfig.HADOOP_PREFIX + k.key()) != null) {
        LOG.warn("{}{} is ignored by SlipstreamS3AFileSystem: the fs.s3a.* settings apply",
            SlipstreamConfig.HADOOP_PREFIX, k.key());
      }
    }
    // memory.max keeps a plain client's default, a quarter of the heap: the heap of a task JVM is the
    // engine's, and the pool's idle memory (its memory cache) yields to it when it needs heap.
    return SlipstreamConfig.fromMap(props, SlipstreamConfig.HADOOP_PREFIX);
  }

  /**
   * {@code config} with S3A's SSE-C key, when S3A encrypts with SSE-C: the key S3A resolved for this
   * FileSystem's bucket and sends on its own GETs and HEADs ({@code fs.s3a.bucket.NAME.encryption.key},
   * {@code fs.s3a.encryption.key}, their deprecated {@code server-side-encryption} names, a credential
   * provider or a delegation token), so that Slipstream's requests carry it too. S3A's answer is asked for,
   * not the configuration parsed again, so no way S3A finds its key is missed. A key S3 would refuse is
   * refused here, naming S3A's setting, never the value.
   */
  static SlipstreamConfig withS3AsCustomerKey(SlipstreamConfig config,
      org.apache.hadoop.fs.s3a.auth.delegation.EncryptionSecrets secrets) {
    if (secrets == null || secrets.getEncryptionMethod() != org.apache.hadoop.fs.s3a.S3AEncryptionMethods.SSE_C) {
      return config;
    }
    if (!secrets.hasEncryptionKey()) {
      throw new IllegalArgumentException("fs.s3a.encryption.algorithm is SSE-C but no fs.s3a.encryption.key is set:"
          + " S3 serves SSE-C objects only to requests that carry their key");
    }
    try {
      return config.toBuilder().set(ConfigKey.SSE_CUSTOMER_KEY, secrets.getEncryptionKey()).build();
    } catch (IllegalArgumentException e) {
      // The message names Slipstream's key and shows the value as ****: say which setting it came from.
      throw new IllegalArgumentException("fs.s3a.encryption.key (SSE-C) is refused: " + e.getMessage(), e);
    }
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
