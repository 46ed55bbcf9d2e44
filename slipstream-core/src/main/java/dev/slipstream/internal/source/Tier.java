/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.source;

import dev.slipstream.internal.block.PooledBytes;
import java.io.IOException;

/**
 * A source of an object's bytes before S3, the last source: the memory cache ({@link MemoryTier}), the
 * local disk cache ({@link DiskTier}), the shared tier ({@link SharedTier}). (The blocks the stream holds
 * itself are not a tier: see {@link OwnBlocks}.) A tier's trouble is a miss, never a failed
 * read (docs/architecture.md, rule 2); the one exception a tier may throw is S3's refusal of this open,
 * which every tier, keeping bytes across opens, asks for before it serves one (rule 8).
 */
public interface Tier {
  /** What this tier is, as the pieces it serves tell where they came from. */
  Piece.Origin origin();

  /**
   * Copies {@code [from, from + n)} of {@code piece} into {@code dst[off, off + n)}, a caller's array: no
   * byte is written there before S3's access check let the bytes through, so a miss or a refusal leaves
   * it as it was. False on a miss. Never waits for a fetch.
   *
   * @throws IOException only S3's refusal of this open
   */
  boolean read(Piece piece, int from, byte[] dst, int off, int n) throws IOException;

  /**
   * Fills {@code buffer[0, piece.length())} with {@code piece}, a block or a whole range: a block's (or a
   * span's) own buffer, which no caller sees before it is ready, so a tier may write there before the
   * access check answers; false on a miss ({@code buffer} may then hold garbage). Never waits for a fetch.
   *
   * @throws IOException only S3's refusal of this open
   */
  default boolean readBlock(Piece piece, byte[] buffer) throws IOException {
    return read(piece, 0, buffer, 0, piece.length());
  }

  /**
   * Offers {@code data} (ready, holding {@code piece}'s bytes) to keep; pins it for as long as it needs
   * the bytes. Never blocks, never fails.
   */
  void keep(Piece piece, PooledBytes data);

  /** Whether {@link #keep} would keep {@code piece}: a lookup of it can hit, a copy of it is worth making. */
  boolean keeps(Piece piece);

  /** Whether every block a stream is done with is worth keeping here, not only those left unread. */
  default boolean keepsEveryBlock() {
    return false;
  }

  /**
   * Hands over a pool buffer of {@code bufferSize} bytes that holds block {@code piece} already, to be
   * the stream's block ({@link #served} before its bytes are read); null if this tier has none.
   */
  default byte[] lend(Piece piece, int bufferSize) {
    return null;
  }

  /**
   * Block {@code piece}, lent by this tier, is about to serve its stream: returns once it may.
   *
   * @throws IOException only S3's refusal of this open
   */
  default void served(Piece piece) throws IOException {}
}
