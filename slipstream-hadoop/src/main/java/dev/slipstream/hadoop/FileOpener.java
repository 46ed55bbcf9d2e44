/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.hadoop;

import dev.slipstream.Counter;
import dev.slipstream.ObjectRef;
import dev.slipstream.OpenOptions;
import dev.slipstream.S3Clients;
import dev.slipstream.S3Location;
import dev.slipstream.Slipstream;
import dev.slipstream.SlipstreamInputStream;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import org.apache.hadoop.fs.EtagSource;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.s3a.S3AFileStatus;
import org.apache.hadoop.util.functional.CallableRaisingIOE;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.services.s3.model.HeadObjectResponse;

/**
 * Opens a file of the FileSystem as a Slipstream stream, with the length and version S3A's open would
 * read and as few requests as that allows. Where they come from is decided once per open, in this order:
 * the caller's file status (no request); a listing of this FileSystem within {@code list.reuse.ttl}, or
 * S3's answer to a read within {@code access.ttl} (no request; if the file changed since, its first
 * request finds out and it is opened again after a HEAD); S3A's own HEAD. Each becomes the core's
 * {@link OpenOptions}. Then the next files are fetched ahead when the evidence says they will be read
 * ({@link ListingMemory#openAheadAfter}), or when the caller declares them ({@link #readingInOrder},
 * {@link #hintNextFiles}).
 */
final class FileOpener {
  /** The FileSystem's logger: its messages keep the name they always had. */
  private static final Logger LOG = LoggerFactory.getLogger(HadoopConfig.LOGGER);

  /** S3A's own HEAD of a path: its auditing, retries, statistics and 404/403 translation. */
  @FunctionalInterface
  interface Head {
    HeadObjectResponse head(Path path) throws IOException;
  }

  private final Slipstream slipstream;
  private final String bucket;
  private final Function<Path, String> pathToKey;
  private final Head head;
  private final ListingMemory listings;
  private final MergedRanges vectoredReads;
  private final FileSystem.Statistics statistics;

  /**
   * @param pathToKey S3A's key of a qualified path of {@code bucket}
   * @param statistics the FileSystem's, where every open and every byte read is counted
   */
  FileOpener(Slipstream slipstream, String bucket, Function<Path, String> pathToKey, Head head,
      ListingMemory listings, MergedRanges vectoredReads, FileSystem.Statistics statistics) {
    this.slipstream = slipstream;
    this.bucket = bucket;
    this.pathToKey = pathToKey;
    this.head = head;
    this.listings = listings;
    this.vectoredReads = vectoredReads;
    this.statistics = statistics;
  }

  /**
   * Opens the qualified {@code path}, with the length and ETag of {@code status} when the caller gave
   * one (else null), read as {@code options} say.
   */
  FSDataInputStream open(Path path, FileStatus status, OpenFileOptions options) throws IOException {
    String key = pathToKey.apply(path);
    long length = options.length();
    String etag = null;
    String versionId = null;
    if (status != null) {
      if (status.isDirectory()) {
        throw new FileNotFoundException("Can't open " + path + " because it is a directory");
      }
      length = status.getLen();
      // S3AFileStatus from getFileStatus/listStatus, S3ALocatedFileStatus from listFiles: both carry it.
      if (status instanceof EtagSource e && e.getEtag() != null && !e.getEtag().isBlank()) {
        etag = e.getEtag();
      }
      if (status instanceof S3AFileStatus s && s.getVersionId() != null && !s.getVersionId().isBlank()) {
        versionId = s.getVersionId(); // getFileStatus's, from its HEAD; a listing's statuses carry none
      }
    }
    if (key.isEmpty()) {
      throw new FileNotFoundException("Can't open " + path + " because it is a directory");
    }
    S3Location location = new S3Location(bucket, key);
    SlipstreamInputStream in;
    SlipstreamFSInputStream.Reopen reopen = null;
    ObjectRef listed = length < 0 ? listings.listedRecently(location) : null;
    ObjectRef answered = length < 0 && listed == null ? slipstream.recentVersion(location) : null;
    if (answered != null) {
      slipstream.statistics().increment(Counter.OPENS_FROM_ANSWER);
      listed = answered;
    } else if (listed != null) {
      slipstream.statistics().increment(Counter.OPENS_FROM_LISTING);
    }
    if (listed != null) {
      // No HEAD: a listing of this FileSystem, or S3's answer to a read of it within access.ttl, gave the
      // length and version moments ago. If the file changed since, its first request finds out (S3
      // refuses that version) and it is opened again after a HEAD, so that it is read in its current
      // version as S3A's open would have. Bytes this client cached of that version and served with no
      // request are the version it last saw (rule 8).

      in = slipstream.open(location, openOptions(listed.length(), listed.etag(), false, options));
      reopen = () -> {
        slipstream.statistics().increment(Counter.OPENS_FROM_LISTING_CHANGED);
        return openAfterHead(path, key, location, options);
      };
    } else if (length < 0) {
      in = openAfterHead(path, key, location, options);
    } else {
      in = slipstream.open(location, openOptions(length, etag, false, options).withVersionId(versionId));
    }
    SlipstreamFSInputStream stream = new SlipstreamFSInputStream(in, reopen, statistics, vectoredReads);
    // A footer's stream, where this FileSystem's readers open the file again for its data: kept for that open.
    stream.closeWith(read -> {
      if (stream.startedInTail() && listings.reopensAfterTail()) {
        slipstream.closeForReopen(read);
      } else {
        read.close();
      }
    });
    // After the open, which took this file's prepared block or stream: the next files, if the evidence says so.
    ListingMemory.Next next = listings.openAheadAfter(location, stream);
    if (next.fromTheEnd() && !next.files().isEmpty()) {
      slipstream.hintNextFromTheEnd(next.files(), options.policy(), in);
    } else {
      hintNext(next.files());
    }
    statistics.incrementReadOps(1);
    return new FSDataInputStream(stream);
  }

  /**
   * {@code openFile}'s future: the stream {@code open} returns, or its failure. Opening is a HEAD at
   * most: done on the caller's thread, rather than on another pool.
   */
  static CompletableFuture<FSDataInputStream> completed(CallableRaisingIOE<FSDataInputStream> open) {
    CompletableFuture<FSDataInputStream> result = new CompletableFuture<>();
    try {
      result.complete(open.apply());
    } catch (IOException | RuntimeException e) {
      result.completeExceptionally(e);
    }
    return result;
  }

  /** Opens {@code location} after S3A's own HEAD of it: the length and version S3 has now. */
  private SlipstreamInputStream openAfterHead(Path path, String key, S3Location location, OpenFileOptions options)
      throws IOException {
    long length = -1;
    String etag = null;
    boolean fromStore = false;
    HeadObjectResponse response;
    try {
      response = head.head(path);
    } catch (NullPointerException e) {
      // S3A's HEAD unboxes Content-Length, which some S3-compatible servers leave out: left to
      // Slipstream's own open below, which takes the length from a 1-byte ranged GET or fails with an
      // IOException naming the missing header.
      LOG.debug("HEAD {} by S3A failed ({}); Slipstream's open makes its own", path, e.toString());
      response = null;
    }
    if (key.endsWith("/")) {
      throw new FileNotFoundException("Can't open " + path + " because it is a directory");
    }
    if (response != null && response.contentLength() != null) {
      length = response.contentLength();
      etag = response.eTag();
      // S3 answered this open, with the credentials Slipstream reads with; for an object under a KMS key a
      // HEAD proves no GET (no kms:Decrypt asked), so cached bytes then wait for a GET's answer.
      fromStore = S3Clients.headProvesRead(response);
    }
    return slipstream.open(location, openOptions(length, etag, fromStore, options)
        .withVersionId(response == null ? null : response.versionId()));
  }

  private static OpenOptions openOptions(long length, String etag, boolean fromStore, OpenFileOptions options) {
    return OpenOptions.NONE.withLength(length).withEtag(etag)
        .withPolicy(options.policy()).withSplitEnd(options.splitEnd()).withFromStore(fromStore);
  }

  /** The caller will read {@code files} in this order: see {@code SlipstreamS3AFileSystem.readingInOrder}. */
  void readingInOrder(List<? extends FileStatus> files) {
    hintNext(listings.declare(files));
  }

  /** The caller will open {@code next} soon, nearest first. */
  void hintNextFiles(List<? extends FileStatus> next) {
    hintNext(listings.refs(next));
  }

  private void hintNext(List<ObjectRef> refs) {
    if (!refs.isEmpty()) {
      slipstream.hintNext(refs);
    }
  }
}
