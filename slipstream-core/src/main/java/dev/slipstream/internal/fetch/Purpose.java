/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.fetch;

/**
 * Why a request was made: what the request log says of each one ({@link RequestLog}), and whether it is
 * fetched ahead of any read ({@link #fetchedAhead}).
 */
public enum Purpose {
  /** The object's tail, at the first read into it: a footer and the metadata before it. */
  FOOTER("footer", false),
  /** A whole Parquet column chunk, at the first read of a page header at its start. */
  CHUNK("chunk", false),
  /** The Parquet page indexes and bloom filters, at the first read of one. */
  INDEX("index", false),
  /** A range a reader asked for (a columnar read, a vectored range, a part of one). */
  RANGE("range", false),
  /** A small read after a jump, and the bytes after it that the next reads are likely to want. */
  READAHEAD("readahead", false),
  /** A block a reader waits for. */
  BLOCK("block", false),
  /** A block fetched ahead of a sequential reader. */
  PREFETCH("prefetch", true),
  /** Column chunks of the next Parquet row group, fetched while the reader decodes one. */
  ROW_GROUP_AHEAD("row group ahead", true),
  /** Column chunks of the columns the last files of the same schema had read, at a stream's first column read. */
  PREDICTED_COLUMN("predicted column", true),
  /** The footers of the ORC stripes a reader will read, fetched together at its first read of a stripe. */
  STRIPE_FOOTER("stripe footer", true),
  /** The streams of the next ORC stripes, of the columns the reader read in its first stripe. */
  STRIPE_AHEAD("stripe ahead", true),
  /** The first block of a file the caller named as coming next. */
  OPEN_AHEAD("open-ahead", true),
  /** The conditional 1-byte GET that lets cached bytes be served (rule 8). */
  ACCESS_CHECK("access check", false),
  /** The HEAD of an open that knows no length. */
  OPEN("open", false);

  private final String label;
  private final boolean fetchedAhead;

  Purpose(String label, boolean fetchedAhead) {
    this.label = label;
    this.fetchedAhead = fetchedAhead;
  }

  /**
   * A guess: no caller waits for these bytes yet. Such a request queues behind every request a caller waits
   * for, of any stream, until a read comes to wait for it and promotes it ({@link FetchExecutor#promote}):
   * a wave fetched ahead (up to a stream's depth, in parts) must not delay another stream's read.
   */
  public boolean fetchedAhead() {
    return fetchedAhead;
  }

  @Override
  public String toString() {
    return label;
  }
}
