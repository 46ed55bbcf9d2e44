/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */

/**
 * Slipstream for Apache Iceberg: {@link dev.slipstream.iceberg.SlipstreamFileIO}, named in a catalog's
 * {@code io-impl}, reads a table's files through Slipstream.
 *
 * <p>Why a FileIO: Iceberg's catalogs read data files, manifests and metadata through their own
 * {@code FileIO} (usually Iceberg's {@code S3FileIO}), not through a Hadoop FileSystem, so
 * {@code fs.s3a.impl} never reaches an Iceberg table. This FileIO gives those reads Slipstream's read path
 * (blocks, prefetch, the Parquet footer plan, caches, retries) and leaves everything else to
 * {@code S3FileIO}: writes, deletes and listings are S3FileIO's, configured from the same catalog
 * properties, so there is no S3 write path here.
 *
 * <p>How the parts talk:
 * <pre>
 *   SlipstreamFileIO      the catalog's FileIO
 *     FileIOClients       one S3FileIO for writes, deletes and listings, and a Slipstream client for
 *                         reads over each of the S3FileIO's own S3 clients (the catalog properties', and
 *                         one per storage credential's prefix): one identity and route for both
 *     SharedClients       the pairs deserialized copies share, one per JVM, properties and storage
 *                         credentials, held by
 *                         leases (copies, open streams) and closed a minute after the last one ends
 *     CatalogProperties   catalog properties (slipstream.*, S3FileIO's SSE-C key) to a SlipstreamConfig;
 *                         Slipstream's own client keys refused, as the S3 client is S3FileIO's
 *     ReadMetrics         bytes and reads into Iceberg's metrics (Hadoop's FileSystem.Statistics)
 *     SlipstreamInputFile one file: its length as given (no HEAD), or learnt once (from the first GET of a
 *                         file read whole, else a HEAD); its read policy
 *       FileKind          which policy a file's name calls for: metadata whole, Parquet columnar
 *       IcebergInputStream  Iceberg's SeekableInputStream and RangeReadable over a Slipstream stream
 *     ForgettingOutputFile  S3FileIO's output file; a write makes the Slipstream client forget its answers
 * </pre>
 * Only Slipstream's public API ({@code dev.slipstream}) is used, as by every module outside the core.
 */
package dev.slipstream.iceberg;
