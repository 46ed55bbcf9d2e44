/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream;

/**
 * S3 Express One Zone's directory buckets, told by their name: AWS reserves the suffix {@code --x-s3}
 * for them ({@code logs--usw2-az1--x-s3}), and the AWS SDK and Hadoop's S3A recognise them by it.
 *
 * <p>Their listings keep other rules than a general-purpose bucket's (ListObjectsV2 as AWS documents it
 * for them): keys come back in no particular order, {@code StartAfter} is refused, a prefix must end in
 * {@code /}, and {@code /} is the only delimiter. So what a {@link Lister} builds on, key order, does not
 * hold there; see {@link Lister} for what it does with them.
 */
public final class DirectoryBuckets {
  /** The suffix AWS reserves for directory buckets' names. */
  public static final String SUFFIX = "--x-s3";

  private DirectoryBuckets() {}

  /** Whether {@code bucket} names a directory bucket. */
  public static boolean isDirectoryBucket(String bucket) {
    return bucket != null && bucket.endsWith(SUFFIX);
  }
}
