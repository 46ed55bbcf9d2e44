/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.bench;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The readers the benchmark knows, by name, in report order. */
final class Readers {
  static final String S3A_CLASSIC = "s3a-classic";
  static final String S3A_PREFETCH = "s3a-prefetch";
  static final String S3A_ANALYTICS = "s3a-analytics";
  static final String SLIPSTREAM = "slipstream";
  static final String SLIPSTREAM_CORE = CoreReader.NAME;

  static final String SLIPSTREAM_FS = "dev.slipstream.hadoop.SlipstreamS3AFileSystem";

  private static final Map<String, Reader> ALL = new LinkedHashMap<>();

  static {
    add(new HadoopReader(S3A_CLASSIC, null, "classic"));
    add(new HadoopReader(S3A_PREFETCH, null, "prefetch"));
    add(new HadoopReader(S3A_ANALYTICS, null, "analytics"));
    // Slipstream's FileSystem replaces S3A's streams, so fs.s3a.input.stream.type is left at Hadoop's default.
    add(new HadoopReader(SLIPSTREAM, SLIPSTREAM_FS, null));
    add(new CoreReader());
  }

  private Readers() {}

  private static void add(Reader r) {
    ALL.put(r.name(), r);
  }

  static List<String> names() {
    return List.copyOf(ALL.keySet());
  }

  static Reader byName(String name) {
    Reader r = ALL.get(name);
    if (r == null) {
      throw new IllegalArgumentException("unknown reader '" + name + "'; readers: " + String.join(", ", ALL.keySet()));
    }
    return r;
  }
}
