/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */

/**
 * The open stream. {@link dev.slipstream.internal.read.ObjectReader} is its face: the position, the
 * sequential and positional API, and which part serves each read, as
 * {@link dev.slipstream.internal.read.ReadPlanner} tells: moving forward (fetch ahead, deeper and
 * deeper), jumping (fetch only about what is asked for), or reading the ranges of a columnar file (the
 * footer's tail, then exactly each range; prefetch only once reads prove sequential), and
 * {@link dev.slipstream.internal.read.PrefetchDepth} how far a run fetches ahead. The parts:
 * {@link dev.slipstream.internal.read.BlockWindow} holds the stream's blocks (pin, fetch, prefetch depth,
 * drop, the per-stream cap); {@link dev.slipstream.internal.read.JumpReads} serves small reads after a
 * jump and columnar ranges, each fetched to its extent; {@link dev.slipstream.internal.read.HeldSpans}
 * holds what the stream fetched outside its blocks (the tail, a column chunk, a readahead) for every
 * kind of read; {@link dev.slipstream.internal.read.VectoredReads} serves asynchronous ranges in
 * parallel parts, {@link dev.slipstream.internal.read.RowGroupAhead} reads Parquet row groups ahead, and
 * {@link dev.slipstream.internal.read.ColumnsAhead} fetches, at a stream's first column read, the chunks
 * of the columns the client's readers read from the last files of that schema ({@link
 * dev.slipstream.internal.read.PredictedColumns}, kept with the plans).
 * A Parquet footer is a plan ({@link dev.slipstream.internal.read.ParquetFooter}): the stream's {@link
 * dev.slipstream.internal.read.StreamPlan} takes it from the client's {@link
 * dev.slipstream.internal.read.ParquetPlans} for the version it reads, or parses it from the tail or the
 * footer it read and gives it to the client, so that every later stream of that version reads by it;
 * {@link dev.slipstream.internal.read.StreamRequests} tracks every request of the stream so that
 * {@code close()} can cancel them and wait. Bytes not in the stream's memory come through its
 * {@link dev.slipstream.internal.source.SourceChain}.
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
