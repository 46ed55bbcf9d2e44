/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.block;

import dev.slipstream.ReadStatistics;

/**
 * Bytes of an object outside the block grid, filled once by the thread that made them: an object's tail,
 * a readahead after a small read, a columnar range kept for the disk cache. Made with the owner's
 * reference and one pin for the filler; {@link #filled()} makes them readable (and the pool's to evict
 * once only the owner holds them). A filler that fails drops its pin and the owner's reference.
 */
public final class Span extends PooledBytes {
  private volatile boolean filled;

  public Span(long start, byte[] buffer, int length, BufferPool pool, ReadStatistics stats) {
    super(start, buffer, length, pool, stats, 1);
  }

  /** The filler wrote every byte. */
  public void filled() {
    filled = true;
    becameIdle();
  }

  @Override
  public boolean isDone() {
    return filled;
  }

  @Override
  public boolean isReady() {
    return filled;
  }

  @Override
  public String toString() {
    return "Span[" + start() + "+" + length() + (filled ? ", filled" : ", filling") + "]";
  }
}
