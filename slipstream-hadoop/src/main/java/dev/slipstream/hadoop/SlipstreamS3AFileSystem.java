/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.hadoop;

import dev.slipstream.Counter;
import dev.slipstream.ReadPolicy;
import dev.slipstream.ReadStatistics;
import dev.slipstream.Slipstream;
import dev.slipstream.SlipstreamConfig;
import java.io.IOException;
import java.net.URI;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.BulkDelete;
import org.apache.hadoop.fs.CreateFlag;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FSDataOutputStreamBuilder;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.LocatedFileStatus;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.PathFilter;
import org.apache.hadoop.fs.RemoteIterator;
import org.apache.hadoop.fs.impl.OpenFileParameters;
import org.apache.hadoop.fs.permission.FsPermission;
import org.apache.hadoop.fs.statistics.IOStatistics;
import org.apache.hadoop.fs.s3a.S3AFileSystem;
import org.apache.hadoop.fs.s3a.S3AUtils;
import org.apache.hadoop.fs.s3a.Statistic;
import org.apache.hadoop.fs.s3a.WriteOperationHelper;
import org.apache.hadoop.fs.store.audit.AuditSpan;
import org.apache.hadoop.util.Progressable;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * Hadoop's S3A FileSystem with Slipstream's read path. Name it in {@code fs.s3a.impl} (Spark:
 * {@code spark.hadoop.fs.s3a.impl}) and nothing else changes: every {@code fs.s3a.*} setting,
 * credentials, writes, committers and metadata stay S3A's own. {@link #open} and
 * {@link #openFileWithOptions} return a Slipstream stream whose GETs go through a client built from the
 * settings of the S3 client S3A configured ({@link S3AReadsClient}), and its HEADs through S3A's. Listing for split computation, {@link #listStatus(Path[], PathFilter)} over many
 * directories and {@link #listFiles(Path, boolean) listFiles(path, true)}, is served by Slipstream's
 * flat, parallel listings with S3A's results (see {@link FlatListing}), where S3A's settings and the store
 * allow it (not with ListObjects v1 or on a directory bucket: see {@link Listings}); every other listing
 * call is S3A's.
 *
 * <p>Slipstream's own settings are read from {@code fs.slipstream.*} (see docs/configuration.md); its
 * endpoint/region/credential keys are not used here, as S3A's apply.
 *
 * <p>This class only adapts: each call goes to the part that does it, {@link Listings} (which listing
 * answers, and what the listings told: {@link ListingMemory}), {@link FileOpener} (opening and
 * open-ahead) or {@link ChangesAfterWrites} (what a write makes untrue), or to S3A.
 */
public class SlipstreamS3AFileSystem extends S3AFileSystem {
  /** S3A's choice of input stream (Hadoop 3.5); unknown to, and ignored by, Hadoop 3.4. */
  static final String INPUT_STREAM_TYPE = "fs.s3a.input.stream.type";

  private SlipstreamConfig slipstreamConfig;
  private Slipstream slipstream;
  /** The client of the read path's GETs ({@link S3AReadsClient}); null: S3A's own. */
  private S3Client readsClient;
  private ReadPolicy defaultPolicy;
  private Listings listings;
  private FileOpener opener;
  private volatile IOStatistics ioStatistics;

  @Override
  public void initialize(URI name, Configuration conf) throws IOException {
    // Checked first: a bad fs.slipstream.* value must fail before S3A has started anything.
    this.slipstreamConfig = HadoopConfig.slipstreamConfig(conf);
    MergedRanges vectored = MergedRanges.of(S3AUtils.propagateBucketOptions(conf, name.getHost()));
    // S3A's own input stream is never used here; the classic one is the cheapest to set up (Hadoop
    // 3.5's default, the analytics stream, starts thread pools and caches of its own).
    Configuration s3aConf = new Configuration(conf);
    s3aConf.set(INPUT_STREAM_TYPE, "classic");
    super.initialize(name, s3aConf);
    // S3A's read-side settings, as S3A resolved them for this bucket: getConf(), not conf, where S3A's
    // initialize put the bucket's fs.s3a.bucket.NAME.* settings in place.
    this.slipstreamConfig = S3AReadSettings.applied(slipstreamConfig, getChangeDetectionPolicy());
    S3AReadSettings.sayReplaced(getConf());
    this.defaultPolicy = OpenFileOptions.policyFromFadvise(
        getConf().getTrimmed("fs.s3a.experimental.input.fadvise", ""));
    AuditSpan readSpan = createSpan(Statistic.INVOCATION_OPEN.getSymbol(), null, null);
    readSpan.deactivate(); // S3A activates a span it creates; this one is only for the read path's requests
    boolean clientSideEncryption = getS3EncryptionAlgorithm() != null
        && getS3EncryptionAlgorithm().name().startsWith("CSE");
    this.slipstreamConfig = HadoopConfig.withS3AsCustomerKey(slipstreamConfig, getEncryptionSecrets());
    S3Client s3a = getS3AInternals().getAmazonS3Client("slipstream read path");
    this.readsClient = S3AReadsClient.build(s3a, getConf(), getBucket(), clientSideEncryption, slipstreamConfig);
    Slipstream.Builder builder = Slipstream.builder().config(slipstreamConfig).s3Client(s3a)
        .requestScope(() -> inSpan(readSpan));
    if (readsClient != null) {
      builder.readsClient(readsClient);
    }
    this.slipstream = builder.build();
    this.listings = new Listings(new S3AListingCallbacks(this, statistics, super::listStatus), slipstream,
        slipstreamConfig, getConf(), clientSideEncryption);
    this.opener = new FileOpener(slipstream, getBucket(), this::pathToKey,
        path -> getS3AInternals().getObjectMetadata(path), listings.memory(),
        vectored, statistics);
    HadoopConfig.announce(getBucket(), slipstreamConfig);
  }

  /**
   * Activates {@code span} on this thread for one request, and returns what puts the thread's own span
   * back. S3A's auditor sees every request of this client: one made outside any span is logged as
   * such, at the cost of an exception built per request, and refused when
   * {@code fs.s3a.audit.reject.out.of.span.operations} is set. S3A's own streams read inside the span
   * of their open; Slipstream's fetch threads, shared by every stream, read inside this FileSystem's
   * read span, whose id S3A's audit log (the referrer header) then names.
   */
  private Runnable inSpan(AuditSpan span) {
    AuditSpan previous = getActiveAuditSpan();
    if (previous == span) {
      return () -> { };
    }
    span.activate();
    return previous != null && previous.isValidSpan() ? previous::activate : span::deactivate;
  }

  /** Counters of every stream this FileSystem opened. */
  public ReadStatistics getSlipstreamStatistics() {
    return slipstream.statistics();
  }

  /**
   * S3A's statistics, with the read side as Slipstream counts it: {@code stream_read_bytes},
   * {@code stream_read_total_bytes} (bytes fetched from S3), {@code stream_read_opened} (GETs) and every
   * {@code slipstream_*} counter of the streams this FileSystem opened, live. So
   * {@code fs.iostatistics.logging.level=info} shows them in a Spark or MapReduce log as S3A's would.
   */
  @Override
  public IOStatistics getIOStatistics() {
    IOStatistics s3a = super.getIOStatistics();
    if (slipstream == null || s3a == null) {
      return s3a;
    }
    IOStatistics merged = ioStatistics;
    if (merged == null) {
      merged = ReadIOStatistics.over(s3a, slipstream.statistics());
      ioStatistics = merged;
    }
    return merged;
  }

  /**
   * Bytes of block buffers the memory pool this FileSystem reads with holds (see {@link Slipstream#memoryHeld()});
   * 0 before initialize.
   */
  public long getSlipstreamMemoryHeld() {
    return slipstream == null ? 0 : slipstream.memoryHeld();
  }

  /** Whether the read path's GETs go through a client of this FileSystem's own ({@link S3AReadsClient}), not S3A's. */
  boolean readsThroughOwnClient() {
    return readsClient != null;
  }

  public SlipstreamConfig getSlipstreamConfig() {
    return slipstreamConfig;
  }

  /**
   * FileSystem lists each path in turn; this lists their common parent once, merge-joined against
   * the paths (FileInputFormat's pattern: thousands of partition directories). Results equal S3A's.
   */
  @Override
  public FileStatus[] listStatus(Path[] files, PathFilter filter) throws IOException {
    return listings.listStatus(files, filter, () -> super.listStatus(files, filter));
  }

  /** Recursive: one flat listing cut into parallel key ranges. Not recursive: S3A's own. */
  @Override
  public RemoteIterator<LocatedFileStatus> listFiles(Path f, boolean recursive) throws IOException {
    return listings.listFiles(f, recursive, () -> super.listFiles(f, recursive));
  }

  /**
   * Globber's answer from one flat listing of the pattern's literal prefix rather than a listing per
   * directory per level; the directories matched are then answered from it by {@link #listStatus(Path)}
   * and {@link #listLocatedStatus(Path, PathFilter)} for {@code list.reuse.ttl} (see {@link FlatGlob}).
   * Patterns it cannot serve exactly are S3A's. ({@code globStatus(Path)} comes here through S3A.)
   */
  @Override
  public FileStatus[] globStatus(Path pathPattern, PathFilter filter) throws IOException {
    return listings.globStatus(pathPattern, filter, () -> super.globStatus(pathPattern, filter));
  }

  /**
   * A directory a glob just listed, or one of a walk over sibling directories, is answered from a flat
   * listing, once; any other is S3A's.
   */
  @Override
  public FileStatus[] listStatus(Path f) throws IOException {
    return listings.listStatus(f, () -> super.listStatus(f));
  }

  @Override
  public RemoteIterator<LocatedFileStatus> listLocatedStatus(Path f, PathFilter filter) throws IOException {
    return listings.listLocatedStatus(f, filter, () -> super.listLocatedStatus(f, filter));
  }

  @Override
  public RemoteIterator<FileStatus> listStatusIterator(Path p) throws IOException {
    return listings.listStatusIterator(p, () -> super.listStatusIterator(p));
  }

  /**
   * A file a listing of this FileSystem handed out within {@code fs.slipstream.list.reuse.ttl}, with no
   * write through this FileSystem to it since the listing's first request went out: that listing's own
   * status (length, modification time, ETag, block size, owner), with no request (counted as
   * {@code statuses_from_listing}), as Parquet's {@code HadoopInputFile.fromPath} asks for each file a
   * Spark task reads. Anything else is S3A's {@code getFileStatus} (its HEAD, then its LIST): directories,
   * paths not listed, listings past the window, written since, or without ETags, and all of them with
   * {@code list.reuse.ttl=0} or where the listings are S3A's alone (see {@link Listings}). S3A's
   * {@code exists}, {@code isFile} and {@code isDirectory} probe S3 as before.
   */
  @Override
  public FileStatus getFileStatus(Path f) throws IOException {
    FileStatus listed = listings == null ? null : listings.memory().statusListedRecently(f);
    if (listed == null) {
      return super.getFileStatus(f);
    }
    slipstream.statistics().increment(Counter.STATUSES_FROM_LISTING);
    return listed;
  }

  /** Every write comes here, when it starts and when its effect may be seen: {@link ListingMemory#changed}. */
  private void changed(Path... paths) {
    if (listings != null) {
      listings.memory().changed(paths);
    }
  }

  @Override
  public FSDataOutputStream create(Path f, FsPermission permission, boolean overwrite, int bufferSize,
      short replication, long blockSize, Progressable progress) throws IOException {
    return ChangesAfterWrites.creating(
        () -> super.create(f, permission, overwrite, bufferSize, replication, blockSize, progress), f, this::changed);
  }

  @Override
  public FSDataOutputStream createNonRecursive(Path p, FsPermission permission, EnumSet<CreateFlag> flags,
      int bufferSize, short replication, long blockSize, Progressable progress) throws IOException {
    return ChangesAfterWrites.creating(() -> super.createNonRecursive(p, permission, flags, bufferSize,
        replication, blockSize, progress), p, this::changed);
  }

  @Override
  public FSDataOutputStreamBuilder createFile(Path path) {
    changed(path);
    return ChangesAfterWrites.closing(super.createFile(path), this, path, this::changed);
  }

  /** Also {@code moveFromLocalFile(src, dst)}, which copies with this and then deletes the local file. */
  @Override
  public void copyFromLocalFile(boolean delSrc, boolean overwrite, Path src, Path dst) throws IOException {
    ChangesAfterWrites.around(() -> {
      super.copyFromLocalFile(delSrc, overwrite, src, dst);
      return null;
    }, this::changed, dst);
  }

  @Override
  public BulkDelete createBulkDelete(Path path) throws IOException {
    return ChangesAfterWrites.deleting(super.createBulkDelete(path), this::changed);
  }

  /**
   * S3A's write operations, telling {@link #changed} of each upload they complete: every helper S3A and
   * its committers use is made here (see {@link CompletingWriteOperations}).
   */
  @Override
  public WriteOperationHelper createWriteOperationHelper(AuditSpan auditSpan) {
    return new CompletingWriteOperations(this, auditSpan, super.createWriteOperationHelper(auditSpan), this::changed);
  }

  @Override
  public boolean rename(Path src, Path dst) throws IOException {
    return ChangesAfterWrites.around(() -> super.rename(src, dst), this::changed, src, dst);
  }

  @Override
  public boolean delete(Path f, boolean recursive) throws IOException {
    return ChangesAfterWrites.around(() -> super.delete(f, recursive), this::changed, f);
  }

  @Override
  public boolean mkdirs(Path p, FsPermission permission) throws IOException {
    changed(p);
    return super.mkdirs(p, permission);
  }

  @Override
  public FSDataInputStream open(Path f, int bufferSize) throws IOException {
    Path path = qualify(f);
    return opener(path).open(path, null, OpenFileOptions.defaults(defaultPolicy));
  }

  @Override
  public CompletableFuture<FSDataInputStream> openFileWithOptions(Path rawPath, OpenFileParameters parameters)
      throws IOException {
    Path path = qualify(rawPath);
    // Invalid options fail here, in build(); a missing file fails in the future, as the contract says.
    OpenFileOptions options = OpenFileOptions.parse(path, parameters, defaultPolicy);
    return FileOpener.completed(() -> opener(path).open(path, parameters.getStatus(), options));
  }

  private FileOpener opener(Path path) throws IOException {
    if (opener == null) {
      throw new IOException("FileSystem not initialized (or closed): cannot open " + path);
    }
    return opener;
  }

  /**
   * Open-ahead for a caller that knows which files it will read, in this order (a task's split of small
   * files): the first block of the first {@code fs.slipstream.openahead.files} is fetched now, and
   * opening file {@code i} (with {@code open} or {@code openFile}) fetches the first blocks of the files
   * after it. Bytes are fetched ahead with free memory only; a file opened as another version than its
   * status names (or whose ETag is unknown at open) is read from S3 as usual, never from a prepared
   * block. Counted in {@link #getSlipstreamStatistics()} as {@code open_ahead_*}.
   */
  public void readingInOrder(List<? extends FileStatus> files) {
    opener.readingInOrder(files);
  }

  /**
   * Open-ahead: the caller will open {@code next} soon, nearest first. The first block of each (up to
   * {@code fs.slipstream.openahead.files}) is fetched now; see {@link #readingInOrder}.
   */
  public void hintNextFiles(List<? extends FileStatus> next) {
    opener.hintNextFiles(next);
  }

  /** The read policy of an open that names none ({@code fs.s3a.experimental.input.fadvise}), for tests. */
  ReadPolicy defaultPolicy() {
    return defaultPolicy;
  }

  /** This FileSystem's listings, for tests; null before initialize. */
  Listings listings() {
    return listings;
  }

  /** The core client this FileSystem reads with, for tests; null before initialize. */
  Slipstream slipstream() {
    return slipstream;
  }

  @Override
  public void close() throws IOException {
    try {
      if (slipstream != null) {
        // First: its open-ahead fetches and cache writes end while the S3 clients they use are open.
        slipstream.close();
      }
    } finally {
      try {
        if (readsClient != null) {
          readsClient.close();
        }
      } finally {
        super.close(); // closes S3A's S3 client
      }
    }
  }
}
