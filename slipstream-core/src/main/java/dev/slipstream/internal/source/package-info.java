/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */

/**
 * Where an open object's bytes come from, as one chain asked in one place: the blocks the stream holds
 * ({@link dev.slipstream.internal.source.OwnBlocks}, for the shares of a range read), then
 * {@link dev.slipstream.internal.source.Tier}s in order, each where configured: {@link
 * dev.slipstream.internal.source.MemoryTier}, what the client's earlier streams left in free pool memory
 * (a whole block taken over with its buffer); {@link dev.slipstream.internal.source.DiskTier}, the local
 * disk cache; {@link dev.slipstream.internal.source.SharedTier}, blocks in a store a cluster shares
 * (memcached), under names {@link dev.slipstream.internal.source.SharedNames} gives and written by {@link
 * dev.slipstream.internal.source.SharedWrites} in the background (in shadow mode, a sample of blocks by name,
 * {@link dev.slipstream.internal.source.ShadowSample}, compared with S3's by {@link
 * dev.slipstream.internal.source.SharedComparisons} instead); then {@link
 * dev.slipstream.internal.source.S3Source}, the last source, whose retries and hedged requests live
 * below it. Every tier serves a byte only through S3's access check for the open. {@link
 * dev.slipstream.internal.source.ClientTiers} decides once, when a client is built, which tiers its reads
 * go through (none below memory for reads that carry an SSE-C key); {@link
 * dev.slipstream.internal.source.Sources} assembles the chain of each open object; {@link
 * dev.slipstream.internal.source.SourceChain} asks it for blocks, says where a block came from ({@link
 * dev.slipstream.internal.source.Piece.Origin}), and offers the blocks a stream leaves to the tiers
 * (write-behind); its {@link dev.slipstream.internal.source.RangeThrough}, one a stream, is the read-through
 * of ranges outside the block grid, the one place a stream's range reads ask where their bytes are: the
 * blocks the stream holds, the tiers, then S3 for what is missing, in the stream's requests, and what S3
 * gave back offered to the tiers. It runs the range's pass (for a waited read, as the stream decided it:
 * {@link dev.slipstream.internal.source.Through}), decides how a read waits (fetched ahead, or by a caller
 * waiting now; urgent or not) and makes the requests (in one request, or in parallel parts when large);
 * {@link dev.slipstream.internal.source.RangeTiers}, below it, answers what the blocks held and the tiers
 * have, reads what is missing from wherever it is when run on a fetch thread, and keeps what S3 gave back.
 * Nothing here calls back up: a tier answers, the chain returns what is missing, the caller fetches it.
 * A tier's trouble is a miss; only S3's answer fails a read. Pieces ({@link
 * dev.slipstream.internal.source.Piece}) are named by the object's version: a block of the stream's grid,
 * or exactly a range a columnar reader fetched (kept by the memory and disk tiers, not the shared one).
 */
package dev.slipstream.internal.source;
