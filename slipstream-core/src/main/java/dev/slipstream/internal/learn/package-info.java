/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */

/**
 * What a client learns across its streams, one class per thing learned, each one per client, bounded and
 * thread-safe; the streams (package {@code read}) ask it and tell it, and nothing here reads a byte:
 * <ul>
 *   <li>{@link dev.slipstream.internal.learn.PredictedColumns}: the columns its readers read whole from the
 *       files of each schema (Parquet's and ORC's), which a stream fetches ahead at its first column read
 *       (an ORC stream: at its first stripe); a schema's counts go up to 16,384 columns, whatever width a
 *       file claims;</li>
 *   <li>{@link dev.slipstream.internal.learn.LearnedDepth}: the depth ahead its readers needed, where a
 *       proven sequential run starts;</li>
 *   <li>{@link dev.slipstream.internal.learn.ReadingOrders}: the orders its caller declared it reads files
 *       in, so that open-ahead knows which objects follow the one opened.</li>
 * </ul>
 * The Parquet footers and the ORC layouts ({@code internal.parquet}, {@code internal.orc}) are kept the same
 * way, by object version and bounded in bytes and idle time ({@link dev.slipstream.internal.learn.ByVersion}); a stream reads by the client's, asked once its
 * version is known, or by the one it parsed ({@link dev.slipstream.internal.learn.ClientLayout}).
 * A stream keeps its own share of each (what it counted, what it predicted, its depth) in {@code read};
 * it tells this package what it learned when it closes, or as it goes for the depth.
 */
package dev.slipstream.internal.learn;
