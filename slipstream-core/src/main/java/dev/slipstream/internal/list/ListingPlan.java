/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.list;

import java.util.List;

/**
 * What one listing lists: the prefix of its requests, where it starts, which keys it keeps, where it
 * ends, and where it may be cut into key ranges. The two kinds are {@link PrefixPlan} (everything under
 * a prefix) and {@link DirectoriesPlan} (the merge-join against directories of interest).
 */
interface ListingPlan {
  /** The prefix of every LIST request. */
  String prefix();

  /** The first request's start-after, or null to start at the prefix. */
  String startAfter();

  /** Whether a listed key is part of the result. */
  boolean accepts(String key);

  /** Whether a key lies past everything this listing wants: the listing stops there. */
  boolean pastEnd(String key);

  /**
   * Boundaries to cut the rest of the listing at, after a first full page whose keys are
   * {@code firstPage} (its last key is where the first range goes on from). Each boundary is a
   * start-after: a range runs from one boundary (exclusive) to the next (inclusive). Returns at most
   * {@code ranges - 1} boundaries, in increasing key order, each greater than the last key of the page;
   * empty to go on with one range. May list (through {@code lister}) to find them.
   */
  List<String> splitPoints(List<String> firstPage, int ranges, DelimiterProbe lister) throws java.io.IOException;

  /** One delimiter LIST, for plans that look one level down to find boundaries. */
  interface DelimiterProbe {
    /** Common prefixes and keys of one page of {@code prefix} with delimiter "/" after {@code startAfter}. */
    List<String> children(String prefix, String startAfter) throws java.io.IOException;
  }

  /**
   * {@code n} items picked evenly from {@code candidates} (sorted); the first only when there are no more
   * candidates than picks (a boundary there only makes the first range short).
   */
  static List<String> evenly(List<String> candidates, int n) {
    List<String> out = new java.util.ArrayList<>();
    if (n <= 0 || candidates.isEmpty()) {
      return out;
    }
    int size = candidates.size();
    int picks = Math.min(n, size);
    for (int k = 1; k <= picks; k++) {
      int i = (int) ((long) size * k / (picks + 1));
      String c = candidates.get(Math.min(size - 1, Math.max(0, i)));
      if (out.isEmpty() || KeyOrder.compare(out.get(out.size() - 1), c) < 0) {
        out.add(c);
      }
    }
    return out;
  }
}
