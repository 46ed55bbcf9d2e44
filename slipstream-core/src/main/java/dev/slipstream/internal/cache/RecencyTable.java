/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.cache;

import java.util.Arrays;
import java.util.HexFormat;

/**
 * Block names with a size each, least recently used first, and their total: the rows of {@link BlockIndex},
 * kept in a few bytes a name.
 *
 * <p>Why not a map: the index holds a row for every file in the cache, up to {@link CacheSpace#MAX_FILES}, for
 * as long as the process lives, and small Parquet objects leave one or two files each. A {@code
 * LinkedHashMap} of objects took about 110 bytes of heap a file. Here a row is a place in parallel primitive
 * arrays: the name's 128 bits as two longs ({@link BlockFile#name}), the size as an unsigned int, and the rows
 * used just before and after it as two ints (a doubly linked recency list without objects). Rows are found
 * through an open-addressing table of ints (linear probing, at most {@value #LOAD_PERCENT}% full, deletion by
 * backward shift, so no tombstones build up). Rows grow by doubling up to {@code rowsFor} (the bound on
 * files) and stay there; a removed row is reused. About 33 bytes a row at 100,000 rows ({@link #heapBytes}),
 * up to twice that just after the arrays doubled.
 *
 * <p>Not thread-safe: {@link CacheSpace} holds the lock.
 */
final class RecencyTable {
  /** The most a file's size may be: it is kept as an unsigned int. */
  static final long MAX_SIZE = 0xFFFF_FFFFL;

  private static final int NONE = -1;
  private static final int MIN_ROWS = 64;
  /** How full the table of slots may get before it doubles. */
  private static final int LOAD_PERCENT = 80;

  /** Rows grow by doubling up to this many, and beyond only by doubling again, when a scan finds more. */
  private final int rowsFor;

  // A row: its name's two halves, its file's size, the rows used just before and after it.
  private long[] high;
  private long[] low;
  private int[] size;
  private int[] older;
  private int[] newer;
  /** Rows ever used; a removed row joins the free list (linked through {@link #newer}). */
  private int rowsUsed;
  private int free;
  /** The least and the most recently used rows, or {@link #NONE}. */
  private int eldest;
  private int youngest;
  private int count;
  /** Open addressing: a row's number plus one, 0 for an empty slot. */
  private int[] slots;
  private long totalSize;

  RecencyTable(int rowsFor) {
    if (rowsFor < 1) {
      throw new IllegalArgumentException("rowsFor must be at least 1: " + rowsFor);
    }
    this.rowsFor = rowsFor;
    clear();
  }

  /** Forgets every row, and gives back the arrays' memory. */
  void clear() {
    high = new long[MIN_ROWS];
    low = new long[MIN_ROWS];
    size = new int[MIN_ROWS];
    older = new int[MIN_ROWS];
    newer = new int[MIN_ROWS];
    slots = new int[2 * MIN_ROWS];
    rowsUsed = 0;
    free = NONE;
    eldest = NONE;
    youngest = NONE;
    count = 0;
    totalSize = 0;
  }

  int size() {
    return count;
  }

  long totalSize() {
    return totalSize;
  }

  /** The heap the arrays take, in bytes: each array's elements and its 16-byte header. */
  long heapBytes() {
    return 6 * 16L + (long) high.length * (8 + 8 + 4 + 4 + 4) + slots.length * 4L;
  }

  /** Sets {@code name}'s size and makes it the most recently used, adding it if it is not here. */
  void put(String name, long size) {
    put(high(name), low(name), size);
  }

  /** {@link #put(String, long)} by the name's two halves. */
  void put(long h, long l, long bytes) {
    checkSize(bytes);
    int row = find(h, l);
    if (row == NONE) {
      add(h, l, bytes);
    } else {
      totalSize += bytes - Integer.toUnsignedLong(size[row]);
      size[row] = (int) bytes;
      unlink(row);
      linkYoungest(row);
    }
  }

  /** Makes {@code name} the most recently used, adding it with {@code size} if it is not here. */
  void touch(String name, long size) {
    long h = high(name);
    long l = low(name);
    int row = find(h, l);
    if (row == NONE) {
      checkSize(size);
      add(h, l, size);
    } else {
      unlink(row);
      linkYoungest(row);
    }
  }

  /** True if the name whose two halves are {@code h} and {@code l} is here; its recency is left as it was. */
  boolean contains(long h, long l) {
    return find(h, l) != NONE;
  }

  void remove(String name) {
    int row = find(high(name), low(name));
    if (row != NONE) {
      remove(row);
    }
  }

  /** Removes the least recently used name and returns it; null if there is none. */
  String removeEldest() {
    if (eldest == NONE) {
      return null;
    }
    int row = eldest;
    String name = name(high[row], low[row]);
    remove(row);
    return name;
  }

  private void add(long h, long l, long bytes) {
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
    totalSize += bytes;
  }

  private void remove(int row) {
    unlink(row);
    totalSize -= Integer.toUnsignedLong(size[row]);
    count--;
    int mask = slots.length - 1;
    int hole = home(low[row]);
    while (slots[hole] != row + 1) {
      hole = (hole + 1) & mask;
    }
    // Backward shift: each later row of the run whose home is not between the hole and its slot moves in.
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

  /** A name's first slot: its low bits are SHA-256's, already uniform. */
  private int home(long l) {
    return (int) (l ^ (l >>> 32)) & (slots.length - 1);
  }

  private void growRows() {
    int rows = high.length;
    long doubled = 2L * rows;
    int grown = (int) Math.min(rows < rowsFor ? Math.min(doubled, rowsFor) : doubled, Integer.MAX_VALUE - 8);
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
    if (bytes < 0 || bytes > MAX_SIZE) {
      throw new IllegalArgumentException("a block file's size must be 0 to " + MAX_SIZE + ": " + bytes);
    }
  }

  // ---- names ---------------------------------------------------------------------------------

  /** The first half of a block's name ({@link BlockFile#name}: 32 hex digits). */
  static long high(String name) {
    checkName(name);
    return HexFormat.fromHexDigitsToLong(name, 0, 16);
  }

  /** The second half of a block's name. */
  static long low(String name) {
    checkName(name);
    return HexFormat.fromHexDigitsToLong(name, 16, 32);
  }

  private static void checkName(String name) {
    if (name.length() != 2 * BlockFile.NAME_BYTES) {
      throw new IllegalArgumentException("not a block name: " + name);
    }
  }

  /** A block's name from its two halves. */
  static String name(long high, long low) {
    HexFormat hex = HexFormat.of();
    return hex.toHexDigits(high) + hex.toHexDigits(low);
  }
}
