/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.read;

import dev.slipstream.Counter;
import dev.slipstream.ReadPolicy;
import dev.slipstream.ReadStatistics;
import dev.slipstream.S3Location;
import dev.slipstream.SlipstreamInputStream;
import dev.slipstream.internal.ahead.AheadBudget;
import dev.slipstream.internal.ahead.AheadFetch;
import dev.slipstream.internal.ahead.HeldSpans;
import dev.slipstream.internal.ahead.ReadsAhead;
import dev.slipstream.internal.block.Block;
import dev.slipstream.internal.block.BufferPool;
import dev.slipstream.internal.block.HeapRegions;
import dev.slipstream.internal.block.Span;
import dev.slipstream.internal.fetch.BlockFetcher;
import dev.slipstream.internal.fetch.ObjectHandle;
import dev.slipstream.internal.fetch.Purpose;
import dev.slipstream.internal.fetch.StreamRequests;
import dev.slipstream.internal.learn.LearnedDepth;
import dev.slipstream.internal.orc.OrcAhead;
import dev.slipstream.internal.orc.OrcLayout;
import dev.slipstream.internal.orc.OrcLayouts;
import dev.slipstream.internal.orc.StreamOrcLayout;
import dev.slipstream.internal.parquet.ParquetAhead;
import dev.slipstream.internal.parquet.ParquetFooters;
import dev.slipstream.internal.parquet.StreamFooter;
import dev.slipstream.internal.source.RangeThrough;
import dev.slipstream.internal.source.SourceChain;
import dev.slipstream.internal.source.Sources;
import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.locks.ReentrantLock;

/**
 * One open object, as a stream: the position, the sequential and positional API, and, per read, which
 * part serves it. {@link ReadPlanner} tells how (one planner for the stream position, one for positional
 * reads):
 * <ul>
 *   <li>in order, or a large jump: the blocks of the {@link BlockWindow}, prefetched ahead when in order;</li>
 *   <li>a small jump, or a range of a columnar reader: {@link JumpReads}, about what is asked for (an
 *       object no larger than a block is fetched whole, once, instead);</li>
 *   <li>asynchronous (vectored) ranges: {@link VectoredReads}.</li>
 * </ul>
 * A columnar read (a range, or a vectored read) first tells the parts that fetch ahead of it ({@link
 * ReadsAhead}), one a format room, at named moments (before such a read, on unbuffer and close, once
 * closed): {@link ParquetAhead}, a predicted column's chunks from its first read and, at vectored reads,
 * the later row groups' same chunks; {@link OrcAhead}, the footers of the split's next stripes at a read
 * in a stripe and the next stripes' streams of the reader's columns. What they fetch is held in the
 * stream's one store ({@link HeldSpans}), within its one budget for bytes held ahead, where every kind of
 * read finds it. Every read is counted against the Parquet footer's columns ({@link
 * StreamFooter#countRead}), which the client's predicted columns learn from when the stream closes.
 * Whatever is not in the stream's memory comes through its {@link SourceChain}: the memory, disk and
 * shared tiers where configured, then S3; a block by {@link BlockWindow}, a range outside the block grid
 * through the chain's read-through of ranges ({@link RangeThrough}), which the parts above call and which
 * alone asks the tiers and S3 about a range.
 *
 * <p>Rules kept here: {@code close()} cancels every request of the stream and waits, bounded, for them to
 * end ({@link StreamRequests}), so that no request outlives the stream. The blocks a read of the stream's
 * position leaves behind, and after a jump those far from the new position, are dropped by the window,
 * which moves with the read ({@link BlockWindow#copy}, {@link BlockWindow#jumpTo}).
 */
public final class ObjectReader extends SlipstreamInputStream {
  private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(ObjectReader.class);

  private final ObjectHandle h;
  private final int blockSize;
  private final long length;
  private final ReadStatistics stats;
  private final StreamRequests requests;
  private final BlockWindow window;
  private final HeldSpans spans;
  private final StreamFooter parquet;
  /** The parts that fetch ahead of columnar reads, one a format room, told at each moment in this order. */
  private final List<ReadsAhead> readsAhead;
  private final JumpReads jumps;
  private final VectoredReads vectored;
  private final ReentrantLock seqLock = new ReentrantLock();
  private final ReadPlanner seqPlanner;
  private final ReadPlanner posPlanner;
  private final ReadPolicy policy;
  private long pos;

  /**
   * @param sources where the chain of this object's sources comes from
   * @param learned the prefetch depth the client has learned, shared by its streams
   * @param footers the Parquet footers the client has parsed, by object version
   * @param layouts the ORC layouts the client has learnt, by object version
   */
  public ObjectReader(ObjectHandle h, BufferPool pool, BlockFetcher fetcher, Sources sources, int blockSize,
      int maxDepth, LearnedDepth learned, ParquetFooters footers, OrcLayouts layouts, ReadPolicy policy, long splitEnd,
      long closeWaitMillis) {
    this.h = h;
    this.policy = policy;
    this.blockSize = blockSize;
    this.length = h.length();
    this.stats = h.stats();
    // Built in the order they depend on one another, each given what it uses: nothing is wired later.
    this.requests = new StreamRequests(h, closeWaitMillis);
    HeldBlocks blocks = new HeldBlocks(stats);
    SourceChain chain = sources.chain(h, blocks, blockSize);
    this.window = new BlockWindow(h, pool, fetcher, chain, blocks, requests, blockSize, maxDepth, splitEnd,
        policy == ReadPolicy.SEQUENTIAL);
    // One store for the bytes held outside the blocks, and one budget for what it holds ahead, whichever part
    // fetched it: as many bytes as a sequential reader may have in flight.
    this.spans = new HeldSpans(new AheadBudget((long) maxDepth * blockSize));
    StreamOrcLayout orc = new StreamOrcLayout(h, layouts);
    this.parquet = new StreamFooter(h, footers, orc, spans);
    // What a stream holds ahead of its reader comes in pieces G1 does not make humongous (HeapRegions),
    // and ranges are kept in the tiers in the same pieces.
    int piece = HeapRegions.current().largestOrdinary(blockSize);
    RangeThrough ranges = chain.ranges(fetcher, requests, piece);
    this.vectored = new VectoredReads(ranges, stats, spans);
    this.jumps = new JumpReads(h, requests, spans, parquet, ranges, blockSize);
    // One part a format room: a Parquet file's predicted columns and row groups, an ORC file's stripe
    // footers and streams; each a no-op for a file of the other format.
    this.readsAhead = List.of(
        new ParquetAhead(parquet, spans, ahead(ranges, pool, Purpose.PREDICTED_COLUMN),
            ahead(ranges, pool, Purpose.ROW_GROUP_AHEAD), stats, blockSize, piece, h.location(), length, splitEnd),
        new OrcAhead(orc, footers.columns(), spans, ahead(ranges, pool, Purpose.STRIPE_FOOTER),
            ahead(ranges, pool, Purpose.STRIPE_AHEAD), stats, piece, length, splitEnd));
    this.seqPlanner = new ReadPlanner(blockSize, maxDepth, policy, h.length(), learned);
    this.posPlanner = new ReadPlanner(blockSize, maxDepth, policy, h.length(), learned);
  }

  /** Spans this stream fetches ahead of its reads, for {@code why}, through {@code ranges}. */
  private AheadFetch ahead(RangeThrough ranges, BufferPool pool, Purpose why) {
    return AheadFetch.of(ranges, why, spans, pool, requests, stats);
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
    window.adopt(b);
  }

  /**
   * Open-ahead for a reader that starts at the footer ({@link StreamsAhead}): the first read such a reader
   * makes, its last 8 bytes, is made now, which fetches the object's tail (a Parquet or ORC footer and the
   * metadata before it) and learns its layout; the position stays at 0. Blocks until the tail is in; counts
   * no bytes read.
   */
  void readTailAhead() throws IOException {
    seqLock.lock();
    try {
      checkOpen();
      int n = (int) Math.min(8, length);
      if (n > 0) {
        readAt(length - n, new byte[n], 0, n, seqPlanner, true);
        stats.add(Counter.BYTES_READ, -n); // no caller read them
      }
    } finally {
      seqLock.unlock();
    }
  }

  /**
   * {@code next}, a stream prepared for the file the reader is expected to open after this one ({@link
   * StreamsAhead}), fetches ahead what this stream's reads show the reader wants of each file (a Parquet
   * file's predicted columns it touches), now and until this stream closes.
   */
  void followedBy(ObjectReader next) {
    for (int i = 0; i < readsAhead.size(); i++) {
      readsAhead.get(i).followedBy(next.readsAhead.get(i));
    }
  }

  /**
   * This stream is read after {@code previous}, the stream of another file the same thread read before
   * ({@link StreamsAhead#opened}): what that one read may tell what this one's reader wants (a Parquet
   * file's predicted columns, fetched in one wave once this one's first reads agree).
   */
  void after(ObjectReader previous) {
    for (int i = 0; i < readsAhead.size(); i++) {
      readsAhead.get(i).after(previous.readsAhead.get(i));
    }
  }

  /** Back to the object's first byte: for a stream handed to another open ({@link StreamsAhead}). */
  void rewind() {
    seqLock.lock();
    try {
      pos = 0;
    } finally {
      seqLock.unlock();
    }
  }

  /** The read policy the stream was opened with. */
  ReadPolicy policy() {
    return policy;
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
    return readInto(dst, length - getPos(), this::read);
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
    return readInto(dst, length - position, (b, off, len) -> read(position, b, off, len));
  }

  /** A read into an array, as {@link #read(byte[], int, int)} is. */
  @FunctionalInterface
  private interface ArrayRead {
    int read(byte[] b, int off, int len) throws IOException;
  }

  /**
   * A read into {@code dst} through {@code read}, the same read into an array: straight into a heap
   * buffer's array, else into a copy of at most a block and at most {@code left} bytes (the bytes left
   * from where the read starts, at least one: a read at the end then returns -1 as the array read does).
   */
  private int readInto(ByteBuffer dst, long left, ArrayRead read) throws IOException {
    if (dst.hasArray()) {
      int n = read.read(dst.array(), dst.arrayOffset() + dst.position(), dst.remaining());
      if (n > 0) {
        dst.position(dst.position() + n);
      }
      return n;
    }
    int size = dst.hasRemaining() ? (int) Math.max(1, Math.min(dst.remaining(), Math.min(left, blockSize))) : 0;
    byte[] tmp = new byte[size];
    int n = read.read(tmp, 0, size);
    if (n > 0) {
      dst.put(tmp, 0, n);
    }
    return n;
  }

  // ---- the read path -------------------------------------------------------------------------

  /**
   * Reads {@code min(asked, length - position)} bytes at {@code position}; position is inside the object.
   * First what the stream knows is asked, a class at a time (the footer counts the read, the held spans may
   * have it all, the planner says how it goes); then the read is handed to the one part that serves it: on
   * the stream's path, the window moves with it in the same call (a jump drops the old position's blocks
   * before the read, and the blocks behind it after: {@link BlockWindow#copy}, {@link BlockWindow#jumpTo});
   * then one step after it: the footer taught what the read brought (the object's tail, handed up by {@link
   * JumpReads}).
   */
  private int readAt(long position, byte[] dst, int off, int asked, ReadPlanner planner, boolean streamPath)
      throws IOException {
    int len = (int) Math.min(asked, length - position);
    parquet.countRead(position, len);
    long first = position / blockSize;
    if (streamPath && spans.copyAll(position, dst, off, len)) {
      // Bytes at hand: neither a jump nor a reason to prefetch, but part of a run of reads in order.
      if (planner.onRead(position, len, true, false).switched()) {
        stats.increment(Counter.SEQUENTIAL_SWITCHES);
      }
      stats.add(Counter.BYTES_READ, len);
      stats.add(Counter.BYTES_FROM_MEMORY, len);
      parquet.offerRead(position, dst, off, len, false, null);
      return len;
    }
    ReadPlanner.Decision d = planner.onRead(position, len, window.holds(first), parquet.covers(position));
    if (d.switched()) {
      stats.increment(Counter.SEQUENTIAL_SWITCHES);
    }
    Span tail = null; // the object's tail, if this read fetched it: pinned until the footer has learnt from it
    try {
      switch (d.kind()) {
        case IN_ORDER, BLOCKS_AFTER_JUMP -> window.copy(position, dst, off, len, planner, d.inOrder(), streamPath);
        case EXACT, SMALL_JUMP -> {
          // About what the read asks for, the window moved with it on the stream's path (the old position's
          // blocks dropped before, those behind it after); a columnar reader's range first tells the parts
          // that fetch ahead of it, which start beside the read.
          if (streamPath) {
            window.jumpTo(position, len);
          }
          if (d.kind() == ReadPlanner.Kind.EXACT) {
            for (ReadsAhead r : readsAhead) {
              r.onRead(position, len);
            }
          }
          tail = jumps.readRange(position, dst, off, len, d, streamPath);
          if (streamPath) {
            window.jumpRead(position, len);
          }
        }
      }
      // After the read, one step: the footer learns from it.
      stats.add(Counter.BYTES_READ, len);
      parquet.offerRead(position, dst, off, len, streamPath, tail);
    } finally {
      if (tail != null) {
        tail.unpin();
      }
    }
    return len;
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
    parquet.countRead(position, len);
    for (ReadsAhead r : readsAhead) {
      r.onVectoredRead(position, len);
    }
    return vectored.read(position, dst, off, len);
  }

  /**
   * Gives every buffer back and cancels prefetches, keeping the position: for callers that keep many
   * streams open but idle (Hadoop's {@code CanUnbuffer}). The next read fetches again.
   */
  @Override
  public void unbuffer() {
    seqLock.lock();
    try {
      List<Block> dropped = window.dropAll(false);
      for (ReadsAhead r : readsAhead) {
        r.stop(false); // the plans first: room the spans give back starts nothing
      }
      spans.releaseAll();
      long deadline = System.currentTimeMillis() + requests.closeWaitMillis();
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
    if (!requests.close()) {
      return;
    }
    window.dropAll(true);
    for (ReadsAhead r : readsAhead) {
      r.stop(true); // before awaitEnd: their fetches are among the requests cancelled there
    }
    requests.awaitEnd();
    if (!window.awaitAdoptedFetch(requests.closeWaitMillis())) {
      LOG.warn("{}: a block fetched ahead was still being fetched {} ms after close", h.location(),
          requests.closeWaitMillis());
    }
    spans.releaseAll();
    for (ReadsAhead r : readsAhead) {
      r.closed(); // what each learnt, told to the client
    }
  }

  private void checkOpen() throws IOException {
    requests.checkOpen();
  }

  /** The stream's one budget for the bytes it holds ahead (for tests and diagnostics). */
  AheadBudget aheadBudget() {
    return spans.budget();
  }

  /** The ORC layout this stream reads by, held for its life; null if none (for tests and diagnostics). */
  OrcLayout orcLayout() {
    return parquet.orc().layout();
  }

  @Override
  public String toString() {
    return "ObjectReader[" + h.location() + ", length " + length + ", etag " + h.etag() + "]";
  }
}
