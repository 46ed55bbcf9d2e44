/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */

/**
 * Getting bytes from the store, whatever the network does.
 * {@link dev.slipstream.internal.fetch.FetchExecutor} is the one bounded executor (urgent fetches
 * first); {@link dev.slipstream.internal.fetch.BlockFetcher} runs block fetches on it and direct reads
 * on the caller's thread; {@link dev.slipstream.internal.fetch.RangeReader} is the retry layer: capped
 * exponential backoff with full jitter, resume at the last byte received, version checked on every
 * response. {@link dev.slipstream.internal.fetch.CancelToken} lets {@code close()} abort a request from
 * another thread. {@link dev.slipstream.internal.fetch.AccessCheck}, on each
 * {@link dev.slipstream.internal.fetch.ObjectHandle}, is the gate every cached byte passes: S3 must have
 * answered the open with this process's credentials (DESIGN.md section 4, rule 8).
 */
package dev.slipstream.internal.fetch;
