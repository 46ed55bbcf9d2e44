/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */

/**
 * Slipstream for Hadoop: {@link dev.slipstream.hadoop.SlipstreamS3AFileSystem}, named in
 * {@code fs.s3a.impl}, keeps all of S3A and replaces its read path.
 *
 * <p>How it fits: S3A initializes as usual (credentials, endpoint, region, client); the FileSystem then
 * asks S3A for its configured S3 client and gives it to a Slipstream client, so every {@code fs.s3a.*}
 * setting applies to Slipstream's requests too. The FileSystem itself only adapts: it assembles the
 * parts below once, in {@code initialize}, and hands each call to the part that does it, or to S3A.
 *
 * <p>Which class does what:
 * <ul>
 *   <li><b>Configuration.</b> {@link dev.slipstream.hadoop.HadoopConfig} reads {@code fs.slipstream.*};
 *       {@link dev.slipstream.hadoop.OpenFileOptions} parses {@code openFile()}'s options.</li>
 *   <li><b>Opening.</b> {@link dev.slipstream.hadoop.FileOpener} decides where an open's length and
 *       version come from (the caller's file status, a recent listing or read, else S3A's own HEAD),
 *       makes them the core's {@code OpenOptions}, and fetches the next files ahead. The stream is wrapped
 *       in {@link dev.slipstream.hadoop.SlipstreamFSInputStream}, which speaks Hadoop's stream interfaces
 *       (vectored reads through {@link dev.slipstream.hadoop.MergedRanges}) and counts bytes into
 *       {@code FileSystem.Statistics}, where Spark's input metrics come from;
 *       {@link dev.slipstream.hadoop.ReadIOStatistics} names the counters as IOStatistics.</li>
 *   <li><b>Listing.</b> {@link dev.slipstream.hadoop.Listings} decides which listing answers each
 *       listing call: {@link dev.slipstream.hadoop.FlatListing} (one flat listing for split computation's
 *       many directories), {@link dev.slipstream.hadoop.FlatGlob} (a glob from one flat listing), a flat
 *       listing kept for the calls that follow ({@link dev.slipstream.hadoop.ListingReuse}, and
 *       {@link dev.slipstream.hadoop.SiblingWalks} for walks over sibling directories), or S3A's own.
 *       {@link dev.slipstream.hadoop.S3AStatuses} turns listed keys into S3A's statuses.
 *       {@link dev.slipstream.hadoop.ListingMemory} keeps what listings told: their order
 *       ({@link dev.slipstream.hadoop.ListingOrder}, for open-ahead), listed versions (for opens without
 *       a HEAD), listed statuses (for {@code getFileStatus} without a HEAD) and the kept listings; it
 *       forgets what a write makes untrue.</li>
 *   <li><b>Writes.</b> They stay S3A's; {@link dev.slipstream.hadoop.ChangesAfterWrites} tells
 *       {@code ListingMemory} of each when it starts and when its effect may be seen (a stream's close,
 *       a bulk delete's page), and {@link dev.slipstream.hadoop.CompletingWriteOperations}, the write
 *       operations every S3A helper and committer gets, of each upload it completes and object it puts.</li>
 * </ul>
 *
 * <p>The listing classes never see the FileSystem: they are given a
 * {@link dev.slipstream.hadoop.ListingCallbacks}, the handful of things they ask of it (S3A's mapping
 * between paths and keys, its owner and block size, its own listing of a path, where to count requests),
 * which {@link dev.slipstream.hadoop.S3AListingCallbacks} answers from S3A. The opener likewise gets
 * functions (S3A's key of a path, S3A's HEAD), not the FileSystem. So every dependency points down from
 * the FileSystem, and none back up.
 */
package dev.slipstream.hadoop;
