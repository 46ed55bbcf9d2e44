/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.cache;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Arrays;
import java.util.HexFormat;

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
 * <p>Why not a map: the index holds an entry for every file, up to {@link CacheSpace#MAX_FILES}, for as long
 * as the process lives, and small Parquet objects leave one or two files each. A {@code LinkedHashMap} of
 * objects took about 110 bytes of heap a file; here a file is a row of parallel primitive arrays, its name's
 * 128 bits as two longs ({@link BlockFile#name}), its size as an unsigned int, and its neighbours in the
 * recency list as two ints, found through an open-addressing table of ints (linear probing, at most
 * {@value #LOAD_PERCENT}% full). Rows grow by doubling up to the bound on files and stay there; a removed
 * row is reused. About 33 bytes a file at the bound ({@link #heapBytes}).
 */
final class BlockIndex {
  /** A temporary file older than this is a leftover of a crashed writer, not one being written. */
  static final long STALE_TMP_MILLIS = 10 * 60 * 1000;
  /** The most a file's size may be: it is kept as an unsigned int. */
  static final long MAX_FILE_BYTES = 0xFFFF_FFFFL;

  private static final int NONE = -1;
  private static final int MIN_ROWS = 64;
  /** How full the table of slots may get before it doubles. */
  private static final int LOAD_PERCENT = 80;

  private final CacheDirectory directory;
  private final long rescanEvery;
  /** Rows grow by doubling up to this many (the bound on files), and beyond only as a scan needs. */
  private final int rowsFor;

  // One row a block: its name's two halves, its file's size, the rows before and after it in recency.
  private long[] high;
  private long[] low;
  private int[] size;
  private int[] older;
  private int[] newer;
  /** Rows ever used; a removed row joins the free list (through {@link #newer}). */
  private int rowsUsed;
  private int free;
  /** The least and the most recently used rows. */
  private int eldest;
  private int youngest;
  private int count;
  /** Open addressing: a row's number plus one, 0 for an empty slot. */
  private int[] slots;

  private long totalBytes;
  private long writtenSinceScan;

  BlockIndex(CacheDirectory directory, long maxBytes, int maxFiles) {
    if (maxFiles < 1) {
      throw new IllegalArgumentException("maxFiles must be at least 1: " + maxFiles);
    }
    this.directory = directory;
    this.rescanEvery = Math.max(1, maxBytes / 16);
    this.rowsFor = maxFiles;
    reset();
  }

  private void reset() {
    high = new long[MIN_ROWS];
    low = new long[MIN_ROWS];
    size = new int[MIN_ROWS];
    older = new int[MIN_ROWS];
    newer = new int[MIN_ROWS];
    slots = new int[slotsFor(MIN_ROWS)];
    rowsUsed = 0;
    free = NONE;
    eldest = NONE;
    youngest = NONE;
    count = 0;
    totalBytes = 0;
  }

  long totalBytes() {
    return totalBytes;
  }

  int size() {
    return count;
  }

  /**
   * The heap the index's arrays take, in bytes (each array's elements and its 16-byte header): what it keeps
   * for the files it counts, bounded through {@link CacheSpace#MAX_FILES}.
   */
  long heapBytes() {
    long rows = high.length;
    return 5 * 16L + rows * (8 + 8 + 4 + 4 + 4) + 16L + slots.length * 4L;
  }

  /** A block this process wrote. */
  void written(String name, long size) {
    put(name, size);
    writtenSinceScan += size;
  }

  /** A hit: the block becomes the most recently used (and is counted if another process wrote it). */
  void used(String name, long size) {
    long h = high(name);
    long l = low(name);
    int row = find(h, l);
    if (row == NONE) {
      add(h, l, size);
    } else {
      unlink(row);
      linkYoungest(row);
    }
  }

  private void put(String name, long bytes) {
    long h = high(name);
    long l = low(name);
    int row = find(h, l);
    if (row == NONE) {
      add(h, l, bytes);
    } else {
      checkSize(bytes);
      totalBytes += bytes - Integer.toUnsignedLong(size[row]);
      size[row] = (int) bytes;
      unlink(row);
      linkYoungest(row);
    }
  }

  void forget(String name) {
    int row = find(high(name), low(name));
    if (row != NONE) {
      remove(row);
    }
  }

  void clear() {
    reset();
  }

  /** True once this process has written enough since the last scan that other processes' blocks may be missed. */
  boolean rescanDue() {
    return writtenSinceScan >= rescanEvery;
  }

  /** Deletes the least recently used block; false if there is none. */
  boolean evictEldest() {
    if (eldest == NONE) {
      return false;
    }
    int row = eldest;
    String name = name(high[row], low[row]);
    remove(row);
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
   * Rebuilds the index from the directory, oldest modification first. With {@code validate}, a block file
   * whose header is not its own is deleted; with {@code clear}, every block file is. Files under the names of
   * before ({@link BlockFile#isLegacyBlockFile}) are deleted: no read finds them. Temporary files of crashed
   * writers are deleted. Other names are not the cache's and are left alone.
   */
  ScanResult scan(boolean validate, boolean clear) throws IOException {
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
            } else if (legacy || clear || (validate && !BlockFile.isValid(p, name))
                || a.size() > MAX_FILE_BYTES) {
              Files.deleteIfExists(p);
              dropped++;
            } else {
              if (4 * (n + 1) > found.length) {
                found = Arrays.copyOf(found, found.length * 2);
              }
              found[4 * n] = modified;
              found[4 * n + 1] = high(name);
              found[4 * n + 2] = low(name);
              found[4 * n + 3] = a.size();
              n++;
            }
          }
        }
      }
    } finally {
      clear();
      for (int i : byModification(found, n)) {
        add(found[4 * i + 1], found[4 * i + 2], found[4 * i + 3]);
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

  // ---- rows and slots ------------------------------------------------------------------------

  private void add(long h, long l, long bytes) {
    checkSize(bytes);
    if (count + 1 > (long) slots.length * LOAD_PERCENT / 100) {
      rehash(slots.length * 2);
    }
    int row = free;
    if (row != NONE) {
      free = newer[row];
    } else {
      if (rowsUsed == high.length) {
        growRows();
      }
      row = rowsUsed++;
    }
    high[row] = h;
    low[row] = l;
    size[row] = (int) bytes;
    linkYoungest(row);
    int s = home(l);
    while (slots[s] != 0) {
      s = (s + 1) & (slots.length - 1);
    }
    slots[s] = row + 1;
    count++;
    totalBytes += bytes;
  }

  private void remove(int row) {
    unlink(row);
    totalBytes -= Integer.toUnsignedLong(size[row]);
    count--;
    int mask = slots.length - 1;
    int hole = home(low[row]);
    while (slots[hole] != row + 1) {
      hole = (hole + 1) & mask;
    }
    // Backward-shift deletion: each later row of the run that may sit in the hole moves into it.
    for (int s = (hole + 1) & mask; slots[s] != 0; s = (s + 1) & mask) {
      int h = home(low[slots[s] - 1]);
      boolean stays = hole <= s ? hole < h && h <= s : hole < h || h <= s;
      if (!stays) {
        slots[hole] = slots[s];
        hole = s;
      }
    }
    slots[hole] = 0;
    newer[row] = free;
    free = row;
  }

  private int find(long h, long l) {
    int mask = slots.length - 1;
    for (int s = home(l); slots[s] != 0; s = (s + 1) & mask) {
      int row = slots[s] - 1;
      if (low[row] == l && high[row] == h) {
        return row;
      }
    }
    return NONE;
  }

  /** A name's slot if nothing is in the way: its low bits are SHA-256's, already uniform. */
  private int home(long l) {
    return (int) (l ^ (l >>> 32)) & (slots.length - 1);
  }

  private void growRows() {
    int rows = high.length;
    int grown = rows < rowsFor ? (int) Math.min((long) rows * 2, rowsFor) : (int) Math.min((long) rows * 2,
        Integer.MAX_VALUE - 8);
    if (grown <= rows) {
      throw new IllegalStateException("the disk cache's index is full: " + rows + " blocks");
    }
    high = Arrays.copyOf(high, grown);
    low = Arrays.copyOf(low, grown);
    size = Arrays.copyOf(size, grown);
    older = Arrays.copyOf(older, grown);
    newer = Arrays.copyOf(newer, grown);
  }

  private void rehash(int length) {
    int[] old = slots;
    slots = new int[length];
    int mask = length - 1;
    for (int v : old) {
      if (v != 0) {
        int s = home(low[v - 1]);
        while (slots[s] != 0) {
          s = (s + 1) & mask;
        }
        slots[s] = v;
      }
    }
  }

  private static int slotsFor(int rows) {
    int length = Integer.highestOneBit(Math.max(2, rows));
    while ((long) length * LOAD_PERCENT / 100 < rows) {
      length *= 2;
    }
    return length;
  }

  private void linkYoungest(int row) {
    older[row] = youngest;
    newer[row] = NONE;
    if (youngest == NONE) {
      eldest = row;
    } else {
      newer[youngest] = row;
    }
    youngest = row;
  }

  private void unlink(int row) {
    int o = older[row];
    int n = newer[row];
    if (o == NONE) {
      eldest = n;
    } else {
      newer[o] = n;
    }
    if (n == NONE) {
      youngest = o;
    } else {
      older[n] = o;
    }
  }

  private static void checkSize(long bytes) {
    if (bytes < 0 || bytes > MAX_FILE_BYTES) {
      throw new IllegalArgumentException("a block file's size must be 0 to " + MAX_FILE_BYTES + ": " + bytes);
    }
  }

  // ---- names ---------------------------------------------------------------------------------

  private static long high(String name) {
    checkName(name);
    return HexFormat.fromHexDigitsToLong(name, 0, 16);
  }

  private static long low(String name) {
    checkName(name);
    return HexFormat.fromHexDigitsToLong(name, 16, 32);
  }

  private static void checkName(String name) {
    if (name.length() != 2 * BlockFile.NAME_BYTES) {
      throw new IllegalArgumentException("not a block name: " + name);
    }
  }

  /** A block's name ({@link BlockFile#name}) from its two halves. */
  static String name(long high, long low) {
    HexFormat hex = HexFormat.of();
    return hex.toHexDigits(high) + hex.toHexDigits(low);
  }
}
