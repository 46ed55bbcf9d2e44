/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.iceberg;

import dev.slipstream.Slipstream;
import dev.slipstream.SlipstreamConfig;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.iceberg.aws.s3.S3FileIO;

/**
 * The two clients of one set of catalog properties: Slipstream for reads, S3FileIO for the rest.
 *
 * <p>Two lifetimes. A FileIO that a catalog initialized owns its clients and closes them. A copy that
 * came over the wire (Iceberg serializes a table's FileIO into Spark tasks, once per task for some
 * metadata tables) is never closed by anyone: it takes the clients this JVM keeps for its properties,
 * built once and kept until the JVM exits, as Hadoop caches a FileSystem per URI and user. So an
 * executor has one Slipstream client per catalog configuration, whose caches serve all its tasks, not
 * one client per task left for the garbage collector.
 */
record FileIOClients(Slipstream reader, S3FileIO writer, ReadMetrics metrics) {
  /** Keyed by a digest of the properties: no credential is kept as a key. */
  private static final Map<String, FileIOClients> SHARED = new ConcurrentHashMap<>();

  /**
   * New clients, owned by the caller.
   *
   * @throws IllegalArgumentException naming the property whose value is invalid
   */
  static FileIOClients open(Map<String, String> properties) {
    SlipstreamConfig config = CatalogProperties.toConfig(properties); // first: a bad value fails before any client
    S3FileIO writer = new S3FileIO();
    writer.initialize(properties);
    try {
      return new FileIOClients(Slipstream.create(config), writer, ReadMetrics.from(properties));
    } catch (RuntimeException | Error e) {
      writer.close();
      throw e;
    }
  }

  /** The clients this JVM keeps for these properties, opened on first use; never closed by the caller. */
  static FileIOClients shared(Map<String, String> properties) {
    return SHARED.computeIfAbsent(digest(properties), d -> open(properties));
  }

  void close() {
    try {
      reader.close();
    } finally {
      writer.close();
    }
  }

  private static String digest(Map<String, String> properties) {
    try {
      MessageDigest sha = MessageDigest.getInstance("SHA-256");
      for (Map.Entry<String, String> e : new TreeMap<>(properties).entrySet()) {
        sha.update(e.getKey().getBytes(StandardCharsets.UTF_8));
        sha.update((byte) 0);
        sha.update(e.getValue().getBytes(StandardCharsets.UTF_8));
        sha.update((byte) 0);
      }
      return HexFormat.of().formatHex(sha.digest());
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is missing from this JVM", e);
    }
  }
}
