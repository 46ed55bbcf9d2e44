/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */

/**
 * The open stream. {@link dev.slipstream.internal.read.ObjectReader} keeps a map of the blocks it holds
 * and serves both the sequential position and positional reads from it;
 * {@link dev.slipstream.internal.read.ReadPlanner} tells, per read, whether the reader is moving forward
 * (fetch ahead, deeper and deeper), jumping (fetch only about what is asked for), or reading the ranges of
 * a columnar file (the footer's tail, then exactly each range; prefetch only once reads prove sequential).
 * {@link dev.slipstream.internal.read.StreamDiskCache} is a stream's view of the disk cache: the names
 * of its blocks and ranges there, which are kept, and reading them back through S3's access check.
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
