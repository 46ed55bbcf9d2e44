/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.cache;

import dev.slipstream.Counter;
import dev.slipstream.ReadStatistics;
import java.io.IOException;
import java.nio.file.FileStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.concurrent.atomic.AtomicLong;

/**
 * How much the disk cache may hold, and what goes when it is full: at most {@code cache.disk.max} bytes
 * over the whole directory, whichever processes wrote it (see {@link BlockIndex}), and a share {@code
 * cache.disk.min.free} of the file system left free, and at most {@link #MAX_FILES} files. The least
 * recently used blocks are evicted first, each eviction counted ({@link Counter#DISK_CACHE_EVICTIONS}).
 *
 * <p>Why a bound on files: the index keeps about 33 bytes of heap per file ({@link BlockIndex#heapBytes}).
 * Blocks of 8 MiB fill {@code cache.disk.max} with a few hundred files, but the footers and column chunks
 * of small Parquet files are a few KB each: 4 GiB of them would be a million files, and the index would
 * grow with every small object read.
 *
 * <p>It owns the {@link BlockIndex} and its lock, and recency: a block written or read gets a new
 * modification time, so that processes sharing the directory evict in one order. A block that cannot
 * fit is a write skipped, never a failed read (docs/architecture.md, rule 2); eviction deletes only the
 * cache's own block files, in its own directory (rule 8).
 */
final class CacheSpace {
  /**
   * The one name the disk cache logs under, {@link DiskCache}'s, spelled out: the space is a part of the
   * cache and refers to no class above it.
   */
  static final String LOGGER = "dev.slipstream.internal.cache.DiskCache";
  private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(LOGGER);

  /** The most files kept: about 3.3 MB of index on the heap, and 4 GiB of disk in files of 40 KB. */
  static final int MAX_FILES = 100_000;

  private final CacheDirectory directory;
  private final long maxBytes;
  private final int maxFiles;
  private final double minFree;
  /** Guarded by itself. */
  private final BlockIndex index;
  /** The last modification time this process gave a file: recency, strictly increasing (see {@link #stamp}). */
  private final AtomicLong lastStamp = new AtomicLong();

  CacheSpace(CacheDirectory directory, long maxBytes, double minFree, int maxFiles) {
    this.directory = directory;
    this.maxBytes = maxBytes;
    this.maxFiles = maxFiles;
    this.minFree = minFree;
    this.index = new BlockIndex(directory, maxBytes, maxFiles);
  }

  long maxBytes() {
    return maxBytes;
  }

  double minFree() {
    return minFree;
  }

  /**
   * The start: indexes the blocks in the directory by their names, sizes and times (with {@code clear},
   * deletes every one), then evicts down to {@code cache.disk.max}. No block is opened: a JVM's start (a
   * Spark executor's) would otherwise read the header of every block of a cache that may hold thousands,
   * and every read checks its block's header and checksums anyway, deleting one that fails them.
   */
  BlockIndex.ScanResult scanAtStart(boolean clear) throws IOException {
    synchronized (index) {
      BlockIndex.ScanResult r = index.scan(clear);
      while ((index.totalBytes() > maxBytes || index.size() > maxFiles) && index.evictEldest()) {
        ReadStatistics.global().increment(Counter.DISK_CACHE_EVICTIONS);
      }
      return r;
    }
  }

  /**
   * Evicts least recently used blocks until {@code size} more bytes, in one more file, fit the bounds; false if
   * they cannot.
   *
   * @throws IOException if the file system's free space cannot be read
   */
  boolean makeRoom(long size, ReadStatistics stats) throws IOException {
    if (size > maxBytes) {
      return false;
    }
    synchronized (index) {
      if (index.rescanDue()) {
        try {
          index.scan(false); // blocks other processes wrote count against the same bound
        } catch (IOException | RuntimeException e) {
          LOG.debug("Slipstream disk cache: could not rescan {}", directory.own(), e);
        }
      }
      while ((index.totalBytes() + size > maxBytes || index.size() >= maxFiles) && index.evictEldest()) {
        stats.increment(Counter.DISK_CACHE_EVICTIONS);
      }
      if (index.totalBytes() + size > maxBytes) {
        return false;
      }
    }
    FileStore store = Files.getFileStore(directory.own());
    long reserve = (long) (store.getTotalSpace() * minFree);
    while (store.getUsableSpace() - size < reserve) {
      synchronized (index) {
        if (!index.evictEldest()) {
          return false;
        }
        stats.increment(Counter.DISK_CACHE_EVICTIONS);
      }
    }
    return true;
  }

  /** A block this process wrote, {@code size} bytes on disk. */
  void written(String name, long size) {
    synchronized (index) {
      index.written(name, size);
    }
  }

  /** A hit: the block becomes the most recently used, here and for the processes sharing the directory. */
  void touch(Path file, String name, long size) {
    synchronized (index) {
      index.used(name, size); // written by another process, or before a cache directory was recreated
    }
    try {
      Files.setLastModifiedTime(file, stamp());
    } catch (IOException ignored) {
      // recency across processes and restarts is a hint only
    }
  }

  /**
   * True if this process knows the block whose id is {@code id} to be on disk: it wrote it, found it in a scan
   * or read it. A block another process wrote since is not known here until this process reads it.
   */
  boolean knows(byte[] id) {
    synchronized (index) {
      return index.contains(id);
    }
  }

  /** The block is no longer on disk (gone, or deleted as corrupt). */
  void forget(String name) {
    synchronized (index) {
      index.forget(name);
    }
  }

  /** The directory was made again: nothing in it yet. */
  void clear() {
    synchronized (index) {
      index.clear();
    }
  }

  long sizeBytes() {
    synchronized (index) {
      return index.totalBytes();
    }
  }

  int blockCount() {
    synchronized (index) {
      return index.size();
    }
  }

  /**
   * A modification time for a block just written or used. Recency is the file's time, so that processes
   * sharing the directory evict in one order; strictly increasing within this process, so that blocks
   * used within one clock tick keep their order.
   */
  FileTime stamp() {
    long now = System.currentTimeMillis();
    return FileTime.fromMillis(lastStamp.updateAndGet(last -> Math.max(now, last + 1)));
  }
}
