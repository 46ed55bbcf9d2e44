/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */

/**
 * The open stream. {@link dev.slipstream.internal.read.ObjectReader} is its face: the position, the
 * sequential and positional API, and which part serves each read, as
 * {@link dev.slipstream.internal.read.ReadPlanner} tells: moving forward (fetch ahead, deeper and
 * deeper), jumping (fetch only about what is asked for), or reading the ranges of a columnar file (the
 * footer's tail, then exactly each range; prefetch only once reads prove sequential), and
 * {@link dev.slipstream.internal.read.AheadDepth} how far a run fetches ahead.
 *
 * <p>The parts, each built once per stream and given what it uses at construction, in this order (none
 * is wired to another later):
 * <ul>
 *   <li>{@link dev.slipstream.internal.fetch.StreamRequests}: whether the stream is closed, and every
 *       request of it, by its cancel token, so that {@code close()} can cancel them and wait (the
 *       read-through of ranges makes its requests here); a caller who waits for a read waits here,
 *       and an interrupt cancels the requests made for that caller, never another thread's nor a fetch
 *       other reads share;</li>
 *   <li>{@link dev.slipstream.internal.read.HeldBlocks}: the blocks the stream holds, by index; the
 *       stream's {@link dev.slipstream.internal.source.SourceChain} and its read-through of ranges are
 *       built over them (they serve the shares of range reads that cross them, never a block the chain
 *       fetches);</li>
 *   <li>{@link dev.slipstream.internal.read.BlockWindow}: fills and drops those blocks (pin, fetch
 *       through the chain, prefetch depth, the per-stream cap); reads in order and after large jumps;</li>
 *   <li>{@link dev.slipstream.internal.ahead.HeldSpans}: what the stream fetched outside its blocks (the
 *       object's tail, a column chunk, a readahead, the spans fetched ahead, whichever part fetched them),
 *       copied by every kind of read before it fetches, under the stream's one budget for bytes held ahead
 *       ({@link dev.slipstream.internal.ahead.AheadBudget}, {@code prefetch.blocks} blocks' worth of
 *       buffers);</li>
 *   <li>{@link dev.slipstream.internal.parquet.StreamFooter}: the stream's Parquet footer ({@link
 *       dev.slipstream.internal.parquet.ParquetFooter}), taken from the client's {@link
 *       dev.slipstream.internal.parquet.ParquetFooters} for the version it reads, or parsed from the tail or
 *       the footer it read and given to the client, so that every later stream of that version reads by
 *       it; for an ORC file, its {@link dev.slipstream.internal.orc.StreamOrcLayout}: the stripes from the
 *       tail ({@link dev.slipstream.internal.orc.OrcTail}), each stripe's streams from its footer, kept
 *       by version in the client's {@link dev.slipstream.internal.orc.OrcLayouts}; at a reader's first
 *       read of a stripe, {@link dev.slipstream.internal.orc.StripeFooters} fetches the footers of the
 *       split's next stripes at once, held in the spans as spans fetched ahead, each teaching the layout;
 *       once the reader moves on from its first stripe, {@link
 *       dev.slipstream.internal.orc.StripeStreamsAhead} fetches the next stripes' streams of its columns,
 *       from the first stripe on when the client's predicted columns name them for the file's schema
 *       (both through {@link dev.slipstream.internal.ahead.AheadFetch}, within the stream's one budget, a
 *       buffer being at least 64 KiB however small its stream);</li>
 *   <li>{@link dev.slipstream.internal.read.VectoredReads}: asynchronous (vectored) ranges, knowing no
 *       format: a range waits for the spans fetched ahead into it, copies what the spans hold, asking them
 *       once, and reads the rest by the stream's {@link dev.slipstream.internal.source.RangeThrough}; before
 *       it, the stream has told the parts that fetch ahead, so that with a footer {@link
 *       dev.slipstream.internal.parquet.RowGroupsAhead} reads the later Parquet row groups' same chunks
 *       ahead (the rest of the projection, up to the split's last row group, {@link
 *       dev.slipstream.internal.parquet.SplitRowGroups}), its pieces held in the spans;</li>
 *   <li>{@link dev.slipstream.internal.read.JumpReads}: small reads after a jump and columnar ranges:
 *       asks the spans and the footer once, decides the read left and its extent (the tail, a column chunk,
 *       the page indexes, a readahead) as one request, reads it through the stream's {@link
 *       dev.slipstream.internal.source.RangeThrough} in one call and holds the extent in the spans (the
 *       object's tail it hands up too, for the footer to learn from in the read's one step after it);</li>
 *   <li>{@link dev.slipstream.internal.parquet.ParquetAhead} and {@link
 *       dev.slipstream.internal.orc.OrcAhead}: the parts that fetch ahead of a format's reads, one a room,
 *       told by {@link dev.slipstream.internal.read.ObjectReader} at named moments (before a columnar read,
 *       unbuffer and close, once closed); among them {@link dev.slipstream.internal.parquet.ColumnsAhead},
 *       predicted columns in the stream: at a stream's first column read, the chunks of the columns the
 *       client's readers read from the last files of that schema ({@link
 *       dev.slipstream.internal.learn.PredictedColumns}, kept with the footers), fetched by {@link
 *       dev.slipstream.internal.source.RangeThrough} and held in the spans as spans fetched ahead; it
 *       counts what reads copied of them and what they did not.</li>
 * </ul>
 * Bytes not in the stream's memory come through its {@link dev.slipstream.internal.source.SourceChain}:
 * a block's by {@link dev.slipstream.internal.read.BlockWindow}; a range's outside the block grid through
 * the chain's read-through of ranges ({@link dev.slipstream.internal.source.RangeThrough}, made once a
 * stream over the chain's tiers, with the stream's blocks and requests): the blocks held, else as a
 * tier kept it, else fetched (in parallel parts when large or asynchronous), then offered to the tiers. No
 * class of this package asks the tiers or S3 about a range itself.
 *
 * <p>The invariants that keep concurrent use safe: a reader pins one block at a time and never while it
 * waits for memory; a block's buffer is released only when its reference count reaches zero; every
 * request of the stream has a cancel token in the stream's in-flight set until it ends, so
 * {@code close()} can abort them all and wait for them.
 *
 * <p>What a client learns across its streams (the Parquet footers it parsed, the columns its readers read,
 * the depth they needed, the orders its caller declared) lives in {@code internal.learn}: a stream asks it
 * and tells it, and keeps only its own share here.
 *
 * <p>One word per idea: bytes fetched before a read asks for them are fetched <em>ahead</em> ({@link
 * dev.slipstream.internal.parquet.RowGroupsAhead}, {@link dev.slipstream.internal.parquet.ColumnsAhead}, {@link
 * dev.slipstream.internal.orc.StripeStreamsAhead}, {@link dev.slipstream.internal.read.BlockWindow}'s
 * blocks to the {@link dev.slipstream.internal.read.AheadDepth}, and the store of {@code internal.ahead});
 * what is to be fetched, decided before, is a <em>plan</em> (the row groups' plans); what a file's footer or
 * tail says of where its bytes lie is its <em>layout</em>. {@link dev.slipstream.internal.read.OpenAhead},
 * one per client, fetches the first block of the objects a caller names as coming next (by the orders of
 * {@link dev.slipstream.internal.learn.ReadingOrders}); a stream opened for the same object, length and ETag
 * adopts that block ({@code ObjectReader.adopt}) before its first read. See its class comment for the
 * block's lifecycle. {@link dev.slipstream.internal.read.StreamsAhead}, one per client, does the same for
 * readers that start at the footer with whole streams: it opens the next objects ahead and reads their
 * tails, and keeps a footer's stream for the open of the same object that follows; the open takes the
 * stream itself. The window moves with a read of the stream's position at two moments the reader
 * names, before and after it ({@code BlockWindow.jumpTo}, {@code BlockWindow.jumpRead}); it runs nothing
 * of the reader's.
 */
package dev.slipstream.internal.read;

