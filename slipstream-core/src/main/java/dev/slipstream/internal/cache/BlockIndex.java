/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.cache;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Arrays;

/**
 * The blocks in the cache's directory, least recently used first, and their total size: what eviction
 * decides from.
 *
 * <p>Why a class of its own: {@code cache.disk.max} bounds the directory, not one process, and several
 * processes of a host may share the directory. Each keeps this index in memory (reads and writes update
 * it at once) and rebuilds it from the directory after every {@code 1/16} of the bound it has written
 * itself, so blocks other processes wrote are counted and trimmed too. Recency across processes is the
 * file's modification time (a hit sets it), so eviction takes the least recently used block of all the
 * processes. Between rescans the directory may exceed the bound by what the other processes wrote since,
 * at most {@code 1/16} of it each.
 *
 * <p>A scan looks only into the cache's own directory and shard subdirectories, and deletes only files
 * whose names are exactly the cache's own ({@link BlockFile}). Not thread-safe: {@link CacheSpace} holds
 * the lock.
 *
 * <p>The names and sizes live in a {@link RecencyTable}: about 33 bytes of heap a file at the bound on files,
 * where a map of objects took about 110.
 */
final class BlockIndex {
  /** A temporary file older than this is a leftover of a crashed writer, not one being written. */
  static final long STALE_TMP_MILLIS = 10 * 60 * 1000;

  private final CacheDirectory directory;
  private final long rescanEvery;
  private final RecencyTable table;
  private long writtenSinceScan;

  BlockIndex(CacheDirectory directory, long maxBytes, int maxFiles) {
    this.directory = directory;
    this.rescanEvery = Math.max(1, maxBytes / 16);
    this.table = new RecencyTable(maxFiles);
  }

  long totalBytes() {
    return table.totalSize();
  }

  int size() {
    return table.size();
  }

  /** The heap the index keeps, in bytes ({@link RecencyTable#heapBytes}). */
  long heapBytes() {
    return table.heapBytes();
  }

  /** A block this process wrote. */
  void written(String name, long size) {
    table.put(name, size);
    writtenSinceScan += size;
  }

  /** A hit: the block becomes the most recently used (and is counted if another process wrote it). */
  void used(String name, long size) {
    table.touch(name, size);
  }

  /** True if the block whose id is {@code id} ({@link BlockFile#name}'s first half and second) is indexed. */
  boolean contains(byte[] id) {
    ByteBuffer b = ByteBuffer.wrap(id);
    return table.contains(b.getLong(0), b.getLong(8));
  }

  void forget(String name) {
    table.remove(name);
  }

  void clear() {
    table.clear();
  }

  /** True once this process has written enough since the last scan that other processes' blocks may be missed. */
  boolean rescanDue() {
    return writtenSinceScan >= rescanEvery;
  }

  /** Deletes the least recently used block; false if there is none. */
  boolean evictEldest() {
    String name = table.removeEldest();
    if (name == null) {
      return false;
    }
    try {
      Files.deleteIfExists(directory.blockFile(name));
    } catch (IOException ex) {
      // already gone, or a read-only directory: the next scan sees it again
    }
    return true;
  }

  /** What one scan did. */
  record ScanResult(int reused, int dropped) {}

  /**
   * Rebuilds the index from the directory, oldest modification first, from names, sizes and times alone
   * (no block is opened: each read checks its block). With {@code clear}, every block file is deleted. Files under the names of
   * before ({@link BlockFile#isLegacyBlockFile}) are deleted: no read finds them. Temporary files of crashed
   * writers are deleted. Other names are not the cache's and are left alone.
   */
  ScanResult scan(boolean clear) throws IOException {
    // The blocks found: name's halves, size, modification time; four longs each, sorted by time at the end.
    long[] found = new long[4 * 64];
    int n = 0;
    int dropped = 0;
    long now = System.currentTimeMillis();
    try (DirectoryStream<Path> shards = directory.shards()) {
      for (Path shard : shards) {
        try (DirectoryStream<Path> files = Files.newDirectoryStream(shard)) {
          for (Path p : files) {
            String fn = p.getFileName().toString();
            String name = BlockFile.blockName(fn);
            boolean temp = name == null && BlockFile.isTempFile(fn);
            boolean legacy = name == null && !temp && BlockFile.isLegacyBlockFile(fn);
            if (name == null && !temp && !legacy) {
              continue; // not the cache's
            }
            BasicFileAttributes a;
            try {
              a = Files.readAttributes(p, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
            } catch (java.nio.file.NoSuchFileException e) {
              continue; // evicted or renamed by another process meanwhile
            }
            if (!a.isRegularFile()) {
              continue;
            }
            long modified = a.lastModifiedTime().toMillis();
            if (temp) {
              if (now - modified > STALE_TMP_MILLIS) {
                Files.deleteIfExists(p);
              }
            } else if (legacy || clear || a.size() > RecencyTable.MAX_SIZE) {
              Files.deleteIfExists(p);
              dropped++;
            } else {
              if (4 * (n + 1) > found.length) {
                found = Arrays.copyOf(found, found.length * 2);
              }
              found[4 * n] = modified;
              found[4 * n + 1] = RecencyTable.high(name);
              found[4 * n + 2] = RecencyTable.low(name);
              found[4 * n + 3] = a.size();
              n++;
            }
          }
        }
      }
    } finally {
      clear();
      for (int i : byModification(found, n)) {
        table.put(found[4 * i + 1], found[4 * i + 2], found[4 * i + 3]);
      }
      writtenSinceScan = 0;
    }
    return new ScanResult(n, dropped);
  }

  /** The numbers of the {@code n} blocks found, oldest modification first, then by name. */
  private static Integer[] byModification(long[] found, int n) {
    Integer[] order = new Integer[n];
    for (int i = 0; i < n; i++) {
      order[i] = i;
    }
    Arrays.sort(order, (x, y) -> {
      int c = Long.compare(found[4 * x], found[4 * y]);
      if (c == 0) {
        c = Long.compareUnsigned(found[4 * x + 1], found[4 * y + 1]);
      }
      return c != 0 ? c : Long.compareUnsigned(found[4 * x + 2], found[4 * y + 2]);
    });
    return order;
  }
}
