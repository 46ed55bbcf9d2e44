/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */

/**
 * Slipstream for Hadoop: {@link dev.slipstream.hadoop.SlipstreamS3AFileSystem}, named in
 * {@code fs.s3a.impl}, keeps all of S3A and replaces its read path.
 *
 * <p>How it fits: S3A initializes as usual (credentials, endpoint, region, client); the FileSystem then
 * asks S3A for its configured S3 client and gives it to a Slipstream client, so every {@code fs.s3a.*}
 * setting applies to Slipstream's requests too. {@code open()} and {@code openFile()} use the length and
 * ETag from a file status when one is given (no HEAD), or S3A's own HEAD otherwise, and wrap Slipstream's
 * stream in {@link dev.slipstream.hadoop.SlipstreamFSInputStream}, which speaks Hadoop's stream interfaces
 * and counts bytes into {@code FileSystem.Statistics}, where Spark's input metrics come from.
 */
package dev.slipstream.hadoop;
