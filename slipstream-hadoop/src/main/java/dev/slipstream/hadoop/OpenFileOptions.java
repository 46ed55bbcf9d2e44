/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.hadoop;

import dev.slipstream.ReadPolicy;
import java.util.Locale;
import java.util.Set;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.impl.OpenFileParameters;

/**
 * The {@code openFile()} options Slipstream acts on, parsed and checked.
 *
 * <ul>
 *   <li>{@code fs.option.openfile.length}: the length, so no HEAD is needed.</li>
 *   <li>{@code fs.option.openfile.split.end}: prefetch stops at the block holding the split's last
 *       byte; reading further (a record straddling the split end) still works, on demand.</li>
 *   <li>{@code fs.option.openfile.read.policy}: a list; the first policy known wins.
 *       {@code sequential}, {@code whole-file}, {@code avro}, {@code csv}, {@code json} read in order from
 *       the start, prefetching from the first byte; {@code parquet}, {@code orc}, {@code columnar},
 *       {@code random}, {@code vector}, {@code hbase} read a footer and then ranges: each read fetches
 *       exactly its bytes until its reads prove sequential ({@link ReadPolicy#RANDOM});
 *       {@code adaptive}, {@code default}, {@code normal} start adaptive (and read ranges if the first
 *       read is at the tail).</li>
 * </ul>
 * Mandatory options ({@code must()}) that neither Hadoop's standard set, S3A nor Slipstream knows are
 * rejected with an {@link IllegalArgumentException}, as S3A does.
 */
record OpenFileOptions(long length, long splitEnd, ReadPolicy policy) {
  private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(OpenFileOptions.class);
  static final String PREFIX = "fs.option.openfile.";
  static final String LENGTH = PREFIX + "length";
  static final String SPLIT_START = PREFIX + "split.start";
  static final String SPLIT_END = PREFIX + "split.end";
  static final String READ_POLICY = PREFIX + "read.policy";
  static final String BUFFER_SIZE = PREFIX + "buffer.size";
  static final String FOOTER_CACHE = PREFIX + "footer.cache";
  static final Set<String> KNOWN = Set.of(LENGTH, SPLIT_START, SPLIT_END, READ_POLICY, BUFFER_SIZE, FOOTER_CACHE,
      "fs.s3a.experimental.input.fadvise", "fs.s3a.readahead.range", "fs.s3a.input.async.drain.threshold",
      "fs.s3a.input.stream.type");

  static OpenFileOptions defaults(ReadPolicy policy) {
    return new OpenFileOptions(-1, -1, policy);
  }

  static OpenFileOptions parse(Path path, OpenFileParameters p, ReadPolicy defaultPolicy) {
    for (String key : p.getMandatoryKeys()) {
      if (!KNOWN.contains(key) && !key.startsWith("fs.slipstream.")) {
        throw new IllegalArgumentException("Unsupported mandatory option " + key + " when opening " + path);
      }
    }
    Configuration o = p.getOptions();
    FileStatus status = p.getStatus();
    if (status != null && !status.getPath().getName().equals(path.getName())) {
      throw new IllegalArgumentException("the file status given for " + path + " is of another file: "
          + status.getPath());
    }
    long length = longOption(o, LENGTH, path);
    long splitEnd = longOption(o, SPLIT_END, path);
    ReadPolicy policy = defaultPolicy;
    if (o != null) {
      String fadvise = o.getTrimmed("fs.s3a.experimental.input.fadvise", "");
      if (!fadvise.isEmpty()) {
        policy = policyFromFadvise(fadvise);
      }
      for (String name : o.getTrimmedStrings(READ_POLICY)) {
        ReadPolicy known = policyNamed(name);
        if (known != null) {
          policy = known;
          break;
        }
      }
    }
    return new OpenFileOptions(length < 0 ? -1 : length, splitEnd <= 0 ? -1 : splitEnd, policy);
  }

  /**
   * A whole number, or -1 when absent or not one: as S3A does, a value such as {@code 4096.0} (set
   * with {@code mustDouble}) is ignored with a warning rather than failing the open.
   */
  static long longOption(Configuration o, String key, Path path) {
    String v = o == null ? null : o.getTrimmed(key);
    if (v == null || v.isEmpty()) {
      return -1;
    }
    try {
      return Long.parseLong(v);
    } catch (NumberFormatException e) {
      LOG.warn("openFile({}): {}={} is not a whole number; ignored", path, key, v);
      return -1;
    }
  }

  /** A Hadoop read policy name, or null if it is not one Slipstream knows. */
  static ReadPolicy policyNamed(String name) {
    switch (name.toLowerCase(Locale.ROOT)) {
      case "sequential":
      case "whole-file":
      case "avro":
      case "csv":
      case "json":
        return ReadPolicy.SEQUENTIAL;
      case "random":
      case "vector":
      case "hbase":
      case "columnar":
      case "parquet":
      case "orc":
        return ReadPolicy.RANDOM;
      case "adaptive":
      case "default":
      case "normal":
        return ReadPolicy.ADAPTIVE;
      default:
        return null;
    }
  }

  /** S3A's {@code fs.s3a.experimental.input.fadvise}, as the default policy. */
  static ReadPolicy policyFromFadvise(String fadvise) {
    ReadPolicy p = fadvise.isEmpty() ? null : policyNamed(fadvise);
    return p == null ? ReadPolicy.ADAPTIVE : p;
  }
}
