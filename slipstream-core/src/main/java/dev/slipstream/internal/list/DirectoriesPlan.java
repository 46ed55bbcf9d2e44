/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.list;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The merge-join: one flat listing (no delimiter) of the directories' common parent, starting just
 * before the first directory of interest and stopping after the last, keeping only keys in (or, if
 * recursive, under) the directories of interest. Keys in between that belong to other directories (the
 * partitions a query pruned away) are listed and dropped: one request brings up to 1,000 keys of any
 * number of directories, where listing each directory costs at least one request of its own.
 *
 * <p>Boundaries for parallel ranges are directories of interest themselves, picked evenly among those
 * not yet reached by the first page, so no request is spent finding them. Each boundary is a directory
 * without its trailing slash: every key of that directory sorts after it, every key of the directories
 * before it sorts before it.
 */
final class DirectoriesPlan implements ListingPlan {
  private final String[] dirs;
  private final Set<String> dirSet;
  private final boolean recursive;
  private final String prefix;
  private final String last;

  /** {@code directories}: non-empty keys ending in "/"; sorted and de-duplicated here. */
  DirectoriesPlan(Collection<String> directories, boolean recursive) {
    String[] sorted = directories.stream().distinct().sorted(KeyOrder.S3).toArray(String[]::new);
    if (recursive) {
      // a directory under another one of interest adds nothing to a recursive listing
      List<String> kept = new ArrayList<>();
      for (String d : sorted) {
        if (kept.isEmpty() || !d.startsWith(kept.get(kept.size() - 1))) {
          kept.add(d);
        }
      }
      sorted = kept.toArray(String[]::new);
    }
    this.dirs = sorted;
    this.dirSet = new HashSet<>(Arrays.asList(sorted));
    this.recursive = recursive;
    this.last = sorted[sorted.length - 1];
    this.prefix = KeyOrder.commonPrefix(sorted[0], last);
  }

  @Override
  public String prefix() {
    return prefix;
  }

  @Override
  public String startAfter() {
    // just before the first directory: its marker object ("dir/") is listed too
    String first = dirs[0];
    String s = first.substring(0, first.length() - 1);
    return s.length() > prefix.length() ? s : null;
  }

  @Override
  public boolean accepts(String key) {
    if (!recursive) {
      return dirSet.contains(key.substring(0, key.lastIndexOf('/') + 1));
    }
    int i = floor(key);
    return i >= 0 && key.startsWith(dirs[i]);
  }

  /** Index of the greatest directory not after {@code key}, or -1. */
  private int floor(String key) {
    int lo = 0;
    int hi = dirs.length - 1;
    int found = -1;
    while (lo <= hi) {
      int mid = (lo + hi) >>> 1;
      if (KeyOrder.compare(dirs[mid], key) <= 0) {
        found = mid;
        lo = mid + 1;
      } else {
        hi = mid - 1;
      }
    }
    return found;
  }

  /**
   * Past the last directory and under none of the directories of interest. Not only the last one: a
   * directory may hold another of interest ("a/" and "a/b/"), and the keys directly in "a/" that sort
   * after "a/b/" ("a/c") are still to come.
   */
  @Override
  public boolean pastEnd(String key) {
    return KeyOrder.compare(key, last) > 0 && !underADirectory(key);
  }

  /** Whether a directory of interest is an ancestor of {@code key}: one look-up per '/' in it. */
  private boolean underADirectory(String key) {
    for (int i = key.indexOf('/'); i >= 0; i = key.indexOf('/', i + 1)) {
      if (dirSet.contains(key.substring(0, i + 1))) {
        return true;
      }
    }
    return false;
  }

  @Override
  public List<String> splitPoints(List<String> firstPage, int ranges, DelimiterProbe lister) {
    if (ranges < 2 || firstPage.isEmpty()) {
      return List.of();
    }
    String lastKey = firstPage.get(firstPage.size() - 1);
    List<String> candidates = new ArrayList<>();
    for (int i = Math.max(0, floor(lastKey)); i < dirs.length; i++) {
      String b = dirs[i].substring(0, dirs[i].length() - 1);
      if (KeyOrder.compare(b, lastKey) > 0) {
        candidates.add(b);
      }
    }
    return ListingPlan.evenly(candidates, ranges - 1);
  }
}
