/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.hadoop;

import dev.slipstream.ObjectRef;
import dev.slipstream.S3Location;
import java.io.IOException;
import java.util.List;
import java.util.function.Function;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.RemoteIterator;

/**
 * What a FileSystem's listings tell its later calls: the order files were listed in, which open-ahead
 * follows once a thread reads them in that order; the length and version each file was listed with,
 * which {@code open(path)} uses instead of a HEAD within {@code list.reuse.ttl}; and the orders callers
 * declared ({@code readingInOrder}). Bounded as {@link ListingOrder} is. Thread-safe.
 */
final class ListingMemory {
  private final ListingOrder listed;
  /** Orders the caller declared: followed without further evidence. */
  private final ListingOrder declared;
  /** Per thread, the last file opened: the evidence that decides whether a listing's order is followed. */
  private final ThreadLocal<Opened> lastOpened = new ThreadLocal<>();
  private final int openAheadFiles;
  /** How long a listed version stands in for a HEAD; 0: never. */
  private final long versionTtlNanos;

  /**
   * @param toRef a listed status as an object reference, or null for what cannot be opened (directories,
   *     other buckets)
   * @param versionTtlNanos how long a listed file's length and version stand in for a HEAD (0: never)
   */
  ListingMemory(Function<FileStatus, ObjectRef> toRef, int openAheadFiles, long versionTtlNanos) {
    this.listed = new ListingOrder(ListingOrder.DEFAULT_CAPACITY, toRef);
    this.declared = new ListingOrder(ListingOrder.DEFAULT_CAPACITY, toRef);
    this.openAheadFiles = openAheadFiles;
    this.versionTtlNanos = versionTtlNanos;
  }

  private boolean remembering() {
    return openAheadFiles > 0 || versionTtlNanos > 0;
  }

  /** A listing returned whole: its files remembered in their order. */
  FileStatus[] remember(FileStatus[] statuses) {
    if (statuses != null && remembering()) {
      listed.listed(statuses);
    }
    return statuses;
  }

  /** As {@link #remember(FileStatus[])}, for each status as the iterator hands it out. */
  <T extends FileStatus> RemoteIterator<T> remember(RemoteIterator<T> it) {
    if (!remembering()) {
      return it;
    }
    ListingOrder.Listing order = listed.newListing();
    return new RemoteIterator<T>() {
      @Override
      public boolean hasNext() throws IOException {
        return it.hasNext();
      }

      @Override
      public T next() throws IOException {
        T status = it.next();
        order.listed(status);
        return status;
      }
    };
  }

  /**
   * The file at {@code location} as a listing handed it out within the TTL (and no change through the
   * FileSystem since), if that listing gave its ETag; else null.
   */
  ObjectRef listedRecently(S3Location location) {
    if (versionTtlNanos <= 0 || location.key().endsWith("/")) {
      return null;
    }
    ObjectRef ref = listed.listedWithin(location, versionTtlNanos);
    return ref == null || ref.etag() == null ? null : ref;
  }

  /** The FileSystem changed {@code key} of {@code bucket} and what is under it: no listing of before says what they are. */
  void forgetUnder(String bucket, String key) {
    listed.forgetUnder(bucket, key);
  }

  /** The caller will read {@code files} in this order (its reading order for open-ahead). */
  void declare(FileStatus[] files) {
    declared.listed(files);
  }

  /**
   * The files to open ahead now that {@code location} was opened on this thread: the next ones of an
   * order the caller declared; or the next ones of a listing, but only if this thread's previous file
   * was the one listed just before and was read from its first byte. A reader that starts at the
   * footer (Parquet, ORC), or opens files in another order (Spark's tasks), gets none: its first bytes
   * are not what it reads.
   */
  List<ObjectRef> openAheadAfter(S3Location location, SlipstreamFSInputStream opened) {
    int n = openAheadFiles;
    if (n <= 0) {
      return List.of();
    }
    Opened previous = lastOpened.get();
    lastOpened.set(new Opened(location, opened));
    List<ObjectRef> next = declared.after(location, n);
    if (!next.isEmpty()) {
      return next;
    }
    if (previous == null || !previous.stream().startedAtFirstByte()) {
      return List.of();
    }
    List<ObjectRef> following = listed.after(previous.location(), 1);
    if (following.isEmpty() || !following.get(0).location().equals(location)) {
      return List.of();
    }
    return listed.after(location, n);
  }

  /** Tests: a listing, as every listing call of the FileSystem makes one. */
  void listed(FileStatus[] statuses) {
    listed.listed(statuses);
  }

  /** A file opened, and its stream (which tells where its first read started). */
  private record Opened(S3Location location, SlipstreamFSInputStream stream) {}
}
