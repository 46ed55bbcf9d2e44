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
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;

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
 */
final class BlockIndex {
  /** A temporary file older than this is a leftover of a crashed writer, not one being written. */
  static final long STALE_TMP_MILLIS = 10 * 60 * 1000;

  private final CacheDirectory directory;
  private final long rescanEvery;
  /**
   * The blocks, least recently used first, each its own key and value: a name of 64 hex digits held as four
   * longs, with its file's size (about 110 bytes of heap a block, where a String and a Long took 170).
   */
  private final LinkedHashMap<Entry, Entry> entries = new LinkedHashMap<>(64, 0.75f, true);
  private long totalBytes;
  private long writtenSinceScan;

  BlockIndex(CacheDirectory directory, long maxBytes) {
    this.directory = directory;
    this.rescanEvery = Math.max(1, maxBytes / 16);
  }

  long totalBytes() {
    return totalBytes;
  }

  int size() {
    return entries.size();
  }

  /** A block this process wrote. */
  void written(String name, long size) {
    put(name, size);
    writtenSinceScan += size;
  }

  /** A hit: the block becomes the most recently used (and is counted if another process wrote it). */
  void used(String name, long size) {
    if (entries.get(Entry.of(name, 0)) == null) {
      put(name, size);
    }
  }

  private void put(String name, long size) {
    Entry e = Entry.of(name, size);
    Entry old = entries.put(e, e);
    totalBytes += size - (old == null ? 0 : old.size);
  }

  void forget(String name) {
    Entry e = entries.remove(Entry.of(name, 0));
    if (e != null) {
      totalBytes -= e.size;
    }
  }

  void clear() {
    entries.clear();
    totalBytes = 0;
  }

  /** True once this process has written enough since the last scan that other processes' blocks may be missed. */
  boolean rescanDue() {
    return writtenSinceScan >= rescanEvery;
  }

  /** Deletes the least recently used block; false if there is none. */
  boolean evictEldest() {
    Iterator<Entry> it = entries.values().iterator();
    if (!it.hasNext()) {
      return false;
    }
    Entry e = it.next();
    it.remove();
    totalBytes -= e.size;
    try {
      Files.deleteIfExists(directory.blockFile(e.name()));
    } catch (IOException ex) {
      // already gone, or a read-only directory: the next scan sees it again
    }
    return true;
  }

  /** What one scan did. */
  record ScanResult(int reused, int dropped) {}

  /**
   * Rebuilds the index from the directory, oldest modification first. With {@code validate}, a block file
   * whose header is not its own is deleted; with {@code clear}, every block file is. Temporary files of
   * crashed writers are deleted. Other names are not the cache's and are left alone.
   */
  ScanResult scan(boolean validate, boolean clear) throws IOException {
    record Found(String name, long size, long modified) {}
    List<Found> found = new ArrayList<>();
    int dropped = 0;
    long now = System.currentTimeMillis();
    try (DirectoryStream<Path> shards = directory.shards()) {
      for (Path shard : shards) {
        try (DirectoryStream<Path> files = Files.newDirectoryStream(shard)) {
          for (Path p : files) {
            String fn = p.getFileName().toString();
            String name = BlockFile.blockName(fn);
            boolean temp = name == null && BlockFile.isTempFile(fn);
            if (name == null && !temp) {
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
            } else if (clear || (validate && !BlockFile.isValid(p, name))) {
              Files.deleteIfExists(p);
              dropped++;
            } else {
              found.add(new Found(name, a.size(), modified));
            }
          }
        }
      }
    } finally {
      found.sort(Comparator.comparingLong(Found::modified).thenComparing(Found::name));
      clear();
      for (Found f : found) {
        put(f.name(), f.size());
      }
      writtenSinceScan = 0;
    }
    return new ScanResult(found.size(), dropped);
  }

  /**
   * A block's name ({@link BlockFile#name}: 32 bytes as 64 lowercase hex digits) as four longs, equal by
   * name alone, and its file's size.
   */
  static final class Entry {
    private final long a;
    private final long b;
    private final long c;
    private final long d;
    final long size;

    private Entry(long a, long b, long c, long d, long size) {
      this.a = a;
      this.b = b;
      this.c = c;
      this.d = d;
      this.size = size;
    }

    static Entry of(String name, long size) {
      if (name.length() != 64) {
        throw new IllegalArgumentException("not a block name: " + name);
      }
      return new Entry(HexFormat.fromHexDigitsToLong(name, 0, 16), HexFormat.fromHexDigitsToLong(name, 16, 32),
          HexFormat.fromHexDigitsToLong(name, 32, 48), HexFormat.fromHexDigitsToLong(name, 48, 64), size);
    }

    String name() {
      HexFormat hex = HexFormat.of();
      return hex.toHexDigits(a) + hex.toHexDigits(b) + hex.toHexDigits(c) + hex.toHexDigits(d);
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof Entry e && a == e.a && b == e.b && c == e.c && d == e.d;
    }

    @Override
    public int hashCode() {
      return Long.hashCode(a ^ b ^ c ^ d);
    }
  }
}
