/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.iceberg;

import dev.slipstream.Slipstream;
import dev.slipstream.SlipstreamConfig;
import java.util.Map;
import org.apache.iceberg.aws.s3.S3FileIO;

/**
 * The two clients of one set of catalog properties: Slipstream for reads, S3FileIO for the rest, over
 * one S3 client (the S3FileIO's).
 *
 * <p>Two lifetimes. A FileIO that a catalog initialized owns its clients and closes them. A copy that
 * came over the wire (Iceberg serializes a table's FileIO into Spark tasks) takes the pair this JVM
 * shares among the copies of the same properties ({@link SharedClients}), which is closed once no copy,
 * file or stream uses it. So an executor has one Slipstream client per catalog configuration in use,
 * whose caches serve all its tasks, and none for credentials that rotated away.
 */
record FileIOClients(Slipstream reader, S3FileIO writer, ReadMetrics metrics) {
  /**
   * New clients, owned by the caller. Slipstream reads through the S3 client of the S3FileIO
   * ({@link S3FileIO#client()}), which Iceberg builds from all the catalog properties: its credentials
   * (static keys, {@code client.credentials-provider}, an assumed role, credentials a REST catalog vends
   * and refreshes), its region, endpoint and path style, its HTTP client ({@code http-client.*}: pool,
   * timeouts, proxy), remote signing, acceleration, dual-stack, cross-region access, or a whole
   * {@code client.factory}. So reads go as the same principal, to the same place, as writes; no second
   * client is built from a copy of those properties. The S3FileIO owns that client: Slipstream never
   * closes it, and is closed before it ({@link #close()}).
   *
   * @throws IllegalArgumentException naming the property whose value is invalid
   */
  static FileIOClients open(Map<String, String> properties) {
    SlipstreamConfig config = CatalogProperties.toConfig(properties); // first: a bad value fails before any client
    S3FileIO writer = new S3FileIO();
    writer.initialize(properties);
    try {
      Slipstream reader = Slipstream.builder().config(config).s3Client(s3Client(writer)).build();
      return new FileIOClients(reader, writer, ReadMetrics.from(properties));
    } catch (RuntimeException | Error e) {
      writer.close();
      throw e;
    }
  }

  /**
   * The S3FileIO's S3 client, built now: a catalog whose client settings cannot make one fails
   * {@code initialize}, before any read, and no read goes through another client instead.
   *
   * @throws IllegalArgumentException saying so, with Iceberg's reason (which names the class or value)
   */
  private static software.amazon.awssdk.services.s3.S3Client s3Client(S3FileIO writer) {
    try {
      return writer.client();
    } catch (RuntimeException e) {
      throw new IllegalArgumentException("SlipstreamFileIO reads through S3FileIO's S3 client, which cannot be built"
          + " from these catalog properties (client.*, s3.*, http-client.*): " + e.getMessage(), e);
    }
  }

  /** Closes Slipstream first (its streams and fetches end), then the S3FileIO and the S3 client both used. */
  void close() {
    try {
      reader.close();
    } finally {
      writer.close();
    }
  }
}
