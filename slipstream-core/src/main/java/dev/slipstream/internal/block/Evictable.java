/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.block;

/**
 * Filled bytes their owner holds, as the pool sees them: a candidate to take back when a reader waits for
 * memory ({@link BufferPool#acquire}). {@link PooledBytes} is the one kind. The pool knows its idle bytes
 * by this alone, so that the pool and the bytes that give their buffers back to it do not depend on each
 * other.
 */
abstract class Evictable {
  /** Whether the owner still holds the bytes. */
  abstract boolean isOwned();

  /** Whether the owner alone holds the bytes, filled: no writer, no reader's pin. */
  abstract boolean isUnpinned();

  /** Takes the bytes from their owner; false if the owner released them or a reader pinned them first. */
  abstract boolean evict();
}
