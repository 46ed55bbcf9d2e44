/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.hadoop;

import dev.slipstream.ListEntry;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The directories a glob's flat listing saw, kept for a short while so that the listings which follow
 * a glob are answered from it: FileInputFormat globs its input paths, then lists every directory
 * matched with {@code listLocatedStatus} (and, recursive, every directory under those), one S3A
 * listing each. Here those are answered from the glob's own listing, a snapshot taken moments before.
 *
 * <p>Bounded three ways, so that what is kept never goes stale for long nor grows: an entry answers
 * once ({@link #take} removes it), lives at most {@code list.reuse.ttl}, and the whole holds at most
 * {@link #MAX_ENTRIES} statuses (a glob that would add more keeps only what fits; expired directories
 * are dropped first). Mutations through the FileSystem ({@link #clear}) drop everything. A directory is
 * kept only if S3A would list it in one page (its entries, marker included, within
 * {@code min(1000, fs.s3a.paging.maximum)}), so that the order served is S3A's: files, then
 * subdirectories; and only if it has entries (an empty directory is S3A's to judge).
 *
 * <p>Thread-safe.
 */
final class ListingReuse {
  /** Most statuses held per FileSystem, as many as one glob may list ({@link FlatGlob#MAX_KEYS}). */
  static final int MAX_ENTRIES = FlatGlob.MAX_KEYS;

  private final long ttlNanos;
  private final int pageKeys;
  private final Map<String, Held> held = new HashMap<>();
  private final AtomicLong served = new AtomicLong();
  private int entries;

  ListingReuse(long ttlNanos, int pageKeys) {
    this.ttlNanos = ttlNanos;
    this.pageKeys = pageKeys;
  }

  /** One directory's listing: its files (key order) and subdirectory keys (S3 order), until {@code expires}. */
  record Held(List<ListEntry> files, List<String> dirs, long expires) {
    int size() {
      return files.size() + dirs.size();
    }
  }

  /** Keeps {@code dir} and every directory under it, while they fit. */
  void keep(FlatGlob.Node dir) {
    long expires = System.nanoTime() + ttlNanos;
    Deque<FlatGlob.Node> todo = new ArrayDeque<>();
    todo.push(dir);
    synchronized (this) {
      dropExpired();
      while (!todo.isEmpty()) {
        FlatGlob.Node n = todo.pop();
        n.dirs.values().forEach(todo::push);
        int size = n.entries();
        if (size == 0 || n.objects + n.dirs.size() > pageKeys || entries + size > MAX_ENTRIES) {
          continue;
        }
        List<String> subdirs = new ArrayList<>(n.dirs.size());
        n.dirs.values().forEach(d -> subdirs.add(d.key));
        Held old = held.put(n.key, new Held(List.copyOf(n.files), subdirs, expires));
        entries += size - (old == null ? 0 : old.size());
      }
    }
  }

  /** The listing of the directory {@code key} (no trailing slash), once; null if none is held or it expired. */
  synchronized Held take(String key) {
    if (held.isEmpty()) {
      return null;
    }
    Held h = held.remove(key);
    if (h == null) {
      return null;
    }
    entries -= h.size();
    if (System.nanoTime() - h.expires > 0) {
      return null;
    }
    served.incrementAndGet();
    return h;
  }

  /** Drops everything: the FileSystem changed something. */
  synchronized void clear() {
    held.clear();
    entries = 0;
  }

  /** Directory listings answered from a glob's listing. */
  long served() {
    return served.get();
  }

  /** Directories held now (expired ones included until the next glob or take). */
  synchronized int directories() {
    return held.size();
  }

  private void dropExpired() {
    long now = System.nanoTime();
    held.values().removeIf(h -> {
      if (now - h.expires > 0) {
        entries -= h.size();
        return true;
      }
      return false;
    });
  }
}
