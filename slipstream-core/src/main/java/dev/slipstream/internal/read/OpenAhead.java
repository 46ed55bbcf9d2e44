/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.read;

import dev.slipstream.Counter;
import dev.slipstream.ObjectRef;
import dev.slipstream.ReadStatistics;
import dev.slipstream.ReadingOrder;
import dev.slipstream.S3Location;
import dev.slipstream.internal.block.Block;
import dev.slipstream.internal.block.BufferPool;
import dev.slipstream.internal.fetch.BlockFetcher;
import dev.slipstream.internal.fetch.CancelToken;
import dev.slipstream.internal.fetch.InFlight;
import dev.slipstream.internal.fetch.ObjectHandle;
import dev.slipstream.internal.fetch.Purpose;
import dev.slipstream.internal.fetch.RecentAnswers;
import dev.slipstream.internal.learn.GuessOutcomes;
import dev.slipstream.internal.learn.ReadingOrders;
import dev.slipstream.internal.source.S3Source;
import dev.slipstream.internal.util.ETag;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Open-ahead: the first block of each object the caller names as coming next is fetched before the
 * object is opened, so that a task reading many small files does not pay a request's first-byte
 * latency on every open. Bytes are fetched ahead, never connections held open: S3 times out a request
 * opened but not read for a while (S3 ends it with RequestTimeout).
 *
 * <p><b>Lifecycle of a prepared block.</b> {@link #hint} creates block 0 of a hinted object holding the
 * owner's reference (kept by this class) and the fetch's pin, in a buffer from
 * {@link BufferPool#tryAcquire} (never waits, never evicts; when memory is short the object is skipped,
 * and counted), and submits it as a prefetch. The block then ends in exactly one of two ways:
 * <ul>
 *   <li><b>used</b>: {@link #take} hands it, owner reference included, to the stream that opens the same
 *       object, length and version, which adopts it ({@link ObjectReader#adopt}) before its first read;</li>
 *   <li><b>wasted</b>: it is dropped (fetch cancelled, owner reference released, buffer back once the
 *       fetch has ended) when newer hints push it out of the {@code openahead.files} most recent, when it
 *       sat unused for {@link #MAX_IDLE_NANOS}, when its object is opened as another version or without a
 *       known ETag, when its fetch failed, when the pool evicted it (a fetched, unopened block is idle
 *       memory any reader may take back), or when the client closes.</li>
 * </ul>
 *
 * <p><b>Never wrong bytes.</b> The fetch runs under its own {@link ObjectHandle} with the length and ETag
 * of the hint, so every GET carries {@code If-Match} and a response of another version fails the block.
 * A block is handed over only if the opener's length equals the hint's and the opener's ETag (given, or
 * from its HEAD) equals the version the block holds: the hint's ETag, or, for a hint without one, the
 * ETag its response pinned (so such a block can only be handed over once fetched). An opener without a
 * known ETag never gets a prepared block. So if the object is overwritten after its first block was
 * fetched as version A, a stream opened for A reads A's bytes, and its next GET (If-Match A) fails with
 * {@code ObjectChangedException}: the listed version or a clear error, never a mix; a stream that learns
 * the new ETag reads the new version from S3.
 *
 * <p><b>Never a byte without an answer.</b> A prepared block is S3's answer to this client's GET, and it
 * stands for {@code access.ttl} like any other ({@link RecentAnswers}, rule 8): a block that arrived is
 * handed over only while the answer of its GET still stands (not expired, not forgotten by a write, not
 * replaced by an answer naming another version); one still in flight is handed over, its GET being the
 * open's answer. With {@code access.ttl=0} no answer stands, and the client does no open-ahead.
 *
 * <p><b>It must pay for itself.</b> Only objects no larger than a block are prepared: a reader that
 * starts at the first byte reads such an object whole, so the prepared block is exactly what it takes
 * first, while for a larger object one request's latency is small against its read (and its own
 * prefetch starts at the first read). The last {@link #WINDOW} outcomes (used or wasted) are kept; once
 * at least {@link #MIN_OUTCOMES} of them are known and more were wasted than used, open-ahead switches
 * itself off for this client, drops what it holds, and counts it ({@code open_ahead_disabled}).
 *
 * <p>Threads: none of its own. Fetches run on the shared executor; dropping stale entries happens on
 * the caller's thread at the next hint or open. State: at most {@code openahead.files} prepared blocks (in the
 * pool) and the declared orders ({@link ReadingOrders}, the caller's own lists); neither grows with the objects
 * read.
 */
public final class OpenAhead implements AutoCloseable {
  private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(OpenAhead.class);
  /** A prepared block unopened for this long is dropped at the next hint or open. */
  static final long MAX_IDLE_NANOS = 30_000_000_000L;
  /** Outcomes (a prepared block used or wasted) remembered to judge whether open-ahead pays. */
  static final int WINDOW = GuessOutcomes.WINDOW;
  /** Outcomes needed before open-ahead may judge itself. */
  static final int MIN_OUTCOMES = GuessOutcomes.MIN_OUTCOMES;

  private final BufferPool pool;
  private final BlockFetcher fetcher;
  private final S3Source s3;
  private final int blockSize;
  private final int maxFiles;
  private final long memoryCap;
  private final long closeWaitMillis;
  private final ReadStatistics stats;
  private final RecentAnswers answers;
  private final ReentrantLock lock = new ReentrantLock();
  /** Prepared blocks by object, oldest first. Guarded by {@code lock}. */
  private final LinkedHashMap<S3Location, Prepared> prepared = new LinkedHashMap<>();
  /** The reading orders the caller declared: what follows an object opened. */
  private final ReadingOrders orders = new ReadingOrders();
  /** Fetches started here that have not ended (handed-over blocks included, until their fetch ends). */
  private final InFlight inFlight = new InFlight();
  /** Bytes of buffers held by prepared blocks not yet handed over. Guarded by {@code lock}. */
  private long heldBytes;
  private boolean closed;
  /** Switched off because it did not pay. Guarded by {@code lock}. */
  private boolean disabled;
  /** The last outcomes. Guarded by {@code lock}. */
  private final GuessOutcomes outcomes = new GuessOutcomes();

  /**
   * @param maxFiles most objects prepared at once ({@code openahead.files}); 0 disables open-ahead
   * @param stats where open-ahead counts, and where the GETs of its fetches are counted
   * @param closeWaitMillis how long {@link #close()} waits for cancelled fetches to end
   * @param answers the client's standing answers: a fetched block is handed over only while its own stands
   */
  public OpenAhead(BufferPool pool, BlockFetcher fetcher, S3Source s3, int blockSize, int maxFiles, ReadStatistics stats,
      long closeWaitMillis, RecentAnswers answers) {
    this.answers = answers;
    this.pool = pool;
    this.fetcher = fetcher;
    this.s3 = s3;
    this.blockSize = blockSize;
    this.maxFiles = maxFiles;
    // Prepared blocks must not crowd out the prefetch of the streams being read: they take free memory
    // only, and at most a quarter of the budget.
    this.memoryCap = pool.budget() / 4;
    this.stats = stats;
    this.closeWaitMillis = closeWaitMillis;
  }

  /**
   * Starts fetching the first block of each of {@code next}, nearest first, up to {@code openahead.files}
   * of them; objects already prepared (same length and version) are kept and count as recently hinted.
   */
  public void hint(List<ObjectRef> next) {
    if (maxFiles == 0 || next.isEmpty()) {
      return;
    }
    List<Prepared> started = new ArrayList<>();
    List<Prepared> dropped = new ArrayList<>();
    lock.lock();
    try {
      if (closed || disabled) {
        return;
      }
      expire(dropped);
      int n = Math.min(next.size(), maxFiles);
      for (int i = 0; i < n; i++) {
        ObjectRef ref = next.get(i);
        if (ref.length() == 0 || ref.length() > blockSize) {
          continue; // nothing to fetch, or more than a reader's first request takes (see above)
        }
        Prepared p = prepared.remove(ref.location());
        if (p != null) {
          if (p.ref.length() == ref.length() && sameEtag(p.ref.etag(), ref.etag())) {
            prepared.put(ref.location(), p); // kept, now the most recent
            continue;
          }
          remove(p, dropped); // another version is hinted now
        }
        // Room first: the oldest hints give way to the nearest ones.
        while (prepared.size() >= maxFiles) {
          remove(prepared.values().iterator().next(), dropped);
        }
        int len = (int) Math.min(blockSize, ref.length());
        int size = bufferSize(ref.length(), len);
        byte[] buffer = heldBytes + size <= memoryCap ? pool.tryAcquire(size) : null;
        if (buffer == null) {
          stats.increment(Counter.OPEN_AHEAD_SKIPPED_MEMORY);
          continue;
        }
        // Owner (this class, then the stream that adopts it) + the fetch's pin.
        Block block = new Block(0, 0, buffer, len, false, pool, stats, 1);
        ObjectHandle handle = new ObjectHandle(ref.location(), ref.length(), true,
            ETag.fromServer(ref.etag()), null, stats, answers);
        p = new Prepared(ref, block, handle, new CancelToken(BlockCancelledException::new, Purpose.OPEN_AHEAD),
            System.nanoTime(), answers.generation());
        prepared.put(ref.location(), p);
        heldBytes += size;
        started.add(p);
      }
    } finally {
      lock.unlock();
    }
    release(dropped);
    for (Prepared p : started) {
      // Outside the lock: a drop that came first has already asked for the cancel, which the submit honours.
      inFlight.add(p.token);
      stats.increment(Counter.OPEN_AHEAD_STARTED);
      // From S3 alone: the stream that adopts the block offers it to the tiers when it drops it.
      fetcher.submit(p.handle, p.block, (b, t) -> s3.read(p.handle, b.start(), b.buffer(), 0, b.length(), t, false),
          false, p.token, () -> inFlight.remove(p.token)); // a guess: one GET
    }
  }

  /**
   * The prepared first block of {@code location}, if it holds the version the caller opens: same length,
   * and {@code etag} (the opener's, non-null) equal to the block's version. The block comes with the
   * owner's reference, which passes to the caller, and one extra pin (so the pool cannot evict it in
   * between) that the caller drops after adopting it. Any other prepared block of {@code location} is
   * dropped, never served. Null if there is none to hand over.
   */
  public Block take(S3Location location, long length, String etag) {
    Prepared p;
    List<Prepared> dropped = new ArrayList<>();
    lock.lock();
    try {
      if (closed) {
        return null;
      }
      p = prepared.remove(location);
      if (p != null) {
        heldBytes -= bufferSize(p.ref.length(), p.block.length());
      }
      expire(dropped);
    } finally {
      lock.unlock();
    }
    release(dropped);
    if (p == null) {
      return null;
    }
    if (!matches(p, length, etag) || !p.block.tryPin()) {
      // Another version, no ETag to check against, a failed fetch, or evicted by the pool.
      drop(p);
      return null;
    }
    stats.increment(Counter.OPEN_AHEAD_USED);
    judge(true);
    return p.block;
  }

  private boolean matches(Prepared p, long length, String etag) {
    if (etag == null || p.ref.length() != length) {
      return false;
    }
    if (answers.writtenSince(p.ref.location(), p.sentAt)) {
      return false; // a write to it through this client since the fetch was sent: its bytes may be the version replaced
    }
    Block b = p.block;
    if (b.isDone() && !b.isReady()) {
      return false; // failed: the stream fetches the block itself, with its own retries
    }
    boolean sameVersion;
    if (p.ref.etag() != null) {
      // The fetch carries If-Match on the hint's ETag: its bytes are that version's or it fails.
      sameVersion = sameEtag(p.ref.etag(), etag);
    } else {
      // The version is the response's: only known, and only checkable, once the block has arrived.
      sameVersion = b.isReady() && sameEtag(p.handle.etag(), etag);
    }
    // Arrived: its GET was S3's answer, which must still stand (rule 8). In flight: its GET answers now.
    return sameVersion && (!b.isDone() || answers.fresh(p.ref.location(), ETag.fromServer(etag), null));
  }

  /**
   * Starts remembering {@code files} as the order the caller reads them in: opening file {@code i}
   * hints files {@code i+1 .. i+openahead.files}. The first ones are hinted now.
   */
  public ReadingOrder readingInOrder(List<ObjectRef> files) {
    ReadingOrders.Order order = ReadingOrders.of(files);
    ReadingOrder declared = () -> forget(order);
    if (maxFiles == 0 || files.isEmpty()) {
      return declared;
    }
    lock.lock();
    try {
      if (closed) {
        return declared;
      }
      orders.remember(order);
    } finally {
      lock.unlock();
    }
    hint(order.files().subList(0, Math.min(maxFiles, order.files().size())));
    return declared;
  }

  /** {@code location} was opened: hints the objects that follow it in the reading orders naming it. */
  public void opened(S3Location location) {
    if (maxFiles == 0) {
      return;
    }
    List<ObjectRef> next = orders.opened(location, maxFiles);
    if (!next.isEmpty()) {
      hint(next);
    }
  }

  /** The caller closed {@code order}: it is forgotten, and the blocks prepared for its objects dropped. */
  private void forget(ReadingOrders.Order order) {
    List<Prepared> dropped = new ArrayList<>();
    lock.lock();
    try {
      if (!orders.forget(order)) {
        return;
      }
      for (Prepared p : List.copyOf(prepared.values())) {
        if (order.names(p.ref.location())) {
          remove(p, dropped);
        }
      }
    } finally {
      lock.unlock();
    }
    release(dropped);
  }

  /** Fetches started here that have not ended yet (for tests and diagnostics). */
  public int fetchesInFlight() {
    return inFlight.size();
  }

  /** Objects prepared now (for tests and diagnostics). */
  public int preparedCount() {
    lock.lock();
    try {
      return prepared.size();
    } finally {
      lock.unlock();
    }
  }

  /**
   * Drops every prepared block, cancels every fetch started here and waits, bounded, until they have
   * ended, so that no request outlives the client. Hints after this are ignored.
   */
  @Override
  public void close() {
    List<Prepared> dropped = new ArrayList<>();
    lock.lock();
    try {
      if (closed) {
        return;
      }
      closed = true;
      orders.clear();
      for (Prepared p : List.copyOf(prepared.values())) {
        remove(p, dropped);
      }
    } finally {
      lock.unlock();
    }
    release(dropped);
    inFlight.cancelAndAwait(closeWaitMillis);
  }

  // ---- internals -----------------------------------------------------------------------------

  /** Takes {@code p} out of the map; the caller drops it after unlocking. */
  private void remove(Prepared p, List<Prepared> dropped) {
    if (prepared.remove(p.ref.location(), p)) {
      heldBytes -= bufferSize(p.ref.length(), p.block.length());
      dropped.add(p);
    }
  }

  /** Removes prepared blocks unopened for too long. */
  private void expire(List<Prepared> dropped) {
    long now = System.nanoTime();
    for (Prepared p : List.copyOf(prepared.values())) {
      if (now - p.createdNanos > MAX_IDLE_NANOS) {
        remove(p, dropped);
      }
    }
  }

  private void release(List<Prepared> dropped) {
    for (Prepared p : dropped) {
      drop(p);
    }
  }

  /** Cancels the fetch if it is still running and releases the owner's reference: counted as wasted. */
  private void drop(Prepared p) {
    if (!p.block.isDone()) {
      p.block.cancel();
    }
    p.block.releaseOwner(); // a no-op if the pool evicted it first
    stats.increment(Counter.OPEN_AHEAD_WASTED);
    judge(false);
  }

  /**
   * Records one outcome; when the window shows more wasted than used, switches open-ahead off for good
   * and drops what it still holds. Called without the lock held.
   */
  private void judge(boolean used) {
    List<Prepared> dropped = new ArrayList<>();
    lock.lock();
    try {
      if (closed || disabled) {
        return;
      }
      if (!outcomes.recordAndJudge(used)) {
        return;
      }
      disabled = true;
      orders.clear();
      for (Prepared p : List.copyOf(prepared.values())) {
        remove(p, dropped);
      }
      LOG.info("open-ahead switched off for this client: {} of its last {} prepared blocks went unused",
          outcomes.count() - outcomes.usedCount(), outcomes.count());
    } finally {
      lock.unlock();
    }
    stats.increment(Counter.OPEN_AHEAD_DISABLED);
    for (Prepared p : dropped) {
      if (!p.block.isDone()) {
        p.block.cancel();
      }
      p.block.releaseOwner();
      stats.increment(Counter.OPEN_AHEAD_WASTED);
    }
  }

  /** Whether open-ahead switched itself off (for tests and diagnostics). */
  public boolean disabled() {
    lock.lock();
    try {
      return disabled;
    } finally {
      lock.unlock();
    }
  }

  /** As {@link ObjectReader} sizes the buffer of a block. */
  private int bufferSize(long objectLength, int blockLength) {
    return BufferPool.blockBufferSize(objectLength, blockSize, blockLength);
  }

  /** Both known, and the same version however each was spelled. */
  static boolean sameEtag(String a, String b) {
    return a != null && b != null && ETag.same(a, b);
  }

  /** One prepared first block. */
  /** @param sentAt the client's {@link RecentAnswers#generation} when the fetch was prepared */
  private record Prepared(ObjectRef ref, Block block, ObjectHandle handle, CancelToken token, long createdNanos,
      long sentAt) {}
}
