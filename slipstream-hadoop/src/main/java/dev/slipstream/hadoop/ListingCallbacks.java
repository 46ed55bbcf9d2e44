/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.hadoop;

import java.io.IOException;
import java.net.URI;
import org.apache.hadoop.fs.BlockLocation;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.Path;

/**
 * What Slipstream's listings ask of the FileSystem they serve, and nothing more: S3A's mapping between
 * paths and keys, the few values S3A puts in every status, its own listing of one path, and where to
 * count requests. {@link FlatListing}, {@link FlatGlob}, {@link S3AStatuses} and {@link ListingMemory}
 * are given this, never the FileSystem: none of them knows which class calls it. The FileSystem's
 * answers are {@link S3AListingCallbacks}; a test may script its own.
 */
interface ListingCallbacks {
  /** The bucket the FileSystem reads. */
  String bucket();

  /** The FileSystem's URI ({@code s3a://bucket}): patterns and paths of other schemes or buckets are not its. */
  URI uri();

  /** {@code path} qualified as S3A qualifies it (its URI, its working directory). */
  Path qualify(Path path);

  /** The key S3A names a qualified path of the bucket by ({@code ""}: the root). */
  String pathToKey(Path path);

  /** The qualified path S3A gives the key {@code key} of the bucket. */
  Path keyToPath(String key);

  /** S3A's own {@code listStatus} of one path: its answer where a flat listing has none. */
  FileStatus[] s3aListStatus(Path path) throws IOException;

  /** Counts a flat listing's requests as read operations, as S3A counts its LIST calls. */
  void countListing(long listRequests);

  /** The block size S3A gives files ({@code fs.s3a.block.size}). */
  long blockSize();

  /** The owner S3A gives every status. */
  String owner();

  /** S3A's block locations of the file {@code status}. */
  BlockLocation[] blockLocations(FileStatus status) throws IOException;
}
