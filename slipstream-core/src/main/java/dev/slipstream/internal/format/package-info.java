/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */

/**
 * The file formats a stream reads by, parsed from bytes already fetched, as far as byte ranges go:
 * {@link dev.slipstream.internal.format.ParquetFooter}, a Parquet file's row groups, column chunks and page
 * indexes. Values and parsers only: nothing here fetches, keeps or counts.
 */
package dev.slipstream.internal.format;
