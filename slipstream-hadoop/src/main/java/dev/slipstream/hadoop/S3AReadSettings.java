/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.hadoop;

import dev.slipstream.ChangeDetection;
import dev.slipstream.ChangeSource;
import dev.slipstream.ConfigKey;
import dev.slipstream.SlipstreamConfig;
import java.util.concurrent.ConcurrentHashMap;
import java.util.Set;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.s3a.impl.ChangeDetectionPolicy;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * S3A's settings of how a read is made, kept by Slipstream's own read path (docs/hadoop-spark.md, "S3A's
 * settings on the read path"): each is honoured, by the Slipstream setting that does the same thing, or
 * replaced by a named Slipstream setting, said once at INFO where it is set. Read from the configuration
 * S3A resolved for the bucket, so {@code fs.s3a.bucket.NAME.*} applies as it does to S3A.
 */
final class S3AReadSettings {
  private static final Logger LOG = LoggerFactory.getLogger(HadoopConfig.LOGGER);
  /** S3A keys whose "no effect" was said already, once per JVM each. */
  private static final Set<String> SAID = ConcurrentHashMap.newKeySet();

  /**
   * S3A keys Slipstream's read path does not use, and what does their work instead. Each is said once at
   * INFO when set.
   */
  static final String[][] REPLACED = {
      {"fs.s3a.readahead.range", "a small read after a seek fetches 64 KiB beyond it, a columnar range read"
          + " at least 64 KiB, and sequential reads are whole blocks fetched ahead (fs.slipstream.block.size,"
          + " fs.slipstream.prefetch.blocks)"},
      {"fs.s3a.input.async.drain.threshold", "Slipstream never drains a body it no longer wants: it aborts it"},
      {"fs.s3a.input.stream.type", "Slipstream's stream reads (S3A's own is set to classic for what S3A reads"
          + " itself)"},
      {"fs.s3a.prefetch.enabled", "Slipstream's stream reads, its blocks fetched ahead (fs.slipstream.block.size,"
          + " fs.slipstream.prefetch.blocks)"},
      {"fs.s3a.prefetch.block.size", "fs.slipstream.block.size"},
      {"fs.s3a.prefetch.block.count", "fs.slipstream.prefetch.blocks"},
      {"fs.s3a.vectored.active.ranged.reads", "fs.slipstream.fetch.threads (every range of every stream shares"
          + " the fetch executor)"},
      {"fs.s3a.connection.timeout", "fs.slipstream.connect.timeout and fs.slipstream.read.stall.timeout for the"
          + " read path's GETs (S3A's own requests keep it)"},
      {"fs.s3a.connection.request.timeout", "fs.slipstream.connect.timeout plus fs.slipstream.read.stall.timeout"
          + " per attempt of the read path's GETs"},
      {"fs.s3a.attempts.maximum", "fs.slipstream.retry.max for the read path's GETs, resumed at the last byte"
          + " received"},
      {"fs.s3a.retry.limit", "fs.slipstream.retry.max for the read path's GETs"},
      {"fs.s3a.retry.interval", "fs.slipstream.retry.interval for the read path's GETs"},
  };

  private S3AReadSettings() {}

  /**
   * {@code config} with S3A's change detection ({@code fs.s3a.change.detection.mode} and {@code .source},
   * as S3A parsed them into {@code policy}): {@code server} sends the version as a condition, as S3A does;
   * {@code client}, {@code warn} and {@code none} send none and compare every response, failing a read
   * that meets another version (Slipstream never mixes two versions in one stream, where S3A's warn and
   * none would read on).
   */
  static SlipstreamConfig applied(SlipstreamConfig config, ChangeDetectionPolicy policy) {
    ChangeDetection detection = policy.getMode() == ChangeDetectionPolicy.Mode.Server
        ? ChangeDetection.SERVER : ChangeDetection.CLIENT;
    ChangeSource source = policy.getSource() == ChangeDetectionPolicy.Source.VersionId
        ? ChangeSource.VERSIONID : ChangeSource.ETAG;
    if (policy.getMode() == ChangeDetectionPolicy.Mode.Warn || policy.getMode() == ChangeDetectionPolicy.Mode.None) {
      sayOnce("fs.s3a.change.detection.mode", "fs.s3a.change.detection.mode=" + policy.getMode().name()
          .toLowerCase(java.util.Locale.ROOT) + ": Slipstream's GETs carry no condition and every response's version"
          + " is compared, as in client mode; a read that meets another version fails, where S3A would read on");
    }
    if (detection == config.changeDetection() && source == config.changeSource()) {
      return config;
    }
    return config.toBuilder().set(ConfigKey.CHANGE_DETECTION, detection.name().toLowerCase(java.util.Locale.ROOT))
        .set(ConfigKey.CHANGE_DETECTION_SOURCE, source.name().toLowerCase(java.util.Locale.ROOT)).build();
  }

  /** Says once per JVM, at INFO, what replaces each S3A key of {@link #REPLACED} set in {@code conf}. */
  static void sayReplaced(Configuration conf) {
    for (String[] r : REPLACED) {
      if (setByUser(conf, r[0])) {
        sayOnce(r[0], replacedMessage(r));
      }
    }
  }

  /** What is said of the keys of {@link #REPLACED} set in {@code conf}, in that order. */
  static java.util.List<String> replacedIn(Configuration conf) {
    return java.util.Arrays.stream(REPLACED).filter(r -> setByUser(conf, r[0])).map(S3AReadSettings::replacedMessage)
        .toList();
  }

  /** Set, and not by Hadoop's own defaults ({@code core-default.xml}), which name most of these keys. */
  private static boolean setByUser(Configuration conf, String key) {
    if (conf.get(key) == null) {
      return false;
    }
    String[] sources = conf.getPropertySources(key);
    return sources == null || sources.length == 0 || !sources[sources.length - 1].endsWith("-default.xml");
  }

  private static String replacedMessage(String[] r) {
    return r[0] + " has no effect on Slipstream's read path: " + r[1];
  }

  private static void sayOnce(String key, String message) {
    if (SAID.add(key)) {
      LOG.info(message);
    }
  }
}
