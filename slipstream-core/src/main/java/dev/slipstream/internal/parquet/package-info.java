/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */

/**
 * The Parquet format, in one room: what is parsed of a file, what a client keeps of it across streams, and
 * what a stream does with it.
 * <ul>
 *   <li>Parsed, from bytes already fetched, as far as byte ranges go: {@link
 *       dev.slipstream.internal.parquet.ParquetFooter}, a file's row groups, column chunks and page indexes.
 *       The bytes are the file's, and a file may be hostile: the parser yields no footer for what it does
 *       not trust, never an error, and never holds more than its bound.</li>
 *   <li>Kept by the client: {@link dev.slipstream.internal.parquet.ParquetFooters}, the footers by object
 *       version ({@code learn.ByVersion}), and the columns its readers read by schema ({@code
 *       learn.PredictedColumns}, Parquet's and ORC's).</li>
 *   <li>Done by a stream: {@link dev.slipstream.internal.parquet.StreamFooter}, the footer it reads by (the
 *       client's, or the one it parsed), which counts its reads against the column chunks and says what a
 *       columnar read comes with; without a footer it asks the stream's ORC layout ({@code
 *       orc.StreamOrcLayout}); {@link dev.slipstream.internal.parquet.ParquetAhead}, the one part of the
 *       room the stream tells ({@code ahead.ReadsAhead}), over {@link
 *       dev.slipstream.internal.parquet.ColumnsAhead}, a predicted column's
 *       chunks fetched at its first read; {@link dev.slipstream.internal.parquet.RowGroupsAhead}, the later
 *       row groups' same chunks fetched ahead of vectored reads, up to the split's last ({@link
 *       dev.slipstream.internal.parquet.SplitRowGroups}). What they fetch ahead is held in the stream's one
 *       store ({@code internal.ahead}), where every kind of read finds it, within the stream's one budget
 *       for bytes held ahead, which the ORC room's parts share.</li>
 * </ul>
 * It uses {@code orc}, {@code ahead}, {@code learn}, {@code source}, {@code fetch} and {@code block}, and
 * nothing above: the read path ({@code read.ObjectReader}, {@code read.JumpReads}, {@code
 * read.VectoredReads}) calls it.
 */
package dev.slipstream.internal.parquet;
