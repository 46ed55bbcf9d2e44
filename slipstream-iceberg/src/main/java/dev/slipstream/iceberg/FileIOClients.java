/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.iceberg;

import dev.slipstream.S3Location;
import dev.slipstream.Slipstream;
import dev.slipstream.SlipstreamConfig;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.aws.s3.S3FileIO;
import org.apache.iceberg.aws.s3.S3FileIOProperties;
import org.apache.iceberg.io.StorageCredential;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * The clients of one set of catalog properties and storage credentials: S3FileIO for writes, deletes and
 * listings, and a Slipstream client for reads over each S3 client of the S3FileIO's.
 *
 * <p>One Slipstream client per S3 client: without storage credentials the S3FileIO has one S3 client
 * (the catalog properties'), and so one Slipstream client; with them (a REST catalog's per-prefix
 * credentials, {@link S3FileIO#setCredentials}) it has one more per prefix, and a read of a path goes
 * through the S3 client S3FileIO picks for that path ({@link S3FileIO#client(String)}: the longest
 * matching prefix, else the catalog properties'), wrapped by its own Slipstream client, built at the
 * first read of that prefix. So what a client knows of objects ({@code access.ttl}'s answers, memory
 * cache) is one principal's; all of them share the JVM's memory budget, fetch threads and disk cache,
 * whose blocks are served only after the reading principal's own request for the object succeeded. The
 * number of clients is bounded by the prefixes the catalog sent.
 *
 * <p>Each Slipstream client sends a bucket's requests where S3FileIO sends them: to the access point of
 * {@code s3.access-points.<bucket>}, as S3FileIO reads that property from the catalog properties (for a
 * prefix, with its storage credential's config over them). Its S3 client carries the rest of that route
 * ({@code s3.use-arn-region-enabled}, the endpoint rules for an access point ARN).
 *
 * <p>Two lifetimes. A FileIO that a catalog initialized owns its clients and closes them. A copy that
 * came over the wire (Iceberg serializes a table's FileIO into Spark tasks) takes the clients this JVM
 * shares among the copies of the same properties and credentials ({@link SharedClients}), which are
 * closed once no copy, file or stream uses them. So an executor has one set per catalog configuration in
 * use, whose caches serve all its tasks, and none for credentials that rotated away.
 */
final class FileIOClients {
  private final SlipstreamConfig config;
  private final Map<String, String> properties;
  private final S3FileIO writer;
  private final ReadMetrics metrics;
  private final List<StorageCredential> credentials;
  private final S3Client defaultS3;
  private final Slipstream defaultReader;
  /** The Slipstream client over each prefix's S3 client (by identity), built at its first read; guarded by this. */
  private final Map<S3Client, Slipstream> prefixReaders = new IdentityHashMap<>();
  private boolean closed;

  private FileIOClients(SlipstreamConfig config, Map<String, String> properties, S3FileIO writer,
      ReadMetrics metrics, List<StorageCredential> credentials, S3Client defaultS3, Slipstream defaultReader) {
    this.config = config;
    this.properties = properties;
    this.writer = writer;
    this.metrics = metrics;
    this.credentials = credentials;
    this.defaultS3 = defaultS3;
    this.defaultReader = defaultReader;
  }

  /**
   * New clients, owned by the caller. Slipstream reads through the S3 clients of the S3FileIO
   * ({@link S3FileIO#client()}, {@link S3FileIO#client(String)}), which Iceberg builds from all the catalog
   * properties, and for a prefix with a storage credential from those properties with the credential's
   * over them: its credentials (static keys, {@code client.credentials-provider}, an assumed role,
   * credentials a REST catalog vends and refreshes), its region, endpoint and path style, its HTTP client
   * ({@code http-client.*}: pool, timeouts, proxy), remote signing, acceleration, dual-stack, cross-region
   * access, or a whole {@code client.factory}. So reads go as the same principal, to the same place, as
   * writes; no second client is built from a copy of those properties. The S3FileIO owns those clients:
   * Slipstream never closes them, and is closed before them ({@link #close()}).
   *
   * @param credentials the storage credentials the S3FileIO gets before its initialize, as Iceberg's
   *     {@code CatalogUtil.loadFileIO} hands them; empty for none
   * @throws IllegalArgumentException naming the property whose value is invalid
   */
  static FileIOClients open(Map<String, String> properties, List<StorageCredential> credentials) {
    SlipstreamConfig config = CatalogProperties.toConfig(properties); // first: a bad value fails before any client
    S3FileIO writer = new S3FileIO();
    try {
      writer.setCredentials(credentials);
      writer.initialize(properties);
      S3Client s3 = s3Client(writer);
      Slipstream reader = Slipstream.builder().config(config).s3Client(s3).accessPoints(accessPoints(properties))
          .build();
      return new FileIOClients(config, Map.copyOf(properties), writer, ReadMetrics.from(properties),
          List.copyOf(credentials), s3, reader);
    } catch (RuntimeException | Error e) {
      writer.close();
      throw e;
    }
  }

  /** The access point of each bucket, as S3FileIO reads them from {@code properties} ({@code s3.access-points.*}). */
  private static Map<String, String> accessPoints(Map<String, String> properties) {
    return new S3FileIOProperties(properties).bucketToAccessPointMapping();
  }

  /**
   * The S3FileIO's S3 client for paths under no prefix, built now: a catalog whose client settings cannot
   * make one fails {@code initialize}, before any read, and no read goes through another client instead.
   *
   * @throws IllegalArgumentException saying so, with Iceberg's reason (which names the class or value)
   */
  private static S3Client s3Client(S3FileIO writer) {
    try {
      return writer.client();
    } catch (RuntimeException e) {
      throw new IllegalArgumentException("SlipstreamFileIO reads through S3FileIO's S3 client, which cannot be built"
          + " from these catalog properties (client.*, s3.*, http-client.*): " + e.getMessage(), e);
    }
  }

  S3FileIO writer() {
    return writer;
  }

  ReadMetrics metrics() {
    return metrics;
  }

  /** The Slipstream client of paths under no prefix (all paths, without storage credentials). */
  Slipstream reader() {
    return defaultReader;
  }

  /**
   * The Slipstream client that reads {@code path}: the one over the S3 client S3FileIO would use for it.
   *
   * @throws IllegalArgumentException naming the prefix, if S3FileIO cannot build the S3 client of the
   *     credential of the prefix {@code path} is under (never the default client instead)
   * @throws IllegalStateException if these clients are closed
   */
  Slipstream reader(String path) {
    if (credentials.isEmpty()) {
      return defaultReader;
    }
    synchronized (this) {
      if (closed) { // before asking S3FileIO, which would build its clients anew once closed
        throw new IllegalStateException("SlipstreamFileIO's clients are closed");
      }
    }
    S3Client s3;
    try {
      s3 = writer.client(path);
    } catch (RuntimeException e) {
      throw new IllegalArgumentException("SlipstreamFileIO cannot read " + path + ": S3FileIO cannot build the S3"
          + " client of the storage credential for prefix '" + prefixOf(path) + "': " + e.getMessage(), e);
    }
    if (s3 == defaultS3) {
      return defaultReader;
    }
    synchronized (this) {
      if (closed) {
        throw new IllegalStateException("SlipstreamFileIO's clients are closed");
      }
      Slipstream reader = prefixReaders.get(s3);
      if (reader == null) {
        if (prefixReaders.size() >= credentials.size()) {
          // S3FileIO keeps one client per prefix; more would mean it made new ones, each a client we'd keep.
          throw new IllegalStateException("S3FileIO returned more S3 clients than the " + credentials.size()
              + " storage credentials it was given");
        }
        reader = Slipstream.builder().config(config).s3Client(s3).accessPoints(accessPoints(propertiesOf(path)))
            .build();
        prefixReaders.put(s3, reader);
      }
      return reader;
    }
  }

  /** The longest credential prefix {@code path} starts with, as S3FileIO matches them: for messages only. */
  private String prefixOf(String path) {
    StorageCredential c = credentialOf(path);
    return c == null ? null : c.prefix();
  }

  /** The storage credential of the longest prefix {@code path} starts with, as S3FileIO matches them; null if none. */
  private StorageCredential credentialOf(String path) {
    StorageCredential best = null;
    for (StorageCredential c : credentials) {
      if (path.startsWith(c.prefix()) && (best == null || c.prefix().length() > best.prefix().length())) {
        best = c;
      }
    }
    return best;
  }

  /** The properties S3FileIO's client for {@code path} is configured from: the catalog's, its credential's config over them. */
  private Map<String, String> propertiesOf(String path) {
    StorageCredential c = credentialOf(path);
    if (c == null) {
      return properties;
    }
    Map<String, String> merged = new java.util.HashMap<>(properties);
    merged.putAll(c.config());
    return merged;
  }

  /** Tells every Slipstream client built so far that {@code object} changed. */
  void changed(S3Location object) {
    readers().forEach(r -> r.changed(object));
  }

  /** Tells every Slipstream client built so far that the objects under {@code prefix} of {@code bucket} changed. */
  void changed(String bucket, String prefix) {
    readers().forEach(r -> r.changed(bucket, prefix));
  }

  private synchronized List<Slipstream> readers() {
    List<Slipstream> all = new ArrayList<>(prefixReaders.size() + 1);
    all.add(defaultReader);
    all.addAll(prefixReaders.values());
    return all;
  }

  /** Closes the Slipstream clients first (their streams and fetches end), then the S3FileIO and the S3 clients they used. */
  void close() {
    List<Slipstream> all;
    synchronized (this) {
      closed = true;
      all = readers();
    }
    try {
      RuntimeException failed = null;
      for (Slipstream r : all) {
        try {
          r.close();
        } catch (RuntimeException e) {
          if (failed == null) {
            failed = e;
          } else {
            failed.addSuppressed(e);
          }
        }
      }
      if (failed != null) {
        throw failed;
      }
    } finally {
      writer.close();
    }
  }
}
