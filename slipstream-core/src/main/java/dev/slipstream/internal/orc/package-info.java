/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */

/**
 * The ORC format, in one room: what is parsed of a file, what a client learns of it across streams, and
 * what a stream does with it.
 * <ul>
 *   <li>Parsed, from bytes already fetched, as far as byte ranges go: {@link
 *       dev.slipstream.internal.orc.OrcTail}, the stripes from the file's tail and each stripe's streams
 *       from its footer, decompressed by {@link dev.slipstream.internal.orc.OrcChunks} (none, zlib, Snappy,
 *       LZ4, and zstd when zstd-jni is on the class path).</li>
 *   <li>Learnt by the client: {@link dev.slipstream.internal.orc.OrcLayout}, one version's stripes and the
 *       streams its readers' stripe footers taught, kept by version in {@link
 *       dev.slipstream.internal.orc.OrcLayouts} ({@code learn.ByVersion}, the Parquet footers' bounds).</li>
 *   <li>Done by a stream: {@link dev.slipstream.internal.orc.StreamOrcLayout}, the layout it reads by;
 *       {@link dev.slipstream.internal.orc.OrcAhead}, the one part of the room the stream tells ({@code
 *       ahead.ReadsAhead}), over {@link dev.slipstream.internal.orc.StripeFooters}, the footers of the split's next stripes fetched
 *       in one wave at the reader's first stripe; {@link dev.slipstream.internal.orc.StripeStreamsAhead},
 *       the next stripes' streams of the reader's columns (or of the columns the client predicts); both
 *       hold their spans in the stream's one store ({@code internal.ahead}), each span with the last stripe
 *       it serves ({@link dev.slipstream.internal.orc.StripeSpans}), within the stream's one budget for
 *       bytes held ahead, which the Parquet room's parts share.</li>
 * </ul>
 *
 * <p>The bytes parsed here are the file's, and a file may be hostile: a parser yields no layout for what
 * it does not trust, never an error, and never holds more than its bound, whatever the file claims. A
 * layout takes at most {@link dev.slipstream.internal.orc.OrcTail#MAX_LAYOUT_BYTES} (4 MiB) of heap, its
 * streams included, because a stream holds its layout for its life, outside the pool's budget: the stripe
 * list at most half of it (a tail of more stripes is no layout), a stripe footer at most that long and
 * decompressed to at most that (a 16 KB zlib footer may list millions of one-byte streams: parsing stops
 * at the room the layout has left), and a stream of a column the schema does not have, a stripe that ends
 * past the file (overflow included) or a footer too long are no layout or no streams.
 *
 * <p>It uses {@code ahead}, {@code learn}, {@code fetch} and {@code block}, and nothing above: the read
 * path ({@code read.ObjectReader}) and the Parquet stream footer, which asks the ORC layout when the file
 * has no Parquet footer ({@code parquet.StreamFooter}), call it.
 */
package dev.slipstream.internal.orc;
