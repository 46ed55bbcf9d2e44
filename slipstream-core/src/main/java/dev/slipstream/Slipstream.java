/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream;

import dev.slipstream.internal.block.Block;
import dev.slipstream.internal.cache.DiskCache;
import dev.slipstream.internal.fetch.BlockFetcher;
import dev.slipstream.internal.fetch.CancelToken;
import dev.slipstream.internal.fetch.FirstGet;
import dev.slipstream.internal.fetch.ObjectHandle;
import dev.slipstream.internal.fetch.ParallelParts;
import dev.slipstream.internal.fetch.RangeReader;
import dev.slipstream.internal.fetch.RecentAnswers;
import dev.slipstream.internal.learn.LearnedDepth;
import dev.slipstream.internal.orc.OrcLayouts;
import dev.slipstream.internal.parquet.ParquetFooters;
import dev.slipstream.internal.read.ObjectReader;
import dev.slipstream.internal.read.OpenAhead;
import dev.slipstream.internal.read.StreamsAhead;
import dev.slipstream.internal.source.ClientTiers;
import dev.slipstream.internal.source.S3Source;
import dev.slipstream.internal.source.Sources;
import dev.slipstream.internal.store.ObjectStore;
import dev.slipstream.internal.store.S3ObjectStore;
import dev.slipstream.internal.store.SseCustomerKey;
import dev.slipstream.internal.util.ETag;
import java.io.IOException;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The entry point of the plain-Java API: a client that opens S3 objects as seekable streams.
 *
 * <pre>{@code
 * SlipstreamConfig config = SlipstreamConfig.builder()
 *     .set("endpoint", "http://127.0.0.1:9000").set("path.style.access", "true").build();
 * try (Slipstream slipstream = Slipstream.create(config);
 *      SlipstreamInputStream in = slipstream.open("s3://bucket/key")) {
 *   in.transferTo(out);
 * }
 * }</pre>
 *
 * <p>Clients are thread-safe and meant to be long-lived. By default every client in the JVM shares
 * one memory budget ({@code memory.max}) and one fetch executor ({@code fetch.threads}), sized by the
 * first client created; {@link Builder#isolatedResources()} gives a client its own, released on
 * {@link #close()}.
 */
public final class Slipstream implements AutoCloseable {
  /**
   * The most the GET that opens an object of unknown length read from its start asks for: an Iceberg
   * metadata file or manifest list whole, in one request and no HEAD. A larger object pays this GET in place
   * of a HEAD (its bytes are dropped) and fetches its first block as any other, in parallel parts, rather than
   * wait for a whole block over one connection before anything else is fetched.
   */
  static final int FIRST_GET_BYTES = 1 << 20;

  private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(Slipstream.class);

  private final SlipstreamConfig config;
  /** The simulated caches of {@code cache.shadow.sizes}. */
  private final dev.slipstream.internal.cache.ShadowCaches shadows;
  private final ObjectStore store;
  private final SharedResources resources;
  private final boolean ownsResources;
  private final RangeReader ranges;
  private final BlockFetcher fetcher;
  private final Sources sources;
  /** The prefetch depth this client's sequential readers have needed: where a proven run starts. */
  private final LearnedDepth learnedDepth = new LearnedDepth();
  /** The Parquet footers this client's streams have parsed: the layout of every later stream of that version. */
  private final ParquetFooters parquetFooters = new ParquetFooters();
  private final OrcLayouts orcLayouts = new OrcLayouts();
  private final DiskCache diskCache;
  private final Lister lister;
  private final ReadStatistics stats = ReadStatistics.global().childWithLatencies();
  private final OpenAhead openAhead;
  private final StreamsAhead streamsAhead;
  /** The streams this client opened and the caller still holds (weakly): those it may keep for a reopen. */
  private final java.util.Set<ObjectReader> readers = java.util.Collections.newSetFromMap(new java.util.WeakHashMap<>());
  /** S3's answers to this client's GETs and HEADs, each standing for access.ttl (rule 8). */
  private final RecentAnswers answers;
  private final AtomicBoolean closed = new AtomicBoolean();

  private Slipstream(Builder b) {
    this.config = b.config;
    this.ownsResources = b.isolated;
    this.resources = b.isolated ? new SharedResources(config) : SharedResources.jvm(config);
    if (config.blockSize() > resources.budget) {
      throw new IllegalArgumentException("block.size=" + config.blockSize() + " does not fit the JVM-wide memory"
          + " budget of " + resources.budget + " bytes (memory.max, set by the first Slipstream client of this"
          + " JVM); use a smaller block size or isolated resources");
    }
    // First: a missing module must not leave an S3 client open. Its heap outside the buffers counts in the budget.
    ClientTiers tiers = ClientTiers.of(config, stats, new dev.slipstream.internal.block.CountedHeap(resources.pool));
    if (b.readsClient != null && b.s3Client == null) {
      throw new IllegalStateException("readsClient is given without s3Client: give both, or neither");
    }
    this.store = b.s3Client == null ? S3ObjectStore.create(config, b.accessPoints, b.requestScope)
        : S3ObjectStore.over(b.s3Client, b.readsClient != null ? b.readsClient : b.s3Client,
            SseCustomerKey.of(config.sseCustomerKey()), b.accessPoints, b.requestScope);
    this.ranges = new RangeReader(store, config);
    this.diskCache = tiers.diskMode() == CacheMode.OFF ? null : DiskCache.open(config);
    this.fetcher = new BlockFetcher(store, ranges, resources.executor);
    this.shadows = new dev.slipstream.internal.cache.ShadowCaches(config.shadowCacheSizes());
    S3Source s3 = new S3Source(ranges, new ParallelParts(ranges, resources.executor, config.fetchPartMin()));
    this.sources = new Sources(diskCache, tiers.diskMode(), config.cacheMemory(), tiers.shared(), s3, fetcher,
        resources.pool, shadows);
    this.lister = new Lister(store, config, stats);
    this.answers = new RecentAnswers(config.accessTtl());
    // A prepared block is served on the answer of its own GET: with no answer standing (access.ttl=0), none is.
    int openAheadFiles = config.accessTtl().isZero() ? 0 : config.openAheadFiles();
    this.openAhead = new OpenAhead(resources.pool, fetcher, sources.s3(), config.blockSize(), openAheadFiles,
        stats.child(), closeWaitMillis(), answers);
    this.streamsAhead = new StreamsAhead(this::openedAhead, openAheadFiles, stats.child(), answers, closeWaitMillis());
  }

  public static Slipstream create(SlipstreamConfig config) {
    return builder().config(config).build();
  }

  public static Builder builder() {
    return new Builder();
  }

  public SlipstreamConfig config() {
    return config;
  }

  /**
   * What a block cache of each size of {@code cache.shadow.sizes} would have served of this client's block
   * fetches so far (empty when none is configured): for sizing a cache from the traffic it would see.
   */
  public java.util.List<ShadowCache> shadowCaches() {
    return shadows.results();
  }

  /**
   * What this client's requests and transfer have cost so far at its prices ({@code cost.*}: S3
   * Standard's list prices in US East by default), and per GB read.
   */
  public Prices.Cost cost() {
    return config.prices().cost(stats);
  }

  /** Totals of every stream this client opened. */
  public ReadStatistics statistics() {
    return stats;
  }

  /**
   * What each server of the shared tier ({@code shared.*}) has seen: chunk hits and misses, timeouts,
   * errors, times left alone, bytes read, sets and failed sets, lookup latency; empty without a shared tier.
   */
  public java.util.List<dev.slipstream.spi.SharedBlockStore.ServerStatistics> sharedTierServers() {
    return sources.sharedServers();
  }

  /** Bytes of block buffers handed out and not yet returned, in this client's memory pool. */
  public long memoryInUse() {
    return resources.pool.inUseBytes();
  }

  /**
   * Bytes of this client's memory pool that the memory cache holds idle (blocks kept for a later read):
   * free memory, given up first when a read needs it, and to the heap when the JVM runs short.
   */
  public long memoryCached() {
    return resources.pool.keptBytes();
  }

  /**
   * Bytes of block buffers that exist in this client's memory pool: handed out, free for reuse, or kept by the
   * memory cache; at most {@link #memoryBudget()}. What the pool holds of the heap, whatever it holds it for.
   */
  public long memoryHeld() {
    return resources.pool.allocatedBytes();
  }

  /** The memory budget this client's pool works under. */
  public long memoryBudget() {
    return resources.pool.budget();
  }

  /** The local disk cache this client uses, if {@code cache.disk.mode} is not off. */
  public java.util.Optional<java.nio.file.Path> diskCacheDirectory() {
    return java.util.Optional.ofNullable(diskCache).map(DiskCache::directory);
  }

  /** Blocks offered to the disk cache and not yet written (they hold memory until then). */
  public int diskCachePendingWrites() {
    return diskCache == null ? 0 : diskCache.pendingWrites();
  }

  /**
   * Waits until every disk cache of this JVM has written the blocks it was given (they are written in
   * the background), at most {@code timeout}: for a tool about to exit, or a benchmark about to re-read.
   *
   * @return true if nothing is left to write
   */
  public static boolean awaitDiskCacheWrites(java.time.Duration timeout) {
    return DiskCache.awaitWrites(timeout.toMillis());
  }

  /** Lists prefixes and directories of interest with flat, parallel LIST streams; see {@link Lister}. */
  public Lister lister() {
    return lister;
  }

  /** Opens {@code s3://bucket/key} (a HEAD request learns its length and ETag). */
  public SlipstreamInputStream open(String uri) throws IOException {
    return open(S3Location.parse(uri), OpenOptions.NONE);
  }

  public SlipstreamInputStream open(S3Location location) throws IOException {
    return open(location, OpenOptions.NONE);
  }

  /**
   * Opens an object. With a known length (and ETag), as a listing gives them, no HEAD request is made.
   * Without one, a HEAD learns them, or the client's answer about the object within {@code access.ttl};
   * with the {@link ReadPolicy#SEQUENTIAL} policy, a GET of the first block (at most its first MiB) does
   * instead (its {@code Content-Range} states the length), and the first read of an object within that finds
   * it in memory.
   *
   * @throws java.io.FileNotFoundException if there is no such object
   * @throws java.nio.file.AccessDeniedException if S3 refuses access
   */
  public SlipstreamInputStream open(S3Location location, OpenOptions options) throws IOException {
    Objects.requireNonNull(location, "location");
    Objects.requireNonNull(options, "options");
    if (closed.get()) {
      throw new IOException("Slipstream client is closed; cannot open " + location);
    }
    ReadStatistics streamStats = stats.child();
    long length = options.length();
    ETag etag = ETag.fromServer(options.etag());
    java.time.Instant lastModified = null;
    String versionId = options.versionId();
    boolean answered = options.fromStore();
    // The HEAD below is sent after now. The caller's own request (fromStore) was sent before it, by how
    // much is not known: it grants this open's access check but is not kept as the client's answer.
    long sentAt = options.fromStore() ? -1 : answers.generation();
    RecentAnswers.Answer known = length < 0 ? answers.fresh(location) : null;
    FirstGet.Got first = null;
    if (known != null) {
      // No HEAD: S3 answered this client about the object within access.ttl (rule 8).
      streamStats.increment(Counter.OPENS_FROM_ANSWER);
      length = known.length();
      etag = known.etag();
      lastModified = known.lastModified();
      // Not answered anew: the open passes its access check on that answer while it stands, and does not
      // renew it, so an object re-read all day is still asked about once per access.ttl.
    } else if (length < 0) {
      CancelToken token = new CancelToken(() -> new IOException("cancelled: open " + location),
          dev.slipstream.internal.fetch.Purpose.OPEN);
      if (options.policy() == ReadPolicy.SEQUENTIAL) {
        // Read from the start: no HEAD, the GET of the first block says the length and version (rule 5).
        first = fetcher.first(new ObjectHandle(location, -1, false, null, null, streamStats, answers),
            Math.min(config.blockSize(), FIRST_GET_BYTES), token);
      }
      ObjectStore.ObjectMetadata m = first != null ? first.metadata() : fetcher.head(location, streamStats, token);
      length = m.length();
      etag = m.etag();
      lastModified = m.lastModified();
      versionId = m.versionId();
      // The HEAD of an object under a KMS key is no proof of a GET (S3Clients.headProvesRead): its first
      // cached read is then proved by a GET, as for an open from a listing.
      answered = m.provesRead();
    }
    ObjectReader opened = first != null ? null : streamsAhead.take(location, length,
        etag == null ? null : etag.opaque(), options.policy(), versionId, options.splitEnd());
    if (opened != null) {
      openAhead.opened(location);
      streamsAhead.opened(opened);
      return opened; // opened ahead, with its tail (see StreamsAhead)
    }
    streamStats.increment(Counter.STREAMS_OPENED);
    ObjectHandle handle = new ObjectHandle(location, length, options.length() >= 0, etag, lastModified,
        streamStats, answers);
    handle.pinVersionId(versionId);
    if (answered) {
      handle.answered(sentAt); // S3 answered this open: cached bytes may be served
    }
    ObjectReader reader = newReader(handle, options.policy(), options.splitEnd());
    // A first block fetched ahead is served only for the version this stream reads (see OpenAhead); one the
    // open's own GET brought is that version.
    Block ahead = first != null ? first.asFirstBlock(Math.min(length, config.blockSize()), resources.pool, streamStats)
        : openAhead.take(location, length, handle.etag());
    if (ahead != null) {
      try {
        reader.adopt(ahead);
      } finally {
        ahead.unpin();
      }
    }
    openAhead.opened(location);
    streamsAhead.opened(reader);
    return reader;
  }

  /** A stream of {@code handle}'s object, read by {@code policy} within a split ending at {@code splitEnd}. */
  private ObjectReader newReader(ObjectHandle handle, ReadPolicy policy, long splitEnd) {
    ObjectReader r = new ObjectReader(handle, resources.pool, fetcher, sources, config.blockSize(),
        config.prefetchBlocks(), learnedDepth, parquetFooters, orcLayouts, policy, splitEnd, closeWaitMillis());
    synchronized (readers) {
      readers.add(r);
    }
    return r;
  }

  /** A stream opened ahead ({@link StreamsAhead}): the hint's length and ETag, no split, one of the client's streams. */
  private ObjectReader openedAhead(ObjectRef ref, ReadPolicy policy) {
    ReadStatistics streamStats = stats.child();
    streamStats.increment(Counter.STREAMS_OPENED);
    return newReader(new ObjectHandle(ref.location(), ref.length(), true, ETag.fromServer(ref.etag()), null,
        streamStats, answers), policy, 0);
  }

  /**
   * Open-ahead for readers that start at the footer (Parquet, ORC): the caller will open {@code next} soon,
   * nearest first, each with {@code policy}, and read each from its end first. Up to {@code openahead.files}
   * of them are opened now, on the client's open-ahead threads, and given the first read such a reader
   * makes: the object's tail (its footer). A later {@link #open(S3Location, OpenOptions)} of one of them with
   * the same length, ETag and policy (no version id, and a split, if any, to the object's end) returns that
   * stream, its footer in memory or on its way. Wrong guesses cost their GETs, are closed when newer
   * hints come or after 30 s unopened, and are counted ({@link Counter#OPEN_AHEAD_STREAMS_WASTED}); when
   * most of the last ones were wasted, it switches itself off. Objects without a known ETag are left out.
   */
  public void hintNextFromTheEnd(List<ObjectRef> next, ReadPolicy policy) {
    hintNextFromTheEnd(next, policy, null);
  }

  /**
   * As {@link #hintNextFromTheEnd(List, ReadPolicy)}, where the caller reads {@code current} (a stream this
   * client opened; null for none) before the next files: as soon as {@code current}'s reads touch a Parquet
   * file's predicted columns, each next file's stream fetches the same columns from its first row group
   * (where its schema is the same), so that the caller finds them in memory too when it moves on.
   */
  public void hintNextFromTheEnd(List<ObjectRef> next, ReadPolicy policy, SlipstreamInputStream current) {
    Objects.requireNonNull(next, "next");
    Objects.requireNonNull(policy, "policy");
    streamsAhead.prepare(next, policy, current instanceof ObjectReader r && opened(r) ? r : null);
  }

  /**
   * Closes {@code in}, unless the caller will open the same object again soon: Spark reads a Parquet file's
   * footer through one stream, then opens the file again for its data. The stream is then kept, with what
   * it holds (the tail, the footer), and the next {@link #open(S3Location, OpenOptions)} of the same version,
   * with the same policy, returns it, as for {@link #hintNextFromTheEnd}. A stream not opened again within 30 s, or pushed out by newer ones, is
   * closed and counted wasted; a stream of another client, or of an unknown ETag, is closed.
   */
  public void closeForReopen(SlipstreamInputStream in) {
    Objects.requireNonNull(in, "in");
    if (in instanceof ObjectReader r && opened(r)) {
      streamsAhead.keep(r);
    } else {
      in.close();
    }
  }

  /** Whether this client opened {@code r}. */
  private boolean opened(ObjectReader r) {
    synchronized (readers) {
      return readers.contains(r);
    }
  }

  /**
   * Open-ahead: the caller will open {@code next} soon, nearest first (for example the files after the
   * one it is reading, in the order a listing gave them). The first block of each, up to
   * {@code openahead.files} of them, is fetched now, with free memory only: bytes ahead, no connection
   * held open. A later {@link #open(S3Location, OpenOptions)} of one of them with the same length and
   * ETag ({@link ObjectRef#openOptions()}) starts with that block in memory. Wrong guesses cost one
   * ranged GET of at most a block each, are dropped when newer hints come or after 30 s unused, and are
   * counted ({@link Counter#OPEN_AHEAD_WASTED}). A stream never gets a block of another version than
   * the ETag it opens with; opened without a known ETag it gets none.
   */
  public void hintNext(List<ObjectRef> next) {
    Objects.requireNonNull(next, "next");
    openAhead.hint(next);
  }

  /**
   * Open-ahead for a caller that knows the whole list of objects it reads, in order (a task's split of
   * small files): the first {@code openahead.files} are fetched ahead now, and opening object {@code i}
   * starts fetching the first blocks of the ones after it, as {@link #hintNext} does. Close the returned
   * order if the reading stops early; it ends by itself when its last object is opened.
   */
  public ReadingOrder readingInOrder(List<ObjectRef> files) {
    Objects.requireNonNull(files, "files");
    return openAhead.readingInOrder(files);
  }

  /**
   * The version of {@code location} S3 last named to this client in answer to a GET or HEAD, if that
   * answer still stands ({@code access.ttl}); null otherwise, or where the server sends no ETag. An open
   * with its length and ETag makes no HEAD and serves cached bytes of that version with no request.
   */
  public ObjectRef recentVersion(S3Location location) {
    RecentAnswers.Answer a = answers.fresh(Objects.requireNonNull(location, "location"));
    return a == null || a.etag() == null ? null : new ObjectRef(location, a.length(), a.etag().toString());
  }

  /**
   * The writes this client was told of ({@link #changed}). Whoever keeps what this client's requests
   * returned (the Hadoop FileSystem keeps its listings) takes a {@link WriteLog#generation} before a request
   * and keeps its answer only if no write since touched the key ({@link WriteLog#writtenSince}), as this
   * client does with S3's answers to its GETs and HEADs.
   */
  public WriteLog writes() {
    return answers.writes();
  }

  /**
   * The caller wrote, replaced or deleted the object at {@code prefix}, or objects under it (every key
   * that starts with its key): what S3 answered this client about them no longer stands.
   */
  public void changed(S3Location prefix) {
    answers.forgetUnder(Objects.requireNonNull(prefix, "prefix"));
  }

  /**
   * As {@link #changed(S3Location)}, for every key of {@code bucket} that starts with {@code keyPrefix}; an
   * empty prefix is the whole bucket (a write at its root: a recursive delete, say).
   */
  public void changed(String bucket, String keyPrefix) {
    answers.forgetUnder(Objects.requireNonNull(bucket, "bucket"), Objects.requireNonNull(keyPrefix, "keyPrefix"));
  }

  /** The open-ahead of this client, for tests. */
  OpenAhead openAhead() {
    return openAhead;
  }

  private long closeWaitMillis() {
    return config.stallTimeout().plus(config.connectTimeout()).toMillis();
  }

  /** Closes the S3 client; with isolated resources, also stops the fetch threads. Open streams should be closed first. */
  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    streamsAhead.close(); // first: their requests end while the S3 client is still there
    openAhead.close();
    if (diskCache != null && !diskCache.awaitIdle(10_000)) {
      LOG.warn("Slipstream: the disk cache {} still had blocks to write 10 s after close", diskCache.directory());
    }
    ranges.close();
    lister.close();
    store.close();
    sources.close(); // what the memory cache kept for this client is free memory again
    answers.clear();
    if (ownsResources) {
      resources.executor.shutdown();
      try {
        resources.executor.awaitTermination(10_000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /** Builds a {@link Slipstream} client. */
  public static final class Builder {
    private SlipstreamConfig config = SlipstreamConfig.defaults();
    private boolean isolated;
    private software.amazon.awssdk.services.s3.S3Client s3Client;
    private software.amazon.awssdk.services.s3.S3Client readsClient;
    private java.util.function.Supplier<Runnable> requestScope;
    private java.util.Map<String, String> accessPoints = java.util.Map.of();

    private Builder() {}

    public Builder config(SlipstreamConfig config) {
      this.config = Objects.requireNonNull(config, "config");
      return this;
    }

    /** This client gets its own memory pool and fetch threads instead of the JVM-wide ones. */
    public Builder isolatedResources() {
      this.isolated = true;
      return this;
    }

    /**
     * Reads through this S3 client instead of building one from the configuration (whose endpoint,
     * region, path-style and credential keys are then unused). The client is not closed with
     * Slipstream. This is how the Hadoop FileSystem reuses the client S3A configured.
     */
    public Builder s3Client(software.amazon.awssdk.services.s3.S3Client client) {
      this.s3Client = Objects.requireNonNull(client, "client");
      return this;
    }

    /**
     * With {@link #s3Client}: sends the read path's GETs through {@code client} instead, and HEAD and
     * LIST through that one. Meant for a client without a socket timeout, whose socket reads then block
     * instead of polling first (see {@code read.stall.timeout}: the stall watchdog watches every body, and
     * the client should bound each attempt up to its response head by {@code connect.timeout} plus
     * {@code read.stall.timeout}). Not closed with Slipstream. The Hadoop FileSystem builds one from S3A's
     * settings this way.
     */
    public Builder readsClient(software.amazon.awssdk.services.s3.S3Client client) {
      this.readsClient = Objects.requireNonNull(client, "client");
      return this;
    }

    /**
     * Makes every request to S3 inside a scope of the caller's: {@code enter} is called on the thread
     * about to send the request (a fetch thread, or the reading thread for its access check) and
     * returns what leaves the scope, run on the same thread once the request is answered (for a GET, at
     * its response head). Both must be quick and must not fail. The Hadoop FileSystem activates its S3A
     * audit span this way, as S3A does around its own requests.
     */
    public Builder requestScope(java.util.function.Supplier<Runnable> enter) {
      this.requestScope = Objects.requireNonNull(enter, "enter");
      return this;
    }

    /**
     * Sends every request for an object of a bucket among the keys of {@code bucketToAccessPoint} (GET, HEAD
     * and LIST) to that bucket's S3 access point instead, named as S3 accepts it in a request's bucket: an
     * access point ARN ({@code arn:aws:s3:REGION:ACCOUNT:accesspoint/NAME}, for which the client's
     * endpoint rules pick the host and region) or its alias. Objects are still named by their own bucket
     * ({@code s3://bucket/key}): in cache keys, statistics, and messages, which name the access point too.
     * So the access point's policy applies to every read, as it does to the writes of a caller that
     * sends its requests there (Iceberg's {@code s3.access-points.<bucket>}). Replaces an earlier call.
     *
     * @throws IllegalArgumentException if a bucket or access point is empty
     */
    public Builder accessPoints(java.util.Map<String, String> bucketToAccessPoint) {
      Objects.requireNonNull(bucketToAccessPoint, "bucketToAccessPoint");
      bucketToAccessPoint.forEach((bucket, accessPoint) -> {
        if (bucket == null || bucket.isBlank() || accessPoint == null || accessPoint.isBlank()) {
          throw new IllegalArgumentException("access point of bucket '" + bucket + "' is '" + accessPoint
              + "': both must be non-empty");
        }
      });
      this.accessPoints = java.util.Map.copyOf(bucketToAccessPoint);
      return this;
    }

    public Slipstream build() {
      return new Slipstream(this);
    }
  }
}
