/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream;

/**
 * What the caller expects its access pattern to be. Every policy still adapts to what the reader
 * actually does; the policy only sets the starting point.
 */
public enum ReadPolicy {
  /**
   * The default: the first read at the start of the object counts as sequential, with a prefetch
   * depth of 2 that grows; a jump resets it, and a small read after a jump fetches only its bytes. A
   * stream whose first read is in the object's last MiB (a Parquet or ORC footer), or in a column chunk
   * of a Parquet file whose footer the client has read, reads as {@link #RANDOM}.
   */
  ADAPTIVE,
  /**
   * Read start to end (a whole file, a CSV or JSON split; Hadoop's {@code whole-file} and {@code
   * sequential} read policies, which {@code FileUtil.copy} and the shell's {@code -cp} and {@code -get}
   * declare): prefetch from the first read, {@code prefetch.blocks} deep at once (by default one whole
   * block per fetch thread, which fills the link with the fewest GETs; from free memory only). Blocks it
   * has read to their end stay in the memory cache as the first to go: a new buffer of their size reuses
   * one of them before new memory is allocated. Opened with no length, such a stream makes no HEAD: a GET of
   * its first block, or of its first MiB if the block is larger, learns the object's length and version
   * (and brings an object of that size whole).
   */
  SEQUENTIAL,
  /**
   * Ranges: a footer, then column chunks or index entries here and there (Parquet, ORC, an index,
   * vectored reads; Hadoop's {@code parquet}, {@code orc}, {@code columnar}, {@code random} and
   * {@code vector} read policies). The first read in the object's tail fetches that tail (1/512 of the
   * object, 8 KiB to 1 MiB) in one request; every other read fetches about its bytes, never a whole
   * block, and never less than 64 KiB unless the object ends sooner; where the client knows the file's
   * Parquet footer, a read of a few bytes at a column chunk's dictionary page (its header read through
   * Thrift) fetches the whole chunk, and one among the page
   * indexes all of them. A run of reads in order that has covered an eighth of a block switches the
   * stream to prefetching until the next jump (counted as {@code sequential_switches}).
   */
  RANDOM
}
