/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */

/**
 * What a stream holds outside its block grid, and fetches ahead of its reads: one store with one budget,
 * below the read path and every file format that fetches ahead. {@link
 * dev.slipstream.internal.ahead.HeldSpans} holds the object's tail, the extents reads fetched beyond what
 * they asked for, and every span fetched ahead while it is fetched, whichever part fetched it (predicted
 * Parquet columns, Parquet row groups read ahead, ORC stripe footers and streams): a read that needs bytes
 * of one waits for it, and promotes its fetch, instead of fetching them again; the sequential, positional
 * and vectored reads copy from it before they fetch, each asking it once. {@link
 * dev.slipstream.internal.ahead.AheadBudget} is the stream's one budget for those spans: {@code
 * prefetch.blocks} blocks' worth of buffers, in flight included, taken as a buffer is and given back as the
 * store lets its span go, shared by every part that fetches ahead. {@link
 * dev.slipstream.internal.ahead.AheadFetch} fetches a span ahead: into free pool memory only (never
 * waiting, never evicting) within that budget, through the stream's read-through of ranges ({@code
 * source.RangeThrough}) as a guess that queues behind every read a caller waits for, held in the store while
 * it is fetched, and dropped if its fetch fails. It knows no file format: the Parquet and ORC rooms ({@code
 * internal.parquet}, {@code internal.orc}) say what to fetch, and this package holds it; the parts of theirs
 * that fetch ahead of columnar reads are {@link dev.slipstream.internal.ahead.ReadsAhead}, one a room, which
 * the stream tells at a few named moments: before each columnar read is served, on unbuffer and close, and
 * once closed. It uses {@code source}, {@code fetch} and
 * {@code block}, and nothing above.
 */
package dev.slipstream.internal.ahead;
