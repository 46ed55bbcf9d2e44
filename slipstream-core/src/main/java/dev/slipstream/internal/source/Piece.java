/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.source;

/**
 * Bytes of one object version that a tier may hold, by name: block {@code index} of the stream's grid
 * (starting at {@code start}, {@code length} bytes long), or exactly the range {@code [start, start +
 * length)} as a columnar reader fetched it ({@code index} -1). A range is found again only by a read of
 * exactly that range.
 */
public record Piece(long index, long start, int length) {
  public static Piece block(long index, long start, int length) {
    return new Piece(index, start, length);
  }

  public static Piece range(long start, int length) {
    return new Piece(-1, start, length);
  }

  public boolean isBlock() {
    return index >= 0;
  }
}
