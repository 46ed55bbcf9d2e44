/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.hadoop;

import dev.slipstream.Counter;
import dev.slipstream.ListEntry;
import dev.slipstream.Lister;
import dev.slipstream.Listing;
import dev.slipstream.S3KeyOrder;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.LocatedFileStatus;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.PathFilter;
import org.apache.hadoop.fs.RemoteIterator;
import org.apache.hadoop.fs.s3a.S3AFileStatus;

/**
 * S3A's listing calls served by Slipstream's {@link Lister}, with S3A's results: the statuses S3A would
 * give (made by {@link S3AStatuses}: S3A's types, owner and block size, paths qualified by S3A itself,
 * the ETag of every file), and S3A's rules for directory markers (a key ending in "/" is a directory,
 * never a file; the marker of the directory listed is not an entry of it) and for the old S3N
 * {@code _$folder$} markers (skipped).
 *
 * <p>Whatever has no entry in the flat listing (a missing path, a file, a path that is both) is handed
 * back to S3A's own call, which gives its own answer: {@code FileNotFoundException}, the file's status,
 * or an empty directory. So only the common case, a directory with objects under it, is served here.
 */
final class FlatListing {
  private final ListingCallbacks fs;
  private final Lister lister;
  private final String bucket;

  FlatListing(ListingCallbacks fs, Lister lister) {
    this.fs = fs;
    this.lister = lister;
    this.bucket = fs.bucket();
  }

  /**
   * {@code listStatus(Path[], PathFilter)} with one merge-join listing of the directories' common
   * parent instead of one listing per directory. Results are in the order of {@code paths}, as
   * FileSystem's loop gives them; within a directory, files first, then subdirectories (S3A's order
   * for a directory of up to 1,000 entries). Null when the paths do not suit (fewer than two, the root,
   * duplicates, one under another): the caller then asks S3A.
   */
  FileStatus[] listStatus(Path[] paths, PathFilter filter) throws IOException {
    if (paths.length < 2) {
      return null;
    }
    Path[] qualified = new Path[paths.length];
    String[] dirs = new String[paths.length];
    for (int i = 0; i < paths.length; i++) {
      qualified[i] = fs.qualify(paths[i]);
      String key = fs.pathToKey(qualified[i]);
      if (key.isEmpty() || key.endsWith("/")) {
        return null;
      }
      dirs[i] = key + "/";
    }
    String[] sorted = dirs.clone();
    Arrays.sort(sorted, S3KeyOrder.COMPARATOR);
    for (int i = 1; i < sorted.length; i++) {
      if (sorted[i].startsWith(sorted[i - 1])) {
        return null; // a duplicate, or a directory under another: leave S3A's answer as it is
      }
    }
    Map<String, DirContents> found = new HashMap<>();
    S3AStatuses statuses = S3AStatuses.of(fs);
    try (Listing listing = lister.listDirectories(bucket, Arrays.asList(dirs), true)) {
      DirContents at = null;
      while (listing.hasNext()) {
        ListEntry e = listing.next();
        String key = e.key();
        if (at == null || !key.startsWith(at.dir)) {
          String dir = floor(sorted, key);
          at = found.computeIfAbsent(dir, DirContents::new);
        }
        String rest = key.substring(at.dir.length());
        if (rest.isEmpty()) {
          continue; // the directory's own marker: it exists, and is no entry of itself
        }
        int slash = rest.indexOf('/');
        if (slash >= 0) {
          String child = rest.substring(0, slash);
          if (!child.isEmpty() && !child.equals(at.lastChild)) {
            at.lastChild = child;
            at.dirs.add(statuses.directory(at.dir + child));
          }
        } else if (!key.endsWith(S3AStatuses.S3N_FOLDER_SUFFIX)) {
          at.files.add(statuses.file(e));
        }
      }
      fs.countListing(listing.statistics().get(Counter.LIST_REQUESTS));
    }
    List<FileStatus> out = new ArrayList<>();
    for (int i = 0; i < paths.length; i++) {
      DirContents c = found.get(dirs[i]);
      if (c == null) {
        // nothing under it: missing, a file, or an empty directory without marker; S3A decides
        for (FileStatus s : fs.s3aListStatus(qualified[i])) {
          if (filter.accept(s.getPath())) {
            out.add(s);
          }
        }
        continue;
      }
      for (FileStatus s : c.files) {
        if (filter.accept(s.getPath())) {
          out.add(s);
        }
      }
      for (FileStatus s : c.dirs) {
        if (filter.accept(s.getPath())) {
          out.add(s);
        }
      }
    }
    return out.toArray(new FileStatus[0]);
  }

  /** The directory of {@code sorted} (no one under another) that holds {@code key}. */
  private static String floor(String[] sorted, String key) {
    int lo = 0;
    int hi = sorted.length - 1;
    String found = null;
    while (lo <= hi) {
      int mid = (lo + hi) >>> 1;
      if (S3KeyOrder.compare(sorted[mid], key) <= 0) {
        found = sorted[mid];
        lo = mid + 1;
      } else {
        hi = mid - 1;
      }
    }
    if (found == null || !key.startsWith(found)) {
      throw new IllegalStateException("listed key " + key + " is in none of the directories asked for");
    }
    return found;
  }

  /**
   * {@code listFiles(path, true)}: every file under the path, from one flat listing cut into parallel
   * key ranges. Null when nothing is under the path (a file, an empty or missing directory): the
   * caller then asks S3A, which knows which of those it is.
   */
  RemoteIterator<LocatedFileStatus> listFilesRecursive(Path path) throws IOException {
    String key = fs.pathToKey(path);
    String prefix = key.isEmpty() ? "" : key + "/";
    Listing listing = lister.list(bucket, prefix);
    FileIterator it = new FileIterator(listing, path);
    boolean any;
    try {
      any = it.hasNext();
    } catch (IOException | RuntimeException e) {
      listing.close();
      throw e;
    }
    if (!any) {
      listing.close();
      return null;
    }
    return it;
  }

  /** Files of a flat listing as S3A's {@code listFiles} gives them; directory markers skipped. */
  private final class FileIterator implements RemoteIterator<LocatedFileStatus>, java.io.Closeable {
    private final Listing listing;
    private final Path self;
    private final S3AStatuses statuses;
    private LocatedFileStatus next;
    private boolean counted;

    FileIterator(Listing listing, Path self) {
      this.listing = listing;
      this.self = self;
      this.statuses = S3AStatuses.of(fs);
    }

    @Override
    public boolean hasNext() throws IOException {
      while (next == null) {
        if (!listing.hasNext()) {
          if (!counted) {
            counted = true;
            fs.countListing(listing.statistics().get(Counter.LIST_REQUESTS));
          }
          return false;
        }
        ListEntry e = listing.next();
        String key = e.key();
        if (key.endsWith("/") || key.endsWith(S3AStatuses.S3N_FOLDER_SUFFIX)) {
          continue;
        }
        S3AFileStatus status = statuses.file(e);
        if (status.getPath().equals(self)) {
          continue;
        }
        next = statuses.located(status);
      }
      return true;
    }

    @Override
    public LocatedFileStatus next() throws IOException {
      if (!hasNext()) {
        throw new NoSuchElementException("no more files under " + self);
      }
      LocatedFileStatus n = next;
      next = null;
      return n;
    }

    @Override
    public void close() {
      listing.close();
    }
  }

  /** What the listing found in one directory of interest. */
  private static final class DirContents {
    final String dir;
    final List<FileStatus> files = new ArrayList<>();
    final List<FileStatus> dirs = new ArrayList<>();
    String lastChild;

    DirContents(String dir) {
      this.dir = dir;
    }
  }
}
