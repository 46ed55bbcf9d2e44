/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */

/**
 * Slipstream's public API: a {@link dev.slipstream.Slipstream} client opens S3 objects as seekable
 * {@link dev.slipstream.SlipstreamInputStream}s.
 *
 * <h2>What happens underneath</h2>
 * An object is read as fixed-size blocks ({@code block.size}, 8 MiB by default), each one ranged GET.
 * The read path is a chain of floors, each with one job, like the interceptors of an HTTP client; each
 * uses only the floors below it:
 * <pre>
 *   ObjectReader   (internal.read)   the open stream: position, its block window, the ReadPlanner
 *   SourceChain    (internal.source) where bytes come from: memory, the disk cache, then S3
 *   BlockFetcher   (internal.fetch)  the shared executor; RangeReader = the retry layer
 *     beside it:   (internal.cache)  the disk cache, which the disk tier reads and writes
 *   ObjectStore    (internal.store)  HEAD, ranged GET and LIST over the AWS SDK v2, typed errors
 *   Block, BufferPool (internal.block) pooled buffers under one JVM-wide budget, reference-counted
 * </pre>
 * This package's entry points ({@link dev.slipstream.Slipstream}, {@link dev.slipstream.Lister}) sit
 * above them all; its other types (configuration, statistics, locations, options) are values every floor
 * uses, and sit below them all. {@code docs/architecture.md} draws the path of one read through these
 * classes, and the floors.
 * The caller only ever copies from a block already in memory; it waits only when the block it needs
 * has not arrived yet. Everything under {@code dev.slipstream.internal} may change between versions;
 * users need only this package.
 *
 * <h2>Why this shape</h2>
 * <ul>
 *   <li>Fixed-size blocks make every request the same size (AWS suggests 8-16 MB ranged GETs), make
 *       memory accounting exact, and give caches a stable unit: (bucket, key, ETag, block size, index).</li>
 *   <li>One memory budget and one executor for the whole JVM, not per stream: a task with 200 open
 *       files must not hold 200 x 64 MiB, nor run 200 thread pools.</li>
 *   <li>Retries live below the blocks, per range, and resume at the last byte received: the caller
 *       never sees a transient fault, and a reset late in a block costs little.</li>
 *   <li>Every GET carries {@code If-Match} with the ETag seen at open, so no stream ever mixes bytes of
 *       two versions of an object.</li>
 * </ul>
 */
package dev.slipstream;
