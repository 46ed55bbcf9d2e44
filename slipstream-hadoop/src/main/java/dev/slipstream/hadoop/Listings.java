/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.hadoop;

import dev.slipstream.DirectoryBuckets;
import dev.slipstream.Lister;
import dev.slipstream.Slipstream;
import dev.slipstream.SlipstreamConfig;
import java.io.IOException;
import java.nio.file.AccessDeniedException;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.LocatedFileStatus;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.PathFilter;
import org.apache.hadoop.fs.RemoteIterator;
import org.apache.hadoop.util.functional.CallableRaisingIOE;
import org.apache.hadoop.util.functional.RemoteIterators;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The FileSystem's listing calls, and which listing answers each: one of Slipstream's flat listings
 * ({@link FlatListing} for split computation's many directories, {@link FlatGlob} for a glob), a flat
 * listing kept for the calls that follow one ({@link ListingMemory#heldOrSiblings}), or S3A's own, which
 * the FileSystem hands in as the call to make ({@code s3a}). Every listing returned whole or handed out
 * is remembered ({@link ListingMemory#remember}), judged by the writes through the FileSystem since the
 * call began; a glob's result is not (Globber's, not a listing).
 *
 * <p>Flat listings go through S3A's client too, each request asking for {@code fs.s3a.paging.maximum}
 * keys (at most 1,000, S3's cap). Where a flat listing cannot list as S3A would, every listing is S3A's
 * ({@link #whyS3AsListings}): with client-side encryption (sizes differ from the objects'), a
 * requester-pays bucket, ListObjects v1 ({@code fs.s3a.list.version=1}: the store may know no other, and
 * Slipstream lists with v2 only), or a directory bucket (S3 Express One Zone: its listings come in no key
 * order and take no {@code StartAfter}, on which the flat listings are built). A flat listing S3
 * refuses (403) is S3A's too: a policy may grant listing prefixes S3A lists where it does not grant this
 * one's ({@code s3:prefix} conditions).
 *
 * <p>{@code conf} is the FileSystem's own ({@code getConf()} after S3A's initialize), in which S3A has put
 * the bucket's {@code fs.s3a.bucket.NAME.*} settings in place of the general ones.
 */
final class Listings {
  /** The FileSystem's logger: its messages keep the name they always had. */
  private static final Logger LOG = LoggerFactory.getLogger(HadoopConfig.LOGGER);

  private final ListingCallbacks fs;
  /** Null when off: see {@link #whyS3AsListings}. */
  private final FlatListing flat;
  /** Null when off: as {@link #flat}, or {@code list.reuse.ttl=0}. */
  private final FlatGlob glob;
  private final ListingMemory memory;

  /** The listings of a FileSystem whose S3A settings are {@code conf}, reading with {@code slipstream}. */
  Listings(ListingCallbacks fs, Slipstream slipstream, SlipstreamConfig config, Configuration conf,
      boolean clientSideEncryption) {
    this.fs = fs;
    String why = whyS3AsListings(conf, fs.bucket(), clientSideEncryption);
    if (why != null) {
      LOG.debug("every listing of s3a://{} is S3A's: {}", fs.bucket(), why);
    }
    int pageKeys = Math.min(Lister.MAX_PAGE_KEYS, Math.max(1, conf.getInt("fs.s3a.paging.maximum", 5000)));
    Lister lister = slipstream.lister().withPageKeys(pageKeys);
    this.flat = why != null ? null : new FlatListing(fs, lister);
    // Listed versions stand in for HEADs only where listed sizes are the objects' (no client-side encryption).
    long reuseTtl = flat != null ? config.listReuseTtl().toNanos() : 0;
    ListingReuse reuse = null;
    if (reuseTtl > 0) {
      reuse = new ListingReuse(reuseTtl, pageKeys, FlatGlob.MAX_KEYS);
    }
    this.glob = reuse == null ? null : new FlatGlob(fs, lister, reuse);
    this.memory = new ListingMemory(fs, config.openAheadFiles(), reuseTtl, glob, reuse, config.listParallelism(),
        slipstream.writes(), slipstream::changed);
  }

  /**
   * Why every listing of {@code bucket} must be S3A's own with {@code conf}, or null if Slipstream's flat
   * listings may serve.
   */
  static String whyS3AsListings(Configuration conf, String bucket, boolean clientSideEncryption) {
    if (clientSideEncryption) {
      return "client-side encryption is on: listed sizes are not the objects'";
    }
    if (conf.getBoolean("fs.s3a.requester.pays.enabled", false)) {
      return "fs.s3a.requester.pays.enabled is set";
    }
    if (conf.getInt("fs.s3a.list.version", 2) == 1) {
      return "fs.s3a.list.version is 1: the store is listed with ListObjects v1 only";
    }
    if (DirectoryBuckets.isDirectoryBucket(bucket)) {
      return "a directory bucket (S3 Express One Zone) lists in no key order and takes no StartAfter";
    }
    return null;
  }

  /** {@code listStatus(Path[], PathFilter)}: the flat listing of the paths' parent, else {@code s3a}. */
  FileStatus[] listStatus(Path[] files, PathFilter filter, CallableRaisingIOE<FileStatus[]> s3a) throws IOException {
    long sentAt = memory.generation();
    FileStatus[] result = null;
    if (flat != null) {
      try {
        result = flat.listStatus(files, filter);
      } catch (AccessDeniedException e) {
        // A policy may grant listing each directory's prefix and not their parent's (s3:prefix): S3A's
        // listing of one directory after another, as S3A alone would have made.
        LOG.debug("flat listing of the parent of {} paths refused, left to S3A: {}", files.length, e.getMessage());
      }
    }
    return memory.remember(result != null ? result : s3a.apply(), sentAt);
  }

  /** {@code listFiles}: recursive, a flat listing cut into parallel key ranges; else {@code s3a}. */
  RemoteIterator<LocatedFileStatus> listFiles(Path f, boolean recursive,
      CallableRaisingIOE<RemoteIterator<LocatedFileStatus>> s3a) throws IOException {
    long sentAt = memory.generation();
    RemoteIterator<LocatedFileStatus> it = recursive && flat != null ? flat.listFilesRecursive(fs.qualify(f)) : null;
    return memory.remember(it != null ? it : s3a.apply(), sentAt);
  }

  /** {@code globStatus}: the flat glob's answer, else {@code s3a}. */
  FileStatus[] globStatus(Path pattern, PathFilter filter, CallableRaisingIOE<FileStatus[]> s3a)
      throws IOException {
    if (glob != null) {
      try {
        FileStatus[] result = glob.glob(pattern, filter);
        if (result != null) {
          return result;
        }
      } catch (AccessDeniedException e) {
        // As above: S3A's Globber lists level by level, prefixes a policy may grant where this one is not.
        LOG.debug("flat listing for glob {} refused, left to S3A: {}", pattern, e.getMessage());
      }
    }
    return s3a.apply();
  }

  /** {@code listStatus(Path)}: a kept flat listing of the directory, else {@code s3a}. */
  FileStatus[] listStatus(Path f, CallableRaisingIOE<FileStatus[]> s3a) throws IOException {
    long sentAt = memory.generation();
    ListingReuse.Held held = memory.heldOrSiblings(f);
    return memory.remember(held != null ? S3AStatuses.of(fs).directoryListing(held.files(), held.dirs())
        : s3a.apply(), sentAt);
  }

  /** {@code listLocatedStatus}: as {@link #listStatus(Path, CallableRaisingIOE)}. */
  RemoteIterator<LocatedFileStatus> listLocatedStatus(Path f, PathFilter filter,
      CallableRaisingIOE<RemoteIterator<LocatedFileStatus>> s3a) throws IOException {
    long sentAt = memory.generation();
    ListingReuse.Held held = memory.heldOrSiblings(f);
    return memory.remember(held != null ? S3AStatuses.of(fs).locatedListing(held.files(), held.dirs(), filter)
        : s3a.apply(), sentAt);
  }

  /** {@code listStatusIterator}: as {@link #listStatus(Path, CallableRaisingIOE)}. */
  RemoteIterator<FileStatus> listStatusIterator(Path f, CallableRaisingIOE<RemoteIterator<FileStatus>> s3a)
      throws IOException {
    long sentAt = memory.generation();
    ListingReuse.Held held = memory.heldOrSiblings(f);
    return memory.remember(held != null
        ? RemoteIterators.remoteIteratorFromArray(S3AStatuses.of(fs).directoryListing(held.files(), held.dirs()))
        : s3a.apply(), sentAt);
  }

  /** What the listings told: for opens, open-ahead, and the writes that make it untrue. */
  ListingMemory memory() {
    return memory;
  }

  /** Whether Slipstream's flat listings serve this FileSystem (else every listing is S3A's), for tests. */
  boolean flatListings() {
    return flat != null;
  }

  /** The flat glob, or null when off ({@code list.reuse.ttl=0}, or as {@link #whyS3AsListings} says). */
  FlatGlob flatGlob() {
    return glob;
  }
}
