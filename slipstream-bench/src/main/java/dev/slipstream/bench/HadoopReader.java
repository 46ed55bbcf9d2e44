/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.bench;

import dev.slipstream.testkit.S3ASettings;
import java.io.IOException;
import java.net.URI;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;

/**
 * A reader through Hadoop's FileSystem API on {@code s3a://}: S3A with one of its input streams pinned
 * by {@code fs.s3a.input.stream.type}, or Slipstream's FileSystem through {@code fs.s3a.impl}.
 *
 * <p>The configuration is Hadoop's defaults plus only what reaching the test server takes (endpoint,
 * region, path-style access, plain http, credentials, no bucket probe: {@link S3ASettings}); every read
 * setting stays at its default. Each session gets a new FileSystem instance from {@link FileSystem#get},
 * as a task does, and closing the session closes it, which also drops it from Hadoop's FileSystem cache:
 * the next run starts cold.
 *
 * @param name the reader's name in reports
 * @param fsImpl the {@code fs.s3a.impl} class, null for S3A's own
 * @param streamType the {@code fs.s3a.input.stream.type} to pin, null to leave Hadoop's default
 */
record HadoopReader(String name, String fsImpl, String streamType) implements Reader {
  static final String STREAM_TYPE = "fs.s3a.input.stream.type";

  @Override
  public String description() {
    StringBuilder b = new StringBuilder("Hadoop ").append(org.apache.hadoop.util.VersionInfo.getVersion())
        .append(" FileSystem on s3a://");
    if (fsImpl != null) {
      b.append(", fs.s3a.impl=").append(fsImpl);
    }
    if (streamType != null) {
      b.append(", ").append(STREAM_TYPE).append('=').append(streamType);
    }
    return b.append(", every other read setting at its default").toString();
  }

  Configuration configuration(Target target) {
    Configuration conf = new Configuration();
    S3ASettings.forEndpoint(target.endpoint()).forEach(conf::set);
    if (fsImpl != null) {
      conf.set("fs.s3a.impl", fsImpl);
    }
    if (streamType != null) {
      conf.set(STREAM_TYPE, streamType);
    }
    return conf;
  }

  @Override
  public ReadSession open(Target target) throws IOException {
    return open(target, java.util.Map.of());
  }

  @Override
  public ReadSession open(Target target, java.util.Map<String, String> slipstreamSettings) throws IOException {
    Configuration conf = configuration(target);
    java.nio.file.Path cacheDir = null;
    if (fsImpl != null) {
      // Every run starts with an empty disk cache of its own: no run is served by blocks of an earlier one.
      cacheDir = SessionCache.create();
      conf.set("fs.slipstream.cache.disk.dir", cacheDir.toString());
      slipstreamSettings.forEach((k, v) -> conf.set("fs.slipstream." + k, v));
    }
    try {
      return open(target, conf, cacheDir);
    } catch (IOException | RuntimeException e) {
      SessionCache.delete(cacheDir);
      throw e;
    }
  }

  private ReadSession open(Target target, Configuration conf, java.nio.file.Path cacheDir) throws IOException {
    URI uri = URI.create("s3a://" + target.bucket() + "/");
    // The FileSystem cache's instance, as Parquet's HadoopInputFile finds it again by path (closed with the
    // session, so the next run gets a new one).
    FileSystem fs = FileSystem.get(uri, conf);
    try {
      String expectedClass = fsImpl != null ? fsImpl : "org.apache.hadoop.fs.s3a.S3AFileSystem";
      if (!fs.getClass().getName().equals(expectedClass)) {
        throw new IOException("expected a " + expectedClass + " for " + name + ", got a " + fs.getClass().getName());
      }
      String type = fs.getConf().get(STREAM_TYPE);
      if (streamType != null && !streamType.equals(type)) {
        throw new IOException("a FileSystem of an earlier run is still cached (" + STREAM_TYPE + "=" + type
            + ", wanted " + streamType + ")");
      }
      return new HadoopSession(fs, conf, uri, cacheDir);
    } catch (IOException | RuntimeException e) {
      fs.close();
      throw e;
    }
  }
}
