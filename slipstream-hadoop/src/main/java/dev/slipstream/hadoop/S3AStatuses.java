/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.hadoop;

import dev.slipstream.ListEntry;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.LocatedFileStatus;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.PathFilter;
import org.apache.hadoop.fs.RemoteIterator;
import org.apache.hadoop.fs.s3a.S3AFileStatus;
import org.apache.hadoop.fs.s3a.S3ALocatedFileStatus;
import org.apache.hadoop.fs.s3a.Tristate;
import org.apache.hadoop.util.functional.RemoteIterators;

/**
 * The one place where Slipstream's listings (the flat listing, the flat glob, and the directories a
 * glob's listing answers later) make S3A's statuses from listed keys: {@link S3AFileStatus} for a file
 * (size, modification time, ETag, so that {@code openFile().withFileStatus(status)} makes no HEAD) and
 * for a directory, as S3A's own listings make them, and {@link S3ALocatedFileStatus} with S3A's block
 * locations. S3A's owner and block size ({@code fs.s3a.block.size}) are read once per listing call:
 * take one instance ({@link #of}) when a listing starts.
 */
final class S3AStatuses {
  /** The suffix of the old S3N directory markers: such a key is no file, and S3A lists nothing for it. */
  static final String S3N_FOLDER_SUFFIX = "_$folder$";

  private final ListingCallbacks fs;
  private final long blockSize;
  private final String owner;

  private S3AStatuses(ListingCallbacks fs) {
    this.fs = fs;
    this.blockSize = fs.blockSize();
    this.owner = fs.owner();
  }

  /** Statuses for one listing call, with the FileSystem's owner and block size as they are now. */
  static S3AStatuses of(ListingCallbacks fs) {
    return new S3AStatuses(fs);
  }

  /** The listed file {@code e}, at the qualified path of its key. */
  S3AFileStatus file(ListEntry e) {
    return file(e, fs.keyToPath(e.key()));
  }

  /** The listed file {@code e}, at {@code path} (which the caller has checked to name its key). */
  S3AFileStatus file(ListEntry e, Path path) {
    long modified = e.lastModified() == null ? 0 : e.lastModified().toEpochMilli();
    return new S3AFileStatus(e.size(), modified, path, blockSize, owner, e.etag(), null);
  }

  /** The directory whose key (without its trailing slash) is {@code key}, at its qualified path. */
  S3AFileStatus directory(String key) {
    return directory(fs.keyToPath(key));
  }

  /** A directory at {@code path}: known not to be empty, as S3A says of a directory a listing found. */
  S3AFileStatus directory(Path path) {
    return new S3AFileStatus(Tristate.FALSE, path, owner);
  }

  /** {@code status} with S3A's block locations for a file; a directory has none. */
  S3ALocatedFileStatus located(S3AFileStatus status) throws IOException {
    return new S3ALocatedFileStatus(status,
        status.isFile() ? fs.blockLocations(status) : null);
  }

  /**
   * A directory's entries as S3A's {@code listStatus} gives them for a directory listed in one page:
   * its files (in key order), then its subdirectories (keys without the trailing slash, in S3's order).
   */
  FileStatus[] directoryListing(List<ListEntry> files, List<String> dirs) {
    List<FileStatus> out = new ArrayList<>(files.size() + dirs.size());
    for (ListEntry e : files) {
      out.add(file(e));
    }
    for (String dir : dirs) {
      out.add(directory(dir));
    }
    return out.toArray(new FileStatus[0]);
  }

  /** As {@link #directoryListing}, as S3A's {@code listLocatedStatus} gives it: located, then filtered. */
  RemoteIterator<LocatedFileStatus> locatedListing(List<ListEntry> files, List<String> dirs, PathFilter filter)
      throws IOException {
    FileStatus[] statuses = directoryListing(files, dirs);
    List<LocatedFileStatus> out = new ArrayList<>(statuses.length);
    for (FileStatus s : statuses) {
      if (filter.accept(s.getPath())) {
        out.add(located((S3AFileStatus) s));
      }
    }
    return RemoteIterators.remoteIteratorFromIterable(out);
  }
}
