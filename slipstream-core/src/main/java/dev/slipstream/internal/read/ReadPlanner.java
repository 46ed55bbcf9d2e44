/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.read;

import dev.slipstream.ReadPolicy;
import dev.slipstream.internal.learn.LearnedDepth;

/**
 * Decides, for each read, how it is served: as part of a run in order (blocks, fetched ahead), or as a
 * jump (just its own bytes, or the blocks it spans), or as a range of a columnar reader (exactly its
 * bytes). One planner serves the stream position, another the positional reads of a stream.
 *
 * <p><b>Two modes.</b> A planner starts in one of them and a stream may change mode once:
 * <ul>
 *   <li><b>Prefetching</b> ({@link ReadPolicy#ADAPTIVE}, {@link ReadPolicy#SEQUENTIAL}). A read continues
 *       the previous one if it starts where that one ended, or a little ahead of it (at most
 *       {@link #SKIP_TOLERANCE} bytes, as a reader skipping a record header does), or if its block is
 *       already in memory. The first read counts as continuing from position 0. How far a run fetches ahead
 *       is {@link AheadDepth}'s to say: 2 blocks at first, so that a reader that reads a header and
 *       jumps away wastes at most a block or two ({@code SEQUENTIAL}, a promised run: {@code prefetch.blocks}
 *       at once), then as deep as the reader needs
 *       (docs/architecture.md, rule 5). A jump resets the depth;
 *       a small read after it fetches its own bytes ({@link Kind#SMALL_JUMP}), a large one, or any read of an
 *       object no larger than a block, the blocks it spans ({@link Kind#BLOCKS_AFTER_JUMP}).</li>
 *   <li><b>Ranges</b> ({@link ReadPolicy#RANDOM}: the caller said it reads a footer and then ranges, as
 *       Parquet and ORC readers do; or an {@code ADAPTIVE} stream whose first read lands in the object's
 *       last {@link #TAIL_ZONE} bytes, which is how such readers start, or in a column chunk or the page
 *       indexes of the Parquet footer the client has for the object, as a reader opened again after its
 *       footer was read starts). Every read is a range ({@link Kind#EXACT}): never padded to a block, an
 *       object of one block not fetched whole, its extent {@link JumpReads}' to say;
 *       a read that continues the previous one also fetches as many bytes again as its run has read
 *       (so a range read in small pieces costs a few requests, and at most twice its bytes). Prefetch
 *       must be earned: once a run of at least {@link #PROOF_READS} reads, each
 *       continuing the last, has covered {@link #proofBytes} bytes, the reads that continue it are served
 *       in order with prefetch ({@link Decision#switched()} marks the read that switched, for the
 *       counter); a jump ends the run and the next reads are ranges again.</li>
 * </ul>
 *
 * <p>Thread-safe: the positional reads of many threads share one instance (the stream position has its
 * own).
 */
final class ReadPlanner {
  /** How one read is served. */
  enum Kind {
    /** Part of a run in order: from blocks, fetching ahead at {@link #enterBlock}'s depth. */
    IN_ORDER,
    /** A small read after a jump (prefetching mode): its own bytes, plus a little readahead. */
    SMALL_JUMP,
    /** A large read after a jump (prefetching mode): the blocks it spans, nothing beyond. */
    BLOCKS_AFTER_JUMP,
    /** A range of a columnar reader: exactly its bytes. */
    EXACT
  }

  /**
   * What to do for one read.
   *
   * @param ahead for {@link Kind#EXACT}: bytes to fetch beyond the read, for the reads that continue it
   * @param switched this read made a ranges-mode stream start prefetching (counted by the caller)
   * @param inRun for {@link Kind#EXACT}: the read continues a run of reads in order (not its first)
   */
  record Decision(Kind kind, int ahead, boolean switched, boolean inRun) {
    Decision(Kind kind, int ahead, boolean switched) {
      this(kind, ahead, switched, false);
    }

    boolean inOrder() {
      return kind == Kind.IN_ORDER;
    }
  }

  /** A forward gap this small still counts as reading in order; S3A's default readahead is 64 KiB. */
  static final int SKIP_TOLERANCE = 64 * 1024;
  /**
   * The end of an object where a first read means a footer (Parquet's last 8 bytes, ORC's postscript):
   * an {@code ADAPTIVE} stream starting there reads in ranges.
   */
  static final int TAIL_ZONE = 1024 * 1024;
  /** Reads in a row, each continuing the last, before a ranges-mode stream may prefetch. */
  static final int PROOF_READS = 2;

  private final int blockSize;
  private final long length;
  /** Bytes a run of reads in order must cover before a ranges-mode stream prefetches. */
  private final long proofBytes;
  private final boolean adaptive;
  private boolean ranges;
  private boolean anyRead;
  private long nextExpected;
  private final AheadDepth depth;
  /** Ranges mode: reads and bytes of the current run of reads in order, and whether it proved itself. */
  private int runReads;
  private long runBytes;
  private boolean proven;

  /**
   * @param policy the caller's promise: {@link ReadPolicy#SEQUENTIAL} starts at full depth,
   *     {@link ReadPolicy#RANDOM} in ranges mode
   * @param length the object's length
   * @param learned the depth the client has learned (see {@link AheadDepth})
   */
  ReadPlanner(int blockSize, int maxDepth, ReadPolicy policy, long length, LearnedDepth learned) {
    this.blockSize = blockSize;
    this.length = length;
    this.depth = new AheadDepth(maxDepth, policy == ReadPolicy.SEQUENTIAL, learned);
    this.ranges = policy == ReadPolicy.RANDOM;
    this.adaptive = policy == ReadPolicy.ADAPTIVE;
    this.proofBytes = Math.max(SKIP_TOLERANCE, blockSize / 8);
  }

  /**
   * @param blockInMemory the block of {@code position} is in the stream's memory
   * @param planned the stream's Parquet footer has a column chunk or the page indexes at {@code position}
   */
  synchronized Decision onRead(long position, int len, boolean blockInMemory, boolean planned) {
    boolean first = !anyRead;
    anyRead = true;
    if (first && adaptive && (planned || position > 0 && position >= length - TAIL_ZONE)) {
      ranges = true; // a footer, or a column chunk, first: this reader reads ranges
    }
    // With no read yet, 'continuing' means starting at (or just after) 0.
    boolean continuing = position >= nextExpected
        && position - nextExpected <= Math.min(SKIP_TOLERANCE, blockSize / 4);
    nextExpected = position + len;
    return ranges ? rangesMode(continuing, len) : prefetchingMode(continuing || blockInMemory, len);
  }

  private Decision prefetchingMode(boolean sequential, int len) {
    if (sequential) {
      return new Decision(Kind.IN_ORDER, 0, false);
    }
    depth.reset();
    // A small read after a jump costs one GET of about its bytes, not a block-sized one; but an object of
    // one block is fetched whole, once: a reader that jumps in it reads most of it.
    boolean small = len < blockSize / 2 && length > blockSize;
    return new Decision(small ? Kind.SMALL_JUMP : Kind.BLOCKS_AFTER_JUMP, 0, false);
  }

  private Decision rangesMode(boolean continuing, int len) {
    if (!continuing) {
      runReads = 0;
      runBytes = 0;
      proven = false;
      depth.reset();
    }
    boolean switched = false;
    if (!proven && runReads >= PROOF_READS && runBytes >= proofBytes) {
      proven = true; // earned by the reads before this one
      switched = true;
    }
    // A run not yet proven fetches, beyond each read, as much as it has read so far: a reader taking a
    // range in small pieces costs a few GETs (the span doubles), and never more than twice its bytes.
    int ahead = proven || runReads == 0 ? 0 : (int) Math.max(0, Math.min(runBytes, proofBytes) - len);
    runReads++;
    runBytes += len;
    return new Decision(proven ? Kind.IN_ORDER : Kind.EXACT, ahead, switched, runReads > 1);
  }

  /** Whether reads are served as ranges (for tests and diagnostics). */
  synchronized boolean readsRanges() {
    return ranges;
  }

  /**
   * A sequential read moves into block {@code index}. Called per block, so that one large read spanning
   * blocks counts each.
   *
   * @return the prefetch depth to use from this block on
   */
  synchronized int enterBlock(long index) {
    return depth.enter(index);
  }

  /** Whether the blocks a run fetches ahead now come in parts (see {@link AheadDepth#partsAhead}). */
  synchronized boolean partsAhead(int windowBlocks) {
    return depth.partsAhead(windowBlocks);
  }

  /** Whether the block a run waits for now comes in parts (see {@link AheadDepth#partsNow}). */
  synchronized boolean partsNow(int windowBlocks) {
    return depth.partsNow(windowBlocks);
  }

  /** The block a sequential read entered last was there ({@code waited} false) or had to be waited for. */
  synchronized void blockArrived(long index, boolean waited) {
    depth.arrived(index, waited);
  }
}
