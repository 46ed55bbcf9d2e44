/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.hadoop;

import java.io.IOException;
import java.net.URI;
import org.apache.hadoop.fs.BlockLocation;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.s3a.S3AFileSystem;

/**
 * {@link ListingCallbacks} answered by S3A: its public path and key mapping, owner and block size, and
 * the two things only the FileSystem subclass reaches, handed in when it is built: its
 * {@code FileSystem.Statistics} and S3A's own {@code listStatus} (the overridden one would answer from
 * kept listings).
 */
final class S3AListingCallbacks implements ListingCallbacks {
  /** S3A's {@code listStatus(Path)}, as the subclass calls it with {@code super}. */
  @FunctionalInterface
  interface DirectoryListing {
    FileStatus[] listStatus(Path path) throws IOException;
  }

  private final S3AFileSystem s3a;
  private final FileSystem.Statistics statistics;
  private final DirectoryListing s3aListStatus;

  S3AListingCallbacks(S3AFileSystem s3a, FileSystem.Statistics statistics, DirectoryListing s3aListStatus) {
    this.s3a = s3a;
    this.statistics = statistics;
    this.s3aListStatus = s3aListStatus;
  }

  @Override
  public String bucket() {
    return s3a.getBucket();
  }

  @Override
  public URI uri() {
    return s3a.getUri();
  }

  @Override
  public Path qualify(Path path) {
    return s3a.qualify(path);
  }

  @Override
  public String pathToKey(Path path) {
    return s3a.pathToKey(path);
  }

  @Override
  public Path keyToPath(String key) {
    return s3a.keyToQualifiedPath(key);
  }

  @Override
  public FileStatus[] s3aListStatus(Path path) throws IOException {
    return s3aListStatus.listStatus(path);
  }

  @Override
  public void countListing(long listRequests) {
    statistics.incrementReadOps((int) Math.min(Integer.MAX_VALUE, listRequests));
  }

  @Override
  public long blockSize() {
    return s3a.getDefaultBlockSize();
  }

  @Override
  public String owner() {
    return s3a.getUsername();
  }

  @Override
  public BlockLocation[] blockLocations(FileStatus status) throws IOException {
    return s3a.getFileBlockLocations(status, 0, status.getLen());
  }
}
