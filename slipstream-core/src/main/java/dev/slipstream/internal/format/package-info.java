/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */

/**
 * The file formats a stream reads by, parsed from bytes already fetched, as far as byte ranges go:
 * {@link dev.slipstream.internal.format.ParquetFooter}, a Parquet file's row groups, column chunks and page
 * indexes; {@link dev.slipstream.internal.format.OrcTail}, an ORC file's stripes from its tail and each
 * stripe's streams from its footer (decompressed by {@code OrcChunks}). Values and parsers only: nothing
 * here fetches, keeps or counts.
 *
 * <p>The bytes parsed here are the file's, and a file may be hostile: a parser yields no plan for what it
 * does not trust, never an error, and never holds more than its bound, whatever the file claims. An ORC
 * plan takes at most {@link dev.slipstream.internal.format.OrcTail#MAX_LAYOUT_BYTES} (4 MiB) of heap, its
 * streams included, because a stream holds its layout for its life, outside the pool's budget: the stripe
 * list at most half of it (a tail of more stripes is no plan), a stripe footer at most that long and
 * decompressed to at most that (a 16 KB zlib footer may list millions of one-byte streams: parsing stops
 * at the room the plan has left), and a stream of a column the schema does not have, a stripe that ends
 * past the file (overflow included) or a footer too long are no plan or no streams.
 */
package dev.slipstream.internal.format;
