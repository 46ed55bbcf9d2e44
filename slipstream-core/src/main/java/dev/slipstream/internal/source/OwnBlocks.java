/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.source;

/**
 * The blocks a stream holds, fetched: asked first for each block's share of a range read ({@link
 * RangeThrough}), never for a block (a block being fetched is not one the stream holds yet), and never
 * offered anything.
 */
@FunctionalInterface
public interface OwnBlocks {
  /** None: a chain for a stream that holds no blocks. */
  OwnBlocks NONE = (piece, from, dst, off, n) -> false;

  /**
   * Copies {@code [from, from + n)} of block {@code piece} into {@code dst[off, off + n)} if the stream
   * holds it fetched; false otherwise. Never waits.
   */
  boolean read(Piece piece, int from, byte[] dst, int off, int n);
}
