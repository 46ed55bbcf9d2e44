/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */

/**
 * The open stream. {@link dev.slipstream.internal.read.ObjectReader} is its face: the position, the
 * sequential and positional API, and which part serves each read, as
 * {@link dev.slipstream.internal.read.ReadPlanner} tells: moving forward (fetch ahead, deeper and
 * deeper), jumping (fetch only about what is asked for), or reading the ranges of a columnar file (the
 * footer's tail, then exactly each range; prefetch only once reads prove sequential), and
 * {@link dev.slipstream.internal.read.PrefetchDepth} how far a run fetches ahead.
 *
 * <p>The parts, each built once per stream and given what it uses at construction, in this order (none
 * is wired to another later):
 * <ul>
 *   <li>{@link dev.slipstream.internal.read.StreamRequests}: whether the stream is closed, and every
 *       request of it, by its cancel token, so that {@code close()} can cancel them and wait; a caller
 *       who waits for a read waits here, and an interrupt cancels the requests made for that caller, never
 *       another thread's nor a fetch other reads share;</li>
 *   <li>{@link dev.slipstream.internal.read.HeldBlocks}: the blocks the stream holds, by index; the
 *       stream's {@link dev.slipstream.internal.source.SourceChain} is built over them (they serve the
 *       shares of range reads that cross them, never a block the chain fetches);</li>
 *   <li>{@link dev.slipstream.internal.read.BlockWindow}: fills and drops those blocks (pin, fetch
 *       through the chain, prefetch depth, the per-stream cap); reads in order and after large jumps;</li>
 *   <li>{@link dev.slipstream.internal.read.HeldSpans}: what the stream fetched outside its blocks (the
 *       object's tail, a column chunk, a readahead, the predicted chunks), copied by every kind of read
 *       before it fetches;</li>
 *   <li>{@link dev.slipstream.internal.read.StreamPlan}: the stream's Parquet plan ({@link
 *       dev.slipstream.internal.read.ParquetFooter}), taken from the client's {@link
 *       dev.slipstream.internal.read.ParquetPlans} for the version it reads, or parsed from the tail or
 *       the footer it read and given to the client, so that every later stream of that version reads by
 *       it; for an ORC file, its {@link dev.slipstream.internal.read.OrcStreamPlan}: the stripes from the
 *       tail ({@link dev.slipstream.internal.read.OrcTail}), each stripe's streams from its footer, kept
 *       by version in the client's {@link dev.slipstream.internal.read.OrcPlans};</li>
 *   <li>{@link dev.slipstream.internal.read.RangeFetches}: the read-through of a range outside the
 *       blocks, the one place such a read asks the chain: as a tier kept it, else fetched (in parallel
 *       parts when large or asynchronous, each one of the stream's requests), then offered to the
 *       tiers;</li>
 *   <li>{@link dev.slipstream.internal.read.VectoredReads}: asynchronous (vectored) ranges: what the
 *       spans hold, the rest by {@link dev.slipstream.internal.read.RangeFetches}; with a plan,
 *       {@link dev.slipstream.internal.read.RowGroupAhead} reads the next Parquet row groups ahead;</li>
 *   <li>{@link dev.slipstream.internal.read.JumpReads}: small reads after a jump and columnar ranges,
 *       each fetched to its extent (the tail, a column chunk, the page indexes, a readahead) and held in
 *       the spans, read through {@link dev.slipstream.internal.read.RangeFetches};</li>
 *   <li>{@link dev.slipstream.internal.read.ColumnsAhead}: at a stream's first column read, the chunks
 *       of the columns the client's readers read from the last files of that schema ({@link
 *       dev.slipstream.internal.read.PredictedColumns}, kept with the plans), fetched by {@link
 *       dev.slipstream.internal.read.RangeFetches} and held in {@link
 *       dev.slipstream.internal.read.PredictedSpans}, which counts what reads copied of them.</li>
 * </ul>
 * Bytes not in the stream's memory come through its {@link dev.slipstream.internal.source.SourceChain}:
 * a block's by {@link dev.slipstream.internal.read.BlockWindow}, a range's by {@link
 * dev.slipstream.internal.read.RangeFetches} alone.
 *
 * <p>The invariants that keep concurrent use safe: a reader pins one block at a time and never while it
 * waits for memory; a block's buffer is released only when its reference count reaches zero; every
 * request of the stream has a cancel token in the stream's in-flight set until it ends, so
 * {@code close()} can abort them all and wait for them.
 *
 * <p>{@link dev.slipstream.internal.read.OpenAhead}, one per client, fetches the first block of the objects
 * a caller names as coming next; a stream opened for the same object, length and ETag adopts that block
 * ({@code ObjectReader.adopt}) before its first read. See its class comment for the block's lifecycle.
 */
package dev.slipstream.internal.read;
