/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.hadoop;

import dev.slipstream.Counter;
import dev.slipstream.ObjectRef;
import dev.slipstream.OpenOptions;
import dev.slipstream.ReadPolicy;
import dev.slipstream.ReadStatistics;
import dev.slipstream.S3Location;
import dev.slipstream.Slipstream;
import dev.slipstream.SlipstreamConfig;
import dev.slipstream.SlipstreamInputStream;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.net.URI;
import java.nio.file.AccessDeniedException;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.BulkDelete;
import org.apache.hadoop.fs.CreateFlag;
import org.apache.hadoop.fs.EtagSource;
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
import org.apache.hadoop.fs.s3a.Statistic;
import org.apache.hadoop.fs.s3a.impl.S3AMultipartUploaderBuilder;
import org.apache.hadoop.fs.s3a.impl.StoreContext;
import org.apache.hadoop.fs.store.audit.AuditSpan;
import org.apache.hadoop.util.Progressable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.services.s3.model.HeadObjectResponse;

/**
 * Hadoop's S3A FileSystem with Slipstream's read path. Name it in {@code fs.s3a.impl} (Spark:
 * {@code spark.hadoop.fs.s3a.impl}) and nothing else changes: every {@code fs.s3a.*} setting,
 * credentials, writes, committers and metadata stay S3A's own. {@link #open} and
 * {@link #openFileWithOptions} return a Slipstream stream that reads through the S3 client S3A
 * configured. Listing for split computation, {@link #listStatus(Path[], PathFilter)} over many
 * directories and {@link #listFiles(Path, boolean) listFiles(path, true)}, is served by Slipstream's
 * flat, parallel listings with S3A's results (see {@link FlatListing}); every other listing call is S3A's.
 *
 * <p>Slipstream's own settings are read from {@code fs.slipstream.*} (see the README); its
 * endpoint/region/credential keys are not used here, as S3A's apply.
 */
public class SlipstreamS3AFileSystem extends S3AFileSystem {
  private static final Logger LOG = LoggerFactory.getLogger(SlipstreamS3AFileSystem.class);
  private static final AtomicBoolean ANNOUNCED = new AtomicBoolean();
  /** S3A's choice of input stream (Hadoop 3.5); unknown to, and ignored by, Hadoop 3.4. */
  static final String INPUT_STREAM_TYPE = "fs.s3a.input.stream.type";

  private SlipstreamConfig slipstreamConfig;
  private Slipstream slipstream;
  private VectoredReads vectoredReads;
  private ReadPolicy defaultPolicy;
  private FlatListing flatListing;
  /** What listings tell later calls: open-ahead's order, the versions open(path) uses instead of a HEAD. */
  private ListingMemory listings;
  private ListingReuse listingReuse;
  private FlatGlob flatGlob;
  /** Null when off, as {@link #flatGlob}. */
  private SiblingWalks siblingWalks;
  private volatile IOStatistics ioStatistics;
  /** S3A refuses a multipart uploader then: its own error. */
  private boolean clientSideEncryption;

  @Override
  public void initialize(URI name, Configuration conf) throws IOException {
    // Checked first: a bad fs.slipstream.* value must fail before S3A has started anything.
    this.slipstreamConfig = HadoopConfig.slipstreamConfig(conf);
    // S3A's own input stream is never used here; the classic one is the cheapest to set up (Hadoop
    // 3.5's default, the analytics stream, starts thread pools and caches of its own).
    Configuration s3aConf = new Configuration(conf);
    s3aConf.set(INPUT_STREAM_TYPE, "classic");
    super.initialize(name, s3aConf);
    this.defaultPolicy = OpenFileOptions.policyFromFadvise(conf.getTrimmed("fs.s3a.experimental.input.fadvise", ""));
    this.slipstream = Slipstream.builder()
        .config(slipstreamConfig)
        .s3Client(getS3AInternals().getAmazonS3Client("slipstream read path"))
        .build();
    this.vectoredReads = VectoredReads.shared(slipstreamConfig.fetchThreads());
    // Listings go through S3A's client too; S3A alone knows how to list with client-side encryption
    // (sizes differ from the objects') or requester-pays buckets, so those stay S3A's.
    boolean cse = getS3EncryptionAlgorithm() != null && getS3EncryptionAlgorithm().name().startsWith("CSE");
    boolean requesterPays = conf.getBoolean("fs.s3a.requester.pays.enabled", false);
    this.clientSideEncryption = cse;
    this.flatListing = cse || requesterPays ? null : new FlatListing(this, slipstream.lister(), getBucket());
    long reuseTtl = slipstreamConfig.listReuseTtl().toNanos();
    // Listed versions stand in for HEADs only where listed sizes are the objects' (no client-side encryption).
    this.listings = new ListingMemory(this::objectRef, slipstreamConfig.openAheadFiles(),
        flatListing != null ? reuseTtl : 0);
    if (flatListing != null && reuseTtl > 0) {
      int pageKeys = Math.min(1000, Math.max(1, conf.getInt("fs.s3a.paging.maximum", 5000)));
      this.listingReuse = new ListingReuse(reuseTtl, pageKeys, FlatGlob.MAX_KEYS);
      this.flatGlob = new FlatGlob(this, slipstream.lister(), getBucket(), listingReuse);
      this.siblingWalks = new SiblingWalks(reuseTtl, FlatGlob.MAX_KEYS);
    }
    if (ANNOUNCED.compareAndSet(false, true)) {
      LOG.info("Slipstream read path enabled for s3a:// (first bucket: {}): {} KiB blocks, up to {} prefetched,"
          + " {} MiB JVM-wide memory budget", getBucket(), slipstreamConfig.blockSize() >> 10,
          slipstreamConfig.prefetchBlocks(), slipstreamConfig.memoryMax() >> 20);
    }
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

  public SlipstreamConfig getSlipstreamConfig() {
    return slipstreamConfig;
  }

  /**
   * FileSystem lists each path in turn; this lists their common parent once, merge-joined against
   * the paths (FileInputFormat's pattern: thousands of partition directories). Results equal S3A's.
   */
  @Override
  public FileStatus[] listStatus(Path[] files, PathFilter filter) throws IOException {
    FlatListing flat = flatListing;
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
    return remember(result != null ? result : super.listStatus(files, filter));
  }

  /** Recursive: one flat listing cut into parallel key ranges. Not recursive: S3A's own. */
  @Override
  public RemoteIterator<LocatedFileStatus> listFiles(Path f, boolean recursive) throws IOException {
    FlatListing flat = flatListing;
    RemoteIterator<LocatedFileStatus> it = recursive && flat != null ? flat.listFilesRecursive(qualify(f)) : null;
    return remember(it != null ? it : super.listFiles(f, recursive));
  }

  /**
   * Globber's answer from one flat listing of the pattern's literal prefix rather than a listing per
   * directory per level; the directories matched are then answered from it by {@link #listStatus(Path)}
   * and {@link #listLocatedStatus(Path, PathFilter)} for {@code list.reuse.ttl} (see {@link FlatGlob}).
   * Patterns it cannot serve exactly are S3A's. ({@code globStatus(Path)} comes here through S3A.)
   */
  @Override
  public FileStatus[] globStatus(Path pathPattern, PathFilter filter) throws IOException {
    FlatGlob glob = flatGlob;
    if (glob != null) {
      try {
        FileStatus[] result = glob.glob(pathPattern, filter);
        if (result != null) {
          return result;
        }
      } catch (AccessDeniedException e) {
        // As above: S3A's Globber lists level by level, prefixes a policy may grant where this one is not.
        LOG.debug("flat listing for glob {} refused, left to S3A: {}", pathPattern, e.getMessage());
      }
    }
    return super.globStatus(pathPattern, filter);
  }

  /**
   * A directory a glob just listed, or one of a walk over sibling directories, is answered from a flat
   * listing, once; any other is S3A's.
   */
  @Override
  public FileStatus[] listStatus(Path f) throws IOException {
    ListingReuse.Held held = heldOrSiblings(f);
    return remember(held != null ? S3AStatuses.of(this).directoryListing(held.files(), held.dirs())
        : super.listStatus(f));
  }

  @Override
  public RemoteIterator<LocatedFileStatus> listLocatedStatus(Path f, PathFilter filter) throws IOException {
    ListingReuse.Held held = heldOrSiblings(f);
    return remember(held != null ? S3AStatuses.of(this).locatedListing(held.files(), held.dirs(), filter)
        : super.listLocatedStatus(f, filter));
  }

  @Override
  public RemoteIterator<FileStatus> listStatusIterator(Path p) throws IOException {
    ListingReuse.Held held = heldOrSiblings(p);
    return remember(held != null
        ? org.apache.hadoop.util.functional.RemoteIterators.remoteIteratorFromArray(
            S3AStatuses.of(this).directoryListing(held.files(), held.dirs()))
        : super.listStatusIterator(p));
  }

  private FileStatus[] remember(FileStatus[] statuses) {
    return listings.remember(statuses);
  }

  private <T extends FileStatus> RemoteIterator<T> remember(RemoteIterator<T> it) {
    return listings.remember(it);
  }

  private ListingReuse.Held reused(Path f) {
    ListingReuse reuse = listingReuse;
    return reuse == null || f == null ? null : reuse.take(pathToKey(qualify(f)));
  }

  /**
   * The listing of directory {@code f} from a kept flat listing: a glob's, or one of its parent made
   * now because the calls walk sibling directories ({@link SiblingWalks}); null: S3A lists it.
   */
  private ListingReuse.Held heldOrSiblings(Path f) throws IOException {
    ListingReuse.Held held = reused(f);
    SiblingWalks walks = siblingWalks;
    if (walks == null || f == null) {
      return held;
    }
    Path q = qualify(f);
    String key = pathToKey(q);
    if (key.isEmpty() || key.endsWith("/") || !getBucket().equals(q.toUri().getHost())) {
      return held;
    }
    int slash = key.lastIndexOf('/');
    String parent = slash < 0 ? "" : key.substring(0, slash);
    int budget = walks.asked(parent, key, held != null);
    if (held != null || budget <= 0) {
      return held;
    }
    int ranges = Math.max(1, Math.min(slipstreamConfig.listParallelism(), budget / SiblingWalks.FIRST_BUDGET));
    FlatGlob.Siblings siblings = null;
    try {
      siblings = flatGlob.keepSiblings(parent, key, budget, ranges);
    } catch (AccessDeniedException e) {
      // A policy may grant listing the child's prefix and not the parent's (s3:prefix): S3A's listing of
      // the child, as S3A alone would have made, and the rest of the walk S3A's too.
      LOG.debug("flat listing of the parent of {} refused, left to S3A: {}", q, e.getMessage());
    } finally {
      walks.listed(parent, siblings == null ? null : siblings.lastKey());
    }
    return siblings != null && siblings.kept() ? reused(f) : null;
  }

  /**
   * This FileSystem changes {@code paths}: every write comes here, when it starts and again when its
   * effect may be seen (a stream's close, an upload's completion; see {@link ChangesAfterWrites}). Kept
   * listings are dropped, and one under way when this is called is not kept; so are the listed versions
   * that {@code open(path)} would use instead of a HEAD for these paths and everything under them, and
   * the answers S3 gave about them (access.ttl).
   */
  private void changed(Path... paths) {
    ListingReuse reuse = listingReuse;
    if (reuse != null) {
      reuse.clear();
    }
    ListingMemory memory = listings;
    if (memory != null) {
      for (Path p : paths) {
        Path q = p == null ? null : qualify(p);
        if (q != null && getBucket().equals(q.toUri().getHost())) {
          memory.forgetUnder(getBucket(), pathToKey(q));
          if (slipstream != null) {
            slipstream.changed(new S3Location(getBucket(), pathToKey(q))); // S3's answers for them no longer stand
          }
        }
      }
    }
  }

  @Override
  public FSDataOutputStream create(Path f, FsPermission permission, boolean overwrite, int bufferSize,
      short replication, long blockSize, Progressable progress) throws IOException {
    changed(f);
    return ChangesAfterWrites.closing(super.create(f, permission, overwrite, bufferSize, replication, blockSize,
        progress), f, this::changed);
  }

  @Override
  public FSDataOutputStream createNonRecursive(Path p, FsPermission permission, EnumSet<CreateFlag> flags,
      int bufferSize, short replication, long blockSize, Progressable progress) throws IOException {
    changed(p);
    return ChangesAfterWrites.closing(super.createNonRecursive(p, permission, flags, bufferSize, replication,
        blockSize, progress), p, this::changed);
  }

  @Override
  public FSDataOutputStreamBuilder createFile(Path path) {
    changed(path);
    return ChangesAfterWrites.closing(super.createFile(path), this, path, this::changed);
  }

  /** Also {@code moveFromLocalFile(src, dst)}, which copies with this and then deletes the local file. */
  @Override
  public void copyFromLocalFile(boolean delSrc, boolean overwrite, Path src, Path dst) throws IOException {
    changed(dst);
    try {
      super.copyFromLocalFile(delSrc, overwrite, src, dst);
    } finally {
      changed(dst);
    }
  }

  @Override
  public BulkDelete createBulkDelete(Path path) throws IOException {
    return ChangesAfterWrites.deleting(super.createBulkDelete(path), this::changed);
  }

  /** S3A's, with its write operations telling {@link #changed} of each upload it completes. */
  @Override
  public S3AMultipartUploaderBuilder createMultipartUploader(Path basePath) throws IOException {
    if (clientSideEncryption) {
      return super.createMultipartUploader(basePath); // refused
    }
    Path path = makeQualified(basePath);
    try (AuditSpan span = entryPoint(Statistic.MULTIPART_UPLOAD_INSTANTIATED, path)) {
      StoreContext context = createStoreContext();
      return new S3AMultipartUploaderBuilder(this,
          ChangesAfterWrites.completing(createWriteOperationHelper(span), this::keyToQualifiedPath, this::changed),
          context, path, context.getInstrumentation().createMultipartUploaderStatistics());
    }
  }

  @Override
  public boolean rename(Path src, Path dst) throws IOException {
    changed(src, dst);
    try {
      return super.rename(src, dst);
    } finally {
      changed(src, dst); // a listing made meanwhile may have seen the files before they moved
    }
  }

  @Override
  public boolean delete(Path f, boolean recursive) throws IOException {
    changed(f);
    try {
      return super.delete(f, recursive);
    } finally {
      changed(f); // a listing made meanwhile may have seen the files before they went
    }
  }

  @Override
  public boolean mkdirs(Path p, FsPermission permission) throws IOException {
    changed(p);
    return super.mkdirs(p, permission);
  }

  /** The flat glob, or null when off ({@code list.reuse.ttl=0}, client-side encryption, requester pays). */
  FlatGlob flatGlob() {
    return flatGlob;
  }

  /** S3A's listStatus of one path: for the paths a flat listing found nothing under. */
  FileStatus[] superListStatus(Path p) throws IOException {
    return super.listStatus(p);
  }

  /** Counts a flat listing's requests as read operations, as S3A counts its LIST calls. */
  void countListing(long listRequests) {
    statistics.incrementReadOps((int) Math.min(Integer.MAX_VALUE, listRequests));
  }

  @Override
  public FSDataInputStream open(Path f, int bufferSize) throws IOException {
    return openWith(qualify(f), null, OpenFileOptions.defaults(defaultPolicy));
  }

  @Override
  public CompletableFuture<FSDataInputStream> openFileWithOptions(Path rawPath, OpenFileParameters parameters)
      throws IOException {
    Path path = qualify(rawPath);
    // Invalid options fail here, in build(); a missing file fails in the future, as the contract says.
    OpenFileOptions options = OpenFileOptions.parse(path, parameters, defaultPolicy);
    CompletableFuture<FSDataInputStream> result = new CompletableFuture<>();
    try {
      // Opening is a HEAD at most: done here, on the caller's thread, rather than on another pool.
      result.complete(openWith(path, parameters.getStatus(), options));
    } catch (IOException | RuntimeException e) {
      result.completeExceptionally(e);
    }
    return result;
  }

  private FSDataInputStream openWith(Path path, FileStatus status, OpenFileOptions options) throws IOException {
    checkOpen(path);
    String key = pathToKey(path);
    long length = options.length();
    String etag = null;
    if (status != null) {
      if (status.isDirectory()) {
        throw new FileNotFoundException("Can't open " + path + " because it is a directory");
      }
      length = status.getLen();
      // S3AFileStatus from getFileStatus/listStatus, S3ALocatedFileStatus from listFiles: both carry it.
      if (status instanceof EtagSource e && e.getEtag() != null && !e.getEtag().isBlank()) {
        etag = e.getEtag();
      }
    }
    if (key.isEmpty()) {
      throw new FileNotFoundException("Can't open " + path + " because it is a directory");
    }
    S3Location location = new S3Location(getBucket(), key);
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
      in = slipstream.open(location, openOptions(length, etag, false, options));
    }
    SlipstreamFSInputStream stream = new SlipstreamFSInputStream(in, reopen, statistics, vectoredReads);
    // After the open, which took this file's prepared block: the next files, if the evidence says so.
    hintNext(listings.openAheadAfter(location, stream));
    statistics.incrementReadOps(1);
    return new FSDataInputStream(stream);
  }

  /** Opens {@code location} after S3A's own HEAD of it: the length and version S3 has now. */
  private SlipstreamInputStream openAfterHead(Path path, String key, S3Location location, OpenFileOptions options)
      throws IOException {
    long length = -1;
    String etag = null;
    boolean fromStore = false;
    // S3A's own HEAD: its auditing, retries, statistics and 404/403 translation.
    HeadObjectResponse head;
    try {
      head = getS3AInternals().getObjectMetadata(path);
    } catch (NullPointerException e) {
      // S3A's HEAD unboxes Content-Length, which some S3-compatible servers leave out: left to
      // Slipstream's own open below, which takes the length from a 1-byte ranged GET or fails with an
      // IOException naming the missing header.
      LOG.debug("HEAD {} by S3A failed ({}); Slipstream's open makes its own", path, e.toString());
      head = null;
    }
    if (key.endsWith("/")) {
      throw new FileNotFoundException("Can't open " + path + " because it is a directory");
    }
    if (head != null && head.contentLength() != null) {
      length = head.contentLength();
      etag = head.eTag();
      fromStore = true; // S3 answered this open, with the credentials Slipstream reads with
    }
    return slipstream.open(location, openOptions(length, etag, fromStore, options));
  }

  private static OpenOptions openOptions(long length, String etag, boolean fromStore, OpenFileOptions options) {
    return OpenOptions.NONE.withLength(length).withEtag(etag)
        .withPolicy(options.policy()).withSplitEnd(options.splitEnd()).withFromStore(fromStore);
  }

  // ---- open-ahead ----------------------------------------------------------------------------

  /**
   * Open-ahead for a caller that knows which files it will read, in this order (a task's split of small
   * files): the first block of the first {@code fs.slipstream.openahead.files} is fetched now, and
   * opening file {@code i} (with {@code open} or {@code openFile}) fetches the first blocks of the files
   * after it. Bytes are fetched ahead with free memory only; a file opened as another version than its
   * status names (or whose ETag is unknown at open) is read from S3 as usual, never from a prepared
   * block. Counted in {@link #getSlipstreamStatistics()} as {@code open_ahead_*}.
   */
  public void readingInOrder(List<? extends FileStatus> files) {
    listings.declare(files.toArray(new FileStatus[0]));
    List<ObjectRef> first = new ArrayList<>();
    for (FileStatus f : files) {
      ObjectRef ref = f.isFile() ? objectRef(f) : null;
      if (ref != null && first.size() < slipstreamConfig.openAheadFiles()) {
        first.add(ref);
      }
    }
    hintNext(first);
  }

  /**
   * Open-ahead: the caller will open {@code next} soon, nearest first. The first block of each (up to
   * {@code fs.slipstream.openahead.files}) is fetched now; see {@link #readingInOrder}.
   */
  public void hintNextFiles(List<? extends FileStatus> next) {
    List<ObjectRef> refs = new ArrayList<>();
    for (FileStatus f : next) {
      ObjectRef ref = f.isFile() ? objectRef(f) : null;
      if (ref != null) {
        refs.add(ref);
      }
    }
    hintNext(refs);
  }

  /**
   * Remembers a listing returned whole, as every listing call of this FileSystem does, so that opening
   * one of its files fetches the next ones ahead (see {@link ListingMemory}). Tests call it to stand for
   * a listing.
   */
  void listed(FileStatus[] statuses) {
    listings.listed(statuses);
  }

  private void hintNext(List<ObjectRef> refs) {
    if (!refs.isEmpty() && slipstream != null) {
      slipstream.hintNext(refs);
    }
  }

  /** A file status of this bucket as the core names it, with its ETag when the status carries one. */
  private ObjectRef objectRef(FileStatus status) {
    Path path = qualify(status.getPath());
    if (!getBucket().equals(path.toUri().getHost())) {
      return null;
    }
    String key = pathToKey(path);
    if (key.isEmpty() || key.endsWith("/")) {
      return null;
    }
    String etag = status instanceof EtagSource e ? e.getEtag() : null;
    return new ObjectRef(new S3Location(getBucket(), key), status.getLen(),
        etag == null || etag.isBlank() ? null : etag);
  }

  private void checkOpen(Path path) throws IOException {
    if (slipstream == null) {
      throw new IOException("FileSystem not initialized (or closed): cannot open " + path);
    }
  }

  /** The core client this FileSystem reads with, for tests; null before initialize. */
  dev.slipstream.Slipstream slipstream() {
    return slipstream;
  }

  @Override
  public void close() throws IOException {
    try {
      if (slipstream != null) {
        // First: its open-ahead fetches and cache writes end while the S3 client they use, S3A's, is open.
        slipstream.close();
      }
    } finally {
      super.close(); // closes the S3 client
    }
  }
}
