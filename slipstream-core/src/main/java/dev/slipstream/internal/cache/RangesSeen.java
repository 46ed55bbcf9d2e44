/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.cache;

import java.util.concurrent.atomic.AtomicLongArray;

/**
 * The ranges of objects this process has offered the disk cache once ({@code cache.disk.mode=seek} writes a
 * columnar range at its second fetch from S3), remembered by 64 bits of their id in a table of fixed size
 * ({@value #SLOTS} slots, 256 KiB): a range whose slot another range took since is forgotten, and two ranges
 * that share their 64 bits count as one. Either way the answer is only whether a range is written now or at
 * its next fetch; never what a read returns.
 */
final class RangesSeen {
  static final int SLOTS = 1 << 15;

  private final AtomicLongArray slots = new AtomicLongArray(SLOTS);

  /** Whether the range of id {@code id} (its SHA-256) was seen before; remembers it either way. */
  boolean seenBefore(byte[] id) {
    long h = 0;
    for (int i = 0; i < 8; i++) {
      h = h << 8 | (id[i] & 0xff);
    }
    if (h == 0) {
      h = 1; // 0 is an empty slot
    }
    int slot = (int) (h >>> 49) & (SLOTS - 1);
    return slots.getAndSet(slot, h) == h;
  }
}
