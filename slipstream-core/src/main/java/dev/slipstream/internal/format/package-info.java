/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */

/**
 * The Parquet footer a stream reads by, parsed from bytes already fetched, as far as byte ranges go:
 * {@link dev.slipstream.internal.format.ParquetFooter}, a Parquet file's row groups, column chunks and page
 * indexes. Values and parsers only: nothing here fetches, keeps or counts. (ORC has a room of its own,
 * {@code internal.orc}: its tail parser, the layouts a client learns, and what a stream fetches ahead.)
 *
 * <p>The bytes parsed here are the file's, and a file may be hostile: the parser yields no footer for what
 * it does not trust, never an error, and never holds more than its bound, whatever the file claims.
 */
package dev.slipstream.internal.format;
