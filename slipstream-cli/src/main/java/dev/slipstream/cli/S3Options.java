/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.cli;

import dev.slipstream.ConfigKey;
import dev.slipstream.S3Location;
import dev.slipstream.SlipstreamConfig;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Option;

/**
 * Options every command that talks to S3 takes: where S3 is, and any Slipstream configuration key.
 * Credentials come from the AWS SDK's default chain (environment, profile, instance role) unless
 * {@code -D access.key=... -D secret.key=...} are given.
 */
final class S3Options {
  @Option(names = "--endpoint", paramLabel = "URI", order = 100,
      description = "S3 endpoint, e.g. http://127.0.0.1:9000 for MinIO (default: AWS S3 for the region).")
  String endpoint;

  @Option(names = "--region", paramLabel = "REGION", order = 101,
      description = "AWS region (default: the AWS SDK's region chain, else us-east-1).")
  String region;

  @Option(names = "--path-style", order = 102,
      description = "Address buckets as ENDPOINT/bucket/key (needed by most S3-compatible servers).")
  boolean pathStyle;

  @Option(names = "-D", paramLabel = "key=value", order = 103,
      description = "Set a Slipstream configuration key (repeatable), e.g. -D block.size=16M; keys are listed below.")
  List<String> settings = new ArrayList<>();

  @Option(names = "--debug", order = 104, description = "Print stack traces of errors and Slipstream's debug log.")
  boolean debug;

  /** The configuration these options describe; anything invalid is a {@link UsageException}. */
  SlipstreamConfig toConfig() {
    SlipstreamConfig.Builder b = SlipstreamConfig.builder();
    apply(b, settings);
    try {
      if (endpoint != null) {
        b.set(ConfigKey.ENDPOINT, endpoint);
      }
      if (region != null) {
        b.set(ConfigKey.REGION, region);
      }
      if (pathStyle) {
        b.set(ConfigKey.PATH_STYLE_ACCESS, "true");
      }
      return b.build();
    } catch (IllegalArgumentException e) {
      throw new UsageException(e.getMessage(), e);
    }
  }

  /**
   * Applies {@code -D key=value} settings. A Hadoop-style {@code fs.slipstream.} prefix is accepted too.
   * Values are never echoed in messages about the syntax, as they may be secrets.
   */
  /**
   * The {@code -D} settings of a command that runs its own embedded server ({@code demo}, {@code load}),
   * checked now, before anything starts: a bad one is a usage error.
   */
  static SlipstreamConfig.Builder checkedSettings(List<String> settings) {
    SlipstreamConfig.Builder b = SlipstreamConfig.builder();
    apply(b, settings);
    try {
      b.build();
    } catch (IllegalArgumentException e) {
      throw new UsageException(e.getMessage(), e);
    }
    return b;
  }

  /** {@code settings} pointed at an embedded server reached at {@code endpoint}, with its test credentials. */
  static SlipstreamConfig embedded(SlipstreamConfig.Builder settings, java.net.URI endpoint) {
    return settings
        .set("endpoint", endpoint.toString())
        .set("region", dev.slipstream.testkit.EmbeddedS3Server.REGION)
        .set("path.style.access", "true")
        .set("access.key", dev.slipstream.testkit.EmbeddedS3Server.ACCESS_KEY)
        .set("secret.key", dev.slipstream.testkit.EmbeddedS3Server.SECRET_KEY)
        .set("session.token", null)
        .build();
  }

  static void apply(SlipstreamConfig.Builder b, List<String> settings) {
    for (String s : settings) {
      int eq = s.indexOf('=');
      if (eq <= 0) {
        throw new UsageException("-D expects key=value, e.g. -D block.size=16M");
      }
      String key = s.substring(0, eq).trim();
      if (key.startsWith(SlipstreamConfig.HADOOP_PREFIX)) {
        key = key.substring(SlipstreamConfig.HADOOP_PREFIX.length());
      }
      try {
        b.set(key, s.substring(eq + 1));
      } catch (IllegalArgumentException e) {
        throw new UsageException(e.getMessage(), e);
      }
    }
  }

  /** Parses {@code s3://bucket/key}; anything else is a {@link UsageException}. */
  static S3Location location(String uri) {
    try {
      return S3Location.parse(uri);
    } catch (IllegalArgumentException e) {
      throw new UsageException(e.getMessage(), e);
    }
  }

  static boolean looksLikeS3(String arg) {
    return arg.matches("(?i)s3[an]?://.*");
  }

  /** The help footer listing every configuration key with its default, escaped for picocli's formatting. */
  static String[] keysFooter() {
    List<String> lines = new ArrayList<>();
    lines.add("");
    lines.add("Configuration keys for -D (see docs/configuration.md for their meaning):");
    for (ConfigKey k : ConfigKey.values()) {
      String def = k.defaultValue().orElse(k == ConfigKey.MEMORY_MAX ? "1/4 of the heap" : "-");
      // picocli formats footer lines: a '%' in a default (cache.disk.min.free's 10%) must be escaped.
      lines.add(String.format(java.util.Locale.ROOT, "  %-20s default %s", k.key(), def).replace("%", "%%"));
    }
    return lines.toArray(new String[0]);
  }
}
