/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */

/**
 * Getting bytes from the store, whatever the network does.
 * {@link dev.slipstream.internal.fetch.FetchExecutor} is the one bounded executor (urgent fetches
 * first); {@link dev.slipstream.internal.fetch.BlockFetcher} runs block fetches (filled by the
 * stream's chain of sources), range reads and access checks on it, and HEADs on the caller's thread, as
 * the first GET of a sequential open of unknown length ({@link dev.slipstream.internal.fetch.FirstGet}),
 * which learns the length in place of a HEAD;
 * {@link dev.slipstream.internal.fetch.RangeReader} is the retry layer of reads: one GET is an attempt
 * of {@link dev.slipstream.internal.store.Retrier} (capped exponential backoff with full jitter), and a
 * retry resumes at the last byte received.
 * {@link dev.slipstream.internal.fetch.ResponseCheck} checks every response against its request and
 * the version {@link dev.slipstream.internal.fetch.ObjectHandle} pinned (ETag, or Last-Modified where a
 * server sends none) before a byte of it is used: a {@code 206} of exactly the range and length asked,
 * or a {@code 200} only where the whole object was asked for or fits in one block (then read for the
 * range asked: the bytes before it skipped, the rest dropped with the connection).
 * {@link dev.slipstream.internal.fetch.CancelToken} lets {@code close()} abort a request from another
 * thread, and {@link dev.slipstream.internal.fetch.StreamRequests} holds every request of one stream by its
 * token (close cancels them all and waits, bounded) and is where a caller waits for its reads; the stall watchdog aborts a body that stalls, or whose reading thread is interrupted.
 * {@link dev.slipstream.internal.fetch.AccessCheck}, on each ObjectHandle, is the gate every cached byte
 * passes: S3 must have answered the open with this process's credentials (docs/architecture.md, rule 8).
 */
package dev.slipstream.internal.fetch;
