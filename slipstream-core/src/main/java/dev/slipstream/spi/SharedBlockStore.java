/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.spi;

import dev.slipstream.ReadStatistics;
import dev.slipstream.SlipstreamConfig;

/**
 * Where the shared block tier keeps blocks: the part a module such as {@code slipstream-memcached}
 * provides, found with {@link java.util.ServiceLoader} through {@link Provider} when {@code shared.mode} is
 * not {@code off}. Slipstream decides what is stored and when a stored block may be served (S3's answer to
 * the open, docs/architecture.md rule 8); the store only keeps bytes under opaque names.
 *
 * <p>A name is 32 bytes: a SHA-256 of the namespace and the block's identity (bucket, key, ETag, block size,
 * index), so no bucket or key name reaches the store. A store never throws from {@link #get} or {@link #put}
 * and never waits past its deadline: every problem is a miss, or a write not made, counted on the
 * statistics it was opened with. Heap it allocates outside the buffers it is given (a client library's
 * arrays) it takes from the {@link HeapAllowance} it was opened with, so that {@code memory.max} bounds it.
 */
public interface SharedBlockStore extends AutoCloseable {
  /**
   * Reads bytes {@code [from, from + n)} of the block of {@code blockLength} bytes stored under {@code name}
   * into {@code dst[off, off + n)}; true only if they are all there, intact, and of a block of that length.
   * A store may fetch no more of the block than holds them. On false, {@code dst[off, off + n)} may hold
   * garbage; nothing outside it is written.
   */
  boolean get(byte[] name, int blockLength, int from, byte[] dst, int off, int n);

  /** Stores {@code src[off, off + length)} under {@code name}; false if it was not stored. May block until written. */
  boolean put(byte[] name, byte[] src, int off, int length);

  /**
   * What each server of the store has seen, in the order the servers were listed; empty if the store
   * does not tell. No key or name of a block appears here.
   */
  default java.util.List<ServerStatistics> servers() {
    return java.util.List.of();
  }

  /**
   * One server's numbers: counters (e.g. {@code chunk_hits}) and latencies in microseconds (names ending in
   * {@code _us}), by name, read when asked.
   */
  record ServerStatistics(String server, java.util.Map<String, Long> values) {}

  /** Closes connections and threads. */
  @Override
  void close();

  /** Opens a store: the service a module registers in {@code META-INF/services}. */
  interface Provider {
    /**
     * A store for {@code config}'s {@code shared.*} settings, counting on {@code stats}, whose heap outside
     * Slipstream's buffers nobody counts ({@link HeapAllowance#UNCOUNTED}).
     *
     * @throws IllegalArgumentException a setting this store cannot use, naming its key
     */
    SharedBlockStore open(SlipstreamConfig config, ReadStatistics stats);

    /**
     * A store for {@code config}'s {@code shared.*} settings, counting on {@code stats}, that takes any heap
     * it allocates outside Slipstream's buffers from {@code heap}: what a client opens. A store that
     * allocates none may leave this as it is.
     *
     * @throws IllegalArgumentException a setting this store cannot use, naming its key
     */
    default SharedBlockStore open(SlipstreamConfig config, ReadStatistics stats, HeapAllowance heap) {
      return open(config, stats);
    }
  }
}
