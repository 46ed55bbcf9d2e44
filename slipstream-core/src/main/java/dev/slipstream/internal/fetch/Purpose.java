/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.fetch;

/** Why a request was made: what the request log says of each one ({@link RequestLog}). */
public enum Purpose {
  /** The object's tail, at the first read into it: a footer and the metadata before it. */
  FOOTER("footer"),
  /** A whole Parquet column chunk, at the first read of a page header at its start. */
  CHUNK("chunk"),
  /** The Parquet page indexes and bloom filters, at the first read of one. */
  INDEX("index"),
  /** A range a reader asked for (a columnar read, a vectored range, a part of one). */
  RANGE("range"),
  /** A small read after a jump, and the bytes after it that the next reads are likely to want. */
  READAHEAD("readahead"),
  /** A block a reader waits for. */
  BLOCK("block"),
  /** A block fetched ahead of a sequential reader. */
  PREFETCH("prefetch"),
  /** Column chunks of the next Parquet row group, fetched while the reader decodes one. */
  ROW_GROUP_AHEAD("row group ahead"),
  /** Column chunks of the columns the last files of the same schema had read, at a stream's first column read. */
  PREDICTED_COLUMN("predicted column"),
  /** The footers of the ORC stripes a reader will read, fetched together at its first read of a stripe. */
  STRIPE_FOOTER("stripe footer"),
  /** The streams of the next ORC stripes, of the columns the reader read in its first stripe. */
  STRIPE_AHEAD("stripe ahead"),
  /** The first block of a file the caller named as coming next. */
  OPEN_AHEAD("open-ahead"),
  /** The conditional 1-byte GET that lets cached bytes be served (rule 8). */
  ACCESS_CHECK("access check"),
  /** The HEAD of an open that knows no length. */
  OPEN("open");

  private final String label;

  Purpose(String label) {
    this.label = label;
  }

  @Override
  public String toString() {
    return label;
  }
}
