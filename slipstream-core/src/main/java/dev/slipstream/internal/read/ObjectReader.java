/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.read;

import dev.slipstream.Counter;
import dev.slipstream.ReadPolicy;
import dev.slipstream.ReadStatistics;
import dev.slipstream.S3Location;
import dev.slipstream.SlipstreamConfig.CacheMode;
import dev.slipstream.SlipstreamInputStream;
import dev.slipstream.internal.cache.DiskCache;
import dev.slipstream.internal.block.Block;
import dev.slipstream.internal.block.BufferPool;
import dev.slipstream.internal.fetch.BlockFetcher;
import dev.slipstream.internal.fetch.CancelToken;
import dev.slipstream.internal.fetch.ObjectHandle;
import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Map;
import java.util.Objects;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;

/**
 * One open object. Holds the blocks of this stream in a map by index; every read, sequential or
 * positional, goes through {@link #readAt}, where the {@link ReadPlanner} says how it is served:
 * <ul>
 *   <li>in order: find the block (or start fetching it, waiting for memory if need be), start the
 *       prefetch the planner asks for, wait for the block, copy, unpin;</li>
 *   <li>a small jump: from the disk cache if its blocks are there, else one GET of its bytes plus
 *       {@link #READAHEAD} bytes kept for the reads that follow (an object no larger than a block is
 *       fetched whole, once, instead);</li>
 *   <li>a large jump: the blocks it spans;</li>
 *   <li>a range of a columnar reader: exactly its bytes, from memory or disk where they are, else from
 *       S3 (in parallel parts when large).</li>
 * </ul>
 * The first stream read into the object's end that does not read it in order fetches the tail at once
 * ({@link #tailSize}: the footer and metadata of a Parquet or ORC file) and keeps it for the reads that
 * follow.
 *
 * <p>With a disk cache, blocks dropped before they were read to their end (a seek, close, unbuffer,
 * the per-stream cap) are written to it, and every block fetch looks there before S3; with
 * {@code cache.disk.mode=all} every block is written.
 *
 * <p>Rules kept here: a reader pins at most one block at a time and never while it waits for memory
 * (see {@link BufferPool}); blocks left behind by the sequential reader, and blocks beyond the
 * per-stream cap, are dropped (their fetches cancelled if nobody waits for them); {@code close()}
 * cancels every request of the stream and waits, bounded, for them to end, so that no request
 * outlives the stream.
 */
public final class ObjectReader extends SlipstreamInputStream {
  private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(ObjectReader.class);
  /**
   * Bytes a small stream read after a jump fetches beyond what it asked for (S3A's readahead default);
   * at most an eighth of a block.
   */
  static final int READAHEAD = 64 * 1024;
  /**
   * Most of the object's end fetched at once when a stream read first jumps into it: footer, page index
   * and metadata of a Parquet or ORC file. See {@link #tailSize}.
   */
  static final int TAIL = 1024 * 1024;
  /** Least of the object's end fetched at once by a footer read (unless the object is smaller). */
  static final int MIN_TAIL = 8 * 1024;
  /** Largest part of an asynchronous (vectored) range read: parts of one range are fetched in parallel. */
  static final int PART = 1024 * 1024;

  private final ObjectHandle h;
  private final BufferPool pool;
  private final BlockFetcher fetcher;
  private final StreamDiskCache disk;
  private final int blockSize;
  private final int maxDepth;
  private final int maxBlocks;
  private final long closeWaitMillis;
  private final long length;
  private final ReadStatistics stats;
  private final Map<Long, Block> blocks = new ConcurrentHashMap<>();
  /** Every request of this stream that has not ended: block fetches and direct reads. */
  private final Set<CancelToken> inFlight = ConcurrentHashMap.newKeySet();
  private final AtomicLong clock = new AtomicLong();
  private final Map<Block, Long> lastUse = new ConcurrentHashMap<>();
  private final ReentrantLock seqLock = new ReentrantLock();
  private final ReadPlanner seqPlanner;
  private final ReadPlanner posPlanner;
  private final AtomicBoolean closed = new AtomicBoolean();
  /** The last block prefetch may start: the object's last, or the one holding the split's last byte. */
  private final long prefetchLimit;
  private long pos;
  /** Bytes fetched by the last small stream read after a jump, beyond what it asked for; or null. */
  private volatile Block ahead;
  /** Parquet row groups read ahead (guarded by {@code inFlight}'s monitor); null until a footer is seen. */
  private RowGroupAhead rowGroups;
  private boolean footerTried;
  /** A block fetched before this stream was opened (open-ahead), or null. */
  private volatile Block adopted;
  /** The object's tail, fetched when a stream read first jumped into it; or null. */
  private volatile Block tail;

  /** @param cache the disk cache, or null; {@code cacheMode} says which blocks are written to it */
  public ObjectReader(ObjectHandle h, BufferPool pool, BlockFetcher fetcher, DiskCache cache, CacheMode cacheMode,
      int blockSize, int maxDepth, ReadPolicy policy, long splitEnd, long closeWaitMillis) {
    this.h = h;
    this.pool = pool;
    this.fetcher = fetcher;
    this.disk = new StreamDiskCache(cache, cacheMode, h, fetcher, pool, blockSize);
    this.blockSize = blockSize;
    this.maxDepth = maxDepth;
    // The sequential window, the block being read, and a few for positional readers.
    this.maxBlocks = maxDepth + 4;
    this.closeWaitMillis = closeWaitMillis;
    this.length = h.length();
    this.stats = h.stats();
    this.seqPlanner = new ReadPlanner(blockSize, maxDepth, policy, h.length());
    this.posPlanner = new ReadPlanner(blockSize, maxDepth, policy, h.length());
    long last = length == 0 ? -1 : (length - 1) / blockSize;
    this.prefetchLimit = splitEnd > 0 ? Math.min(last, (splitEnd - 1) / blockSize) : last;
  }

  @Override
  public S3Location location() {
    return h.location();
  }

  @Override
  public long length() {
    return length;
  }

  @Override
  public String etag() {
    return h.etag();
  }

  @Override
  public ReadStatistics statistics() {
    return stats;
  }

  /**
   * Takes over a block fetched before this stream was opened (open-ahead): it must belong to this
   * object and version, hold its owner's reference (which passes to this stream), and must be given
   * before the first read. A block of the wrong shape is released instead.
   */
  public void adopt(Block b) {
    long start = b.index() * (long) blockSize;
    boolean fits = b.start() == start && b.length() == (int) Math.min(blockSize, length - start)
        && b.index() <= prefetchLimit && !closed.get();
    if (!fits || blocks.putIfAbsent(b.index(), b) != null) {
      b.releaseOwner();
      return;
    }
    lastUse.put(b, clock.incrementAndGet());
    adopted = b; // its fetch is not one of this stream's requests: close() waits for it separately
  }

  // ---- sequential API ------------------------------------------------------------------------

  @Override
  public int read() throws IOException {
    byte[] one = new byte[1];
    int n = read(one, 0, 1);
    return n < 0 ? -1 : one[0] & 0xff;
  }

  @Override
  public int read(byte[] b, int off, int len) throws IOException {
    Objects.checkFromIndexSize(off, len, b.length);
    seqLock.lock();
    try {
      checkOpen();
      if (len == 0) {
        return 0;
      }
      if (pos >= length) {
        return -1;
      }
      int n = readAt(pos, b, off, len, seqPlanner, true);
      pos += n;
      return n;
    } finally {
      seqLock.unlock();
    }
  }

  @Override
  public int read(ByteBuffer dst) throws IOException {
    if (dst.hasArray()) {
      int n = read(dst.array(), dst.arrayOffset() + dst.position(), dst.remaining());
      if (n > 0) {
        dst.position(dst.position() + n);
      }
      return n;
    }
    seqLock.lock();
    try {
      checkOpen();
      if (!dst.hasRemaining()) {
        return 0;
      }
      if (pos >= length) {
        return -1;
      }
      byte[] tmp = new byte[(int) Math.min(dst.remaining(), Math.min(length - pos, blockSize))];
      int n = readAt(pos, tmp, 0, tmp.length, seqPlanner, true);
      dst.put(tmp, 0, n);
      pos += n;
      return n;
    } finally {
      seqLock.unlock();
    }
  }

  @Override
  public long skip(long n) throws IOException {
    seqLock.lock();
    try {
      checkOpen();
      if (n <= 0) {
        return 0;
      }
      long s = Math.min(n, length - pos);
      pos += s;
      return s;
    } finally {
      seqLock.unlock();
    }
  }

  @Override
  public void seek(long position) throws IOException {
    seqLock.lock();
    try {
      checkOpen();
      if (position < 0) {
        throw new EOFException(h.location() + ": cannot seek to a negative position " + position);
      }
      if (position > length) {
        throw new EOFException(h.location() + ": cannot seek to " + position + ", past the end (length "
            + length + ")");
      }
      pos = position;
    } finally {
      seqLock.unlock();
    }
  }

  @Override
  public long getPos() {
    seqLock.lock();
    try {
      return pos; // still answers after close, as Hadoop's streams do
    } finally {
      seqLock.unlock();
    }
  }

  @Override
  public int available() throws IOException {
    seqLock.lock();
    try {
      checkOpen();
      return (int) Math.min(Integer.MAX_VALUE, length - pos);
    } finally {
      seqLock.unlock();
    }
  }

  // ---- positional API ------------------------------------------------------------------------

  @Override
  public int read(long position, byte[] b, int off, int len) throws IOException {
    Objects.checkFromIndexSize(off, len, b.length);
    checkOpen();
    if (position < 0) {
      throw new EOFException(h.location() + ": negative position " + position);
    }
    if (position >= length) {
      return len == 0 ? 0 : -1;
    }
    if (len == 0) {
      return 0;
    }
    return readAt(position, b, off, len, posPlanner, false);
  }

  @Override
  public int read(long position, ByteBuffer dst) throws IOException {
    if (dst.hasArray()) {
      int n = read(position, dst.array(), dst.arrayOffset() + dst.position(), dst.remaining());
      if (n > 0) {
        dst.position(dst.position() + n);
      }
      return n;
    }
    checkOpen();
    if (position < 0) {
      throw new EOFException(h.location() + ": negative position " + position);
    }
    if (position >= length) {
      return dst.hasRemaining() ? -1 : 0;
    }
    if (!dst.hasRemaining()) {
      return 0;
    }
    byte[] tmp = new byte[(int) Math.min(dst.remaining(), Math.min(length - position, blockSize))];
    int n = readAt(position, tmp, 0, tmp.length, posPlanner, false);
    dst.put(tmp, 0, n);
    return n;
  }

  // ---- the read path -------------------------------------------------------------------------

  /** Reads {@code min(len, length - position)} bytes at {@code position}; position is inside the object. */
  private int readAt(long position, byte[] dst, int off, int len, ReadPlanner planner, boolean streamPath)
      throws IOException {
    len = (int) Math.min(len, length - position);
    long first = position / blockSize;
    if (streamPath && (copyFromSpan(tail, position, dst, off, len) || copyFromSpan(ahead, position, dst, off, len))) {
      // Bytes at hand: neither a jump nor a reason to prefetch, but part of a run of reads in order.
      if (planner.onRead(position, len, true).switched()) {
        stats.increment(Counter.SEQUENTIAL_SWITCHES);
      }
      stats.add(Counter.BYTES_READ, len);
      stats.add(Counter.BYTES_FROM_MEMORY, len);
      return len;
    }
    ReadPlanner.Decision d = planner.onRead(position, len, blocks.containsKey(first));
    if (d.switched()) {
      stats.increment(Counter.SEQUENTIAL_SWITCHES);
    }
    if (streamPath && !d.inOrder()) {
      dropOutside(first, first + Math.max(maxDepth, (len - 1) / blockSize + 1));
    }
    switch (d.kind()) {
      case EXACT -> readRange(position, dst, off, len, d.ahead(), streamPath);
      // An object of one block is fetched whole, once: a reader that jumps in it reads most of it.
      case SMALL_JUMP -> {
        if (length > blockSize) {
          readSmall(position, dst, off, len, streamPath);
        } else {
          copyFromBlocks(position, dst, off, len, planner, false);
        }
      }
      case IN_ORDER -> copyFromBlocks(position, dst, off, len, planner, true);
      case BLOCKS_AFTER_JUMP -> copyFromBlocks(position, dst, off, len, planner, false);
    }
    stats.add(Counter.BYTES_READ, len);
    if (streamPath) {
      dropBefore((position + len) / blockSize);
    }
    return len;
  }

  /**
   * Copies {@code [position, position + len)} from blocks: a read in order prefetches ahead at the
   * planner's depth; a read after a jump starts all the blocks it spans and nothing beyond.
   */
  private void copyFromBlocks(long position, byte[] dst, int off, int len, ReadPlanner planner, boolean inOrder)
      throws IOException {
    int done = 0;
    while (done < len) {
      long p = position + done;
      long index = p / blockSize;
      int depth = inOrder ? planner.enterBlock(index) : (int) ((position + len - 1) / blockSize - index);
      done += copyFromBlock(index, p, dst, off + done, len - done, depth);
    }
  }

  /** Copies what block {@code index} holds of {@code [p, p + max)}; returns the bytes copied. */
  private int copyFromBlock(long index, long p, byte[] dst, int off, int max, int prefetchDepth)
      throws IOException {
    while (true) {
      Block b = pinOrFetch(index);
      try {
        prefetch(index + 1, prefetchDepth);
        b.promote();
        boolean atHand = b.isReady();
        long waited = b.await();
        if (waited > 0) {
          stats.add(Counter.WAIT_NANOS, waited);
        }
        checkOpen();
        b.markUsed();
        lastUse.replace(b, clock.incrementAndGet());
        int inBlock = (int) (p - b.start());
        int n = Math.min(max, b.length() - inBlock);
        System.arraycopy(b.buffer(), inBlock, dst, off, n);
        b.noteRead(inBlock + n);
        if (atHand) {
          stats.add(Counter.BYTES_FROM_MEMORY, n);
        }
        return n;
      } catch (IOException e) {
        drop(index, b, false);
        checkOpen();
        if (e instanceof BlockCancelledException) {
          continue; // dropped and cancelled just before we pinned it; we still want it
        }
        throw e; // the block had its retries; a later read will fetch it afresh
      } catch (RuntimeException e) {
        drop(index, b, false); // never leave a failed block where the next read would find it
        throw e;
      } finally {
        b.unpin();
      }
    }
  }

  /** The block at {@code index}, pinned: from the map, or a new fetch (waiting for memory if need be). */
  private Block pinOrFetch(long index) throws IOException {
    while (true) {
      checkOpen();
      Block b = blocks.get(index);
      if (b != null) {
        if (b.tryPin()) {
          return b;
        }
        blocks.remove(index, b); // evicted by the pool: fetch it again
        lastUse.remove(b);
        continue;
      }
      if (blocks.size() >= maxBlocks) {
        dropLeastRecentlyUsed(); // positional reads must not make a stream hoard blocks
      }
      long start = index * blockSize;
      int len = (int) Math.min(blockSize, length - start);
      byte[] buffer = pool.acquire(bufferSize(len));
      // Owner + fetch + this reader.
      Block nb = new Block(index, start, buffer, len, false, pool, stats, 2);
      if (blocks.putIfAbsent(index, nb) != null) {
        nb.discard(2);
        continue;
      }
      start(nb, true);
      return nb;
    }
  }

  /**
   * A range read of a columnar reader, asynchronous: from the disk cache if exactly this range is there
   * (looked up on the fetch executor), else from S3 in parallel parts, then offered to the cache.
   */
  private CompletableFuture<Void> rangeAsync(long position, byte[] dst, int off, int len, boolean urgent) {
    if (disk.rangeKey(position, len) == null) {
      return fetchAsync(position, dst, off, len, urgent);
    }
    java.util.concurrent.atomic.AtomicBoolean hit = new java.util.concurrent.atomic.AtomicBoolean();
    CancelToken token = new CancelToken(this::closedError);
    inFlight.add(token);
    return fetcher.submitRead(urgent, token, () -> hit.set(disk.readRange(position, dst, off, len)),
            () -> inFlight.remove(token))
        .thenCompose(v -> hit.get() ? CompletableFuture.<Void>completedFuture(null)
            : fetchAsync(position, dst, off, len, urgent).thenRun(() -> disk.keepRange(position, dst, off, len)));
  }

  /** Starts fetching blocks {@code [from, from + depth)} not yet held, while memory allows. */
  private void prefetch(long from, int depth) {
    long last = Math.min(prefetchLimit, from + depth - 1);
    for (long i = from; i <= last && !closed.get(); i++) {
      if (blocks.containsKey(i)) {
        continue;
      }
      if (blocks.size() >= maxBlocks) {
        dropLeastRecentlyUsed();
        if (blocks.size() >= maxBlocks) {
          return;
        }
      }
      long start = i * blockSize;
      int len = (int) Math.min(blockSize, length - start);
      byte[] buffer = pool.tryAcquire(bufferSize(len));
      if (buffer == null) {
        return; // memory is short: prefetch less, never wait for it
      }
      Block nb = new Block(i, start, buffer, len, true, pool, stats, 1);
      if (blocks.putIfAbsent(i, nb) != null) {
        nb.discard(1);
        continue;
      }
      start(nb, false);
    }
  }

  private void start(Block b, boolean urgent) throws IllegalStateException {
    CancelToken token = new CancelToken(BlockCancelledException::new);
    inFlight.add(token);
    lastUse.put(b, clock.incrementAndGet());
    fetcher.submit(h, b, disk.blockKey(b.index()), urgent, token, () -> inFlight.remove(token));
    if (closed.get()) {
      // close() may have swept the map before this block was in it, or before it could be cancelled
      b.cancel();
      drop(b.index(), b, true);
    }
  }

  /**
   * A small read after a jump: from the disk cache if its blocks are there; else one GET, which on the
   * stream path also fetches the object's tail (a jump into it) or {@link #READAHEAD} more bytes, kept
   * for the reads that follow.
   */
  private void readSmall(long position, byte[] dst, int off, int len, boolean streamPath) throws IOException {
    if (disk.readBlocks(position, dst, off, len)) {
      return;
    }
    Block span = null;
    if (streamPath) {
      span = fetchTail(position, len);
      if (span == null) {
        int readahead = Math.min(READAHEAD, blockSize / 8);
        span = fetchSpan(position, (int) Math.min(length - position, (long) len + readahead), false);
        if (span != null) {
          setAhead(span);
        }
      }
      if (span != null && closed.get()) {
        releaseSpans(); // close() may have swept the spans before this one was set
      }
    }
    if (span == null) {
      readDirect(position, dst, off, len);
      return;
    }
    try {
      System.arraycopy(span.buffer(), (int) (position - span.start()), dst, off, len);
    } finally {
      span.unpin();
    }
  }

  /**
   * A columnar reader's range: exactly its bytes, from memory or the disk cache where they are there,
   * else from S3 (a large range in parallel parts); the first stream read into the object's end fetches
   * the tail at once (the footer and the metadata before it), and a stream read continuing a run also
   * fetches {@code ahead} more bytes, kept for the reads that follow.
   */
  private void readRange(long position, byte[] dst, int off, int len, int ahead, boolean streamPath)
      throws IOException {
    Block span = streamPath ? fetchTail(position, len) : null;
    if (span == null && streamPath && ahead > 0 && len <= PART) {
      if (disk.readBlocks(position, dst, off, len)) {
        return;
      }
      span = fetchSpan(position, (int) Math.min(length - position, (long) len + Math.min(ahead, PART)), true);
      if (span == null) {
        readDirect(position, dst, off, len); // memory is short
        return;
      }
      setAhead(span);
    }
    if (span != null) {
      if (closed.get()) {
        releaseSpans(); // close() may have swept the spans before this one was set
      }
      try {
        System.arraycopy(span.buffer(), (int) (position - span.start()), dst, off, len);
      } finally {
        span.unpin();
      }
      return;
    }
    if (len > PART) {
      awaitRange(rangeAsync(position, dst, off, len, true));
      return;
    }
    if (disk.readRange(position, dst, off, len)) {
      return;
    }
    CancelToken token = new CancelToken(this::closedError);
    inFlight.add(token);
    long t0 = System.nanoTime();
    try {
      checkOpen();
      readPart(position, dst, off, len, token);
    } finally {
      inFlight.remove(token);
      stats.add(Counter.WAIT_NANOS, System.nanoTime() - t0);
    }
    disk.keepRange(position, dst, off, len);
  }

  /**
   * On the first stream read into the object's tail ({@link #tailSize}) that it holds whole: fetches
   * that tail in one GET, keeps it for the reads that follow (the footer, then the metadata before it)
   * and returns it pinned for the caller. Null otherwise, or if memory is short.
   */
  private Block fetchTail(long position, int len) throws IOException {
    long tailStart = length - tailSize(length, blockSize);
    if (tail != null || position < tailStart) {
      return null;
    }
    Block span = fetchSpan(tailStart, (int) (length - tailStart), true);
    if (span != null) {
      tail = span;
    }
    return span;
  }

  /**
   * The tail a footer read fetches: 1/512 of the object, at least {@link #MIN_TAIL}, at most
   * {@link #TAIL} and a quarter of a block. A Parquet footer grows with columns times row groups, and
   * row groups with the file: a few KiB for a file of a few MB and a few columns, tens of KiB for a
   * large one. A footer larger than the tail costs one more GET, of exactly its bytes; a smaller one
   * wastes the rest, which on small files is most of what a projected read would otherwise pay for.
   */
  static int tailSize(long length, int blockSize) {
    long size = Math.max(MIN_TAIL, Math.min(length / 512, Math.min(TAIL, blockSize / 4)));
    return (int) Math.min(length, size);
  }

  private void awaitRange(CompletableFuture<Void> range) throws IOException {
    long t0 = System.nanoTime();
    try {
      range.get();
    } catch (InterruptedException e) {
      // The parts write into the caller's buffer: cancel this stream's requests and let them end
      // (bounded) before the caller gets its buffer back.
      for (CancelToken t : inFlight) {
        t.cancel();
      }
      try {
        range.get(closeWaitMillis, java.util.concurrent.TimeUnit.MILLISECONDS);
      } catch (Exception ended) {
        // cancelled, failed or still ending: the interrupt is what the caller hears of
      }
      Thread.currentThread().interrupt();
      throw new java.io.InterruptedIOException("interrupted while reading " + h.location());
    } catch (java.util.concurrent.ExecutionException e) {
      Throwable c = e.getCause();
      if (c instanceof IOException io) {
        throw io;
      }
      if (c instanceof RuntimeException r) {
        throw r;
      }
      throw new IOException(h.location() + ": " + c, c);
    } finally {
      stats.add(Counter.WAIT_NANOS, System.nanoTime() - t0);
    }
  }

  /**
   * Fetches {@code [start, start + len)} into a pooled buffer held as a block outside the grid, pinned
   * for the caller; null if memory is short (the caller then reads directly). With {@code keep} (a
   * footer's tail, a columnar range) it is looked up in the disk cache first and offered to it after.
   */
  private Block fetchSpan(long start, int len, boolean keep) throws IOException {
    byte[] buffer = pool.tryAcquire(BufferPool.sizeFor(len));
    if (buffer == null) {
      return null;
    }
    Block b = new Block(-1, start, buffer, len, false, pool, stats, 1);
    try {
      boolean cached = keep && disk.readRange(start, buffer, 0, len);
      if (!cached) {
        readDirect(start, buffer, 0, len);
      }
      b.complete();
      if (keep && !cached) {
        disk.keepRange(b); // a footer's tail or a columnar range: the next query reads it from disk
      }
      return b;
    } catch (IOException | RuntimeException e) {
      b.fail(e);
      b.unpin();
      b.releaseOwner();
      throw e;
    }
  }

  private void setAhead(Block span) {
    Block old = ahead;
    ahead = span;
    if (old != null) {
      old.releaseOwner();
    }
  }

  /** Copies {@code [p, p + len)} from {@code span} if it holds all of it; false otherwise. */
  private static boolean copyFromSpan(Block span, long p, byte[] dst, int off, int len) {
    if (span == null || p < span.start() || p + len > span.end() || !span.tryPin()) {
      return false;
    }
    try {
      if (!span.isReady()) {
        return false;
      }
      System.arraycopy(span.buffer(), (int) (p - span.start()), dst, off, len);
      return true;
    } finally {
      span.unpin();
    }
  }

  private void readDirect(long position, byte[] dst, int off, int len) throws IOException {
    CancelToken token = new CancelToken(this::closedError);
    inFlight.add(token);
    try {
      checkOpen();
      long t0 = System.nanoTime();
      fetcher.readDirect(h, position, dst, off, len, token);
      stats.add(Counter.WAIT_NANOS, System.nanoTime() - t0);
    } finally {
      inFlight.remove(token);
    }
  }

  private int bufferSize(int blockLength) {
    return BufferPool.blockBufferSize(length, blockSize, blockLength);
  }

  // ---- asynchronous range reads (vectored) ---------------------------------------------------

  @Override
  public CompletableFuture<Void> readFullyAsync(long position, byte[] dst, int off, int len) {
    try {
      Objects.checkFromIndexSize(off, len, dst.length);
      checkOpen();
      if (position < 0 || position + len > length) {
        throw new EOFException(h.location() + ": cannot read " + len + " bytes at " + position
            + (position < 0 ? "" : ", past the end (length " + length + ")"));
      }
    } catch (IOException | RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
    if (len == 0) {
      return CompletableFuture.completedFuture(null);
    }
    RowGroupAhead rowGroups = rowGroupAhead();
    CompletableFuture<Void> done = rowGroups == null ? null : rowGroups.serve(position, dst, off, len);
    if (done == null) {
      done = rangeAsync(position, dst, off, len, true);
    }
    return done.thenRun(() -> stats.add(Counter.BYTES_READ, len));
  }

  /**
   * The Parquet row-group read-ahead of this stream, once the object's tail shows a Parquet footer;
   * null for anything else.
   */
  private RowGroupAhead rowGroupAhead() {
    synchronized (inFlight) {
      if (rowGroups != null || footerTried) {
        return rowGroups;
      }
      Block t = tail;
      if (t == null || !t.tryPin()) {
        return null; // no footer read yet: try again with the next range read
      }
      try {
        if (!t.isReady()) {
          return null;
        }
        footerTried = true;
        ParquetFooter footer = ParquetFooter.parse(t.buffer(), t.length(), length);
        if (footer != null && !closed.get()) {
          // Through the range cache: a row group fetched ahead by an earlier query is read from disk.
          rowGroups = new RowGroupAhead(footer, pool, (p, d, o, n) -> rangeAsync(p, d, o, n, false), stats);
        }
        return rowGroups;
      } finally {
        t.unpin();
      }
    }
  }

  /** Reads {@code [position, position + len)} into {@code dst} in parallel parts on the fetch executor. */
  private CompletableFuture<Void> fetchAsync(long position, byte[] dst, int off, int len, boolean urgent) {
    int parts = (len + PART - 1) / PART;
    int partSize = (len + parts - 1) / parts;
    List<CompletableFuture<Void>> all = new ArrayList<>(parts);
    for (int done = 0; done < len; done += partSize) {
      long p = position + done;
      int o = off + done;
      int n = Math.min(partSize, len - done);
      CancelToken token = new CancelToken(this::closedError);
      inFlight.add(token);
      all.add(fetcher.submitRead(urgent, token, () -> readPart(p, dst, o, n, token), () -> inFlight.remove(token)));
    }
    return CompletableFuture.allOf(all.toArray(CompletableFuture[]::new));
  }

  /**
   * One part of an asynchronous read, on a fetch thread: each block's share comes from memory if the
   * block is there and fetched, else from the disk cache, else from S3 -- consecutive shares missing
   * from both in one GET. Never waits for another fetch.
   */
  private void readPart(long position, byte[] dst, int off, int len, CancelToken token) throws IOException {
    long missingFrom = -1;
    int done = 0;
    while (done < len) {
      long p = position + done;
      long index = p / blockSize;
      int n = (int) Math.min(len - done, (index + 1) * blockSize - p);
      boolean served = copyIfReady(index, p, dst, off + done, n) || disk.readBlocks(p, dst, off + done, n);
      if (served && missingFrom >= 0) {
        fetchMissing(missingFrom, p, position, dst, off, token);
        missingFrom = -1;
      } else if (!served && missingFrom < 0) {
        missingFrom = p;
      }
      done += n;
    }
    if (missingFrom >= 0) {
      fetchMissing(missingFrom, position + len, position, dst, off, token);
    }
  }

  private void fetchMissing(long from, long to, long position, byte[] dst, int off, CancelToken token)
      throws IOException {
    checkOpen();
    fetcher.readDirect(h, from, dst, off + (int) (from - position), (int) (to - from), token);
  }

  /** Copies from block {@code index} if it is in memory and fetched; never waits. */
  private boolean copyIfReady(long index, long p, byte[] dst, int off, int n) {
    Block b = blocks.get(index);
    if (b == null || !b.isReady() || !b.tryPin()) {
      return false;
    }
    try {
      if (!b.isReady()) {
        return false;
      }
      int inBlock = (int) (p - b.start());
      System.arraycopy(b.buffer(), inBlock, dst, off, n);
      b.noteRead(inBlock + n);
      stats.add(Counter.BYTES_FROM_MEMORY, n);
      return true;
    } finally {
      b.unpin();
    }
  }

  // ---- dropping blocks -----------------------------------------------------------------------

  /**
   * Takes a block out of the map and drops the owner's reference. Its fetch is cancelled if no reader
   * is waiting for it, or with {@code force} (close): a waiting reader then gets the closed error. A
   * fetched block not read to its end goes to the disk cache (every fetched block, in mode 'all').
   */
  private boolean drop(long index, Block b, boolean force) {
    lastUse.remove(b);
    if (!blocks.remove(index, b)) {
      return false;
    }
    if (!b.isDone() && (force || !b.isWanted())) {
      b.cancel();
    }
    disk.blockDropped(b);
    b.releaseOwner();
    return true;
  }

  /** The sequential reader moved on: blocks behind it are done with. */
  private void dropBefore(long index) {
    for (Map.Entry<Long, Block> e : blocks.entrySet()) {
      if (e.getKey() < index) {
        drop(e.getKey(), e.getValue(), false);
      }
    }
  }

  /** After a jump: what was fetched for the old position is dropped. */
  private void dropOutside(long from, long to) {
    for (Map.Entry<Long, Block> e : blocks.entrySet()) {
      if (e.getKey() < from || e.getKey() > to) {
        drop(e.getKey(), e.getValue(), false);
      }
    }
  }

  private void dropLeastRecentlyUsed() {
    Block victim = null;
    long oldest = Long.MAX_VALUE;
    for (Block b : blocks.values()) {
      if (!b.isDone()) {
        continue;
      }
      long t = lastUse.getOrDefault(b, 0L);
      if (t < oldest) {
        oldest = t;
        victim = b;
      }
    }
    if (victim != null) {
      drop(victim.index(), victim, false);
    }
  }

  /**
   * Gives every buffer back and cancels prefetches, keeping the position: for callers that keep many
   * streams open but idle (Hadoop's {@code CanUnbuffer}). The next read fetches again.
   */
  @Override
  public void unbuffer() {
    seqLock.lock();
    try {
      java.util.List<Block> dropped = new java.util.ArrayList<>();
      for (Map.Entry<Long, Block> e : blocks.entrySet()) {
        if (drop(e.getKey(), e.getValue(), false)) {
          dropped.add(e.getValue());
        }
      }
      releaseSpans();
      RowGroupAhead rg;
      synchronized (inFlight) {
        rg = rowGroups;
      }
      if (rg != null) {
        rg.clear();
      }
      long deadline = System.currentTimeMillis() + closeWaitMillis;
      for (Block b : dropped) {
        b.awaitFetchEnd(Math.max(0, deadline - System.currentTimeMillis()));
      }
    } finally {
      seqLock.unlock();
    }
  }

  // ---- close ---------------------------------------------------------------------------------

  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    for (Map.Entry<Long, Block> e : blocks.entrySet()) {
      drop(e.getKey(), e.getValue(), true);
    }
    RowGroupAhead rg;
    synchronized (inFlight) {
      rg = rowGroups;
    }
    if (rg != null) {
      rg.close(); // before awaitEnd: its fetches are among the requests cancelled there
    }
    awaitEnd(inFlight);
    Block a = adopted;
    if (a != null && !a.awaitFetchEnd(closeWaitMillis)) {
      LOG.warn("{}: a block fetched ahead was still being fetched {} ms after close", h.location(), closeWaitMillis);
    }
    releaseSpans();
  }

  /** Drops the tail and readahead spans; their buffers return once no reader copies from them. */
  private void releaseSpans() {
    Block t = tail;
    Block a = ahead;
    tail = null;
    ahead = null;
    if (t != null) {
      t.releaseOwner();
    }
    if (a != null) {
      a.releaseOwner();
    }
  }

  /** Cancels the requests in {@code requests} and waits, bounded, until they have ended. */
  private void awaitEnd(Set<CancelToken> requests) {
    long deadline = System.nanoTime() + closeWaitMillis * 1_000_000L;
    while (!requests.isEmpty()) {
      for (CancelToken t : requests) {
        t.cancel();
      }
      if (System.nanoTime() > deadline) {
        LOG.warn("{}: {} request(s) still ending {} ms after they were cancelled", h.location(), requests.size(),
            closeWaitMillis);
        return;
      }
      try {
        Thread.sleep(1);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
  }

  private void checkOpen() throws IOException {
    if (closed.get()) {
      throw closedError();
    }
  }

  private IOException closedError() {
    return new IOException("stream closed: " + h.location());
  }

  @Override
  public String toString() {
    return "ObjectReader[" + h.location() + ", length " + length + ", etag " + h.etag() + "]";
  }
}
