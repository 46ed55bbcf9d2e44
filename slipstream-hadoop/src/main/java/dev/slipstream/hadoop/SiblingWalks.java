/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.hadoop;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Tells a walk over sibling directories, one listing call each, from a single directory listing: what
 * Spark's file index does on the driver (and inside each discovery task), and what Hive's and Trino's
 * directory listers do over a table's partitions. The evidence is a second call for another child of
 * the same parent within {@code list.reuse.ttl}; the answer is how many keys of the parent to list flat
 * from the directory asked for: one page (1,000 keys, or {@code fs.s3a.paging.maximum} if fewer) at
 * first, doubling each time the walk goes past what was listed, up to {@link FlatGlob#MAX_KEYS}. So a
 * walk of n sibling directories costs about keys / page requests plus a handful, and a batch of a few siblings (a discovery task's) wastes at
 * most about as many keys as it used.
 *
 * <p>Bounded per walk, not per call: one flat listing at a time, each starting past the last key the
 * walk listed, so a walk lists each key of the parent flat at most once. A directory it listed but could
 * not keep (larger than a page, or cut by the budget) is S3A's, as is every call after the walk's
 * listing reached the parent's end or was refused (403: a policy may grant listing the children's
 * prefixes and not the parent's, as {@code s3:prefix} conditions do).
 *
 * <p>Bounded: the last {@link #PARENTS} parents walked are remembered, a walk and two keys each (a few
 * hundred bytes; tens of KB in all), and a walk not continued within {@code list.reuse.ttl} starts over.
 * Thread-safe.
 */
final class SiblingWalks {
  /**
   * Keys listed flat at the walk's first sign: one LIST page ({@code fs.s3a.paging.maximum}, at most
   * 1,000), the cost of the call it answers.
   */
  private final int firstBudget;
  /** Parents remembered at once. */
  static final int PARENTS = 64;

  private final long ttlNanos;
  private final int maxBudget;
  private final Map<String, Walk> byParent = new LinkedHashMap<>(16, 0.75f, true) {
    @Override
    protected boolean removeEldestEntry(Map.Entry<String, Walk> eldest) {
      return size() > PARENTS;
    }
  };

  SiblingWalks(long ttlNanos, int firstBudget, int maxBudget) {
    this.ttlNanos = ttlNanos;
    this.firstBudget = firstBudget;
    this.maxBudget = maxBudget;
  }

  /**
   * The listing of {@code childKey}, a directory of {@code parentKey}, was asked for; {@code held} if a
   * kept flat listing answers it. Returns how many keys of the parent to list flat from it (for a call
   * not held), or 0 to leave the call to S3A.
   */
  synchronized int asked(String parentKey, String childKey, boolean held) {
    long now = System.nanoTime();
    Walk w = byParent.get(parentKey);
    if (w == null || now - w.at > ttlNanos) {
      byParent.put(parentKey, new Walk(childKey, now));
      return 0;
    }
    w.at = now;
    if (w.lastChild.equals(childKey)) {
      return 0; // the same directory again: no walk
    }
    w.lastChild = childKey;
    if (held || w.listing || w.ended || w.listedTo != null && (childKey + "/").compareTo(w.listedTo) <= 0) {
      return 0;
    }
    w.listing = true;
    w.budget = w.budget == 0 ? firstBudget : (int) Math.min(maxBudget, 2L * w.budget);
    return w.budget;
  }

  /**
   * The flat listing {@link #asked} granted for {@code parentKey} is over: it listed up to
   * {@code lastKey}, or, null, to the parent's end or not at all (refused, or a layout S3A must judge):
   * the rest of the walk is then S3A's.
   */
  /** Keys of a walk's first flat listing: one page. */
  int firstBudget() {
    return firstBudget;
  }

  synchronized void listed(String parentKey, String lastKey) {
    Walk w = byParent.get(parentKey);
    if (w != null) {
      w.listing = false;
      w.listedTo = lastKey;
      w.ended = lastKey == null;
    }
  }

  private static final class Walk {
    private String lastChild;
    private long at;
    private int budget;
    /** A flat listing granted and not over. */
    private boolean listing;
    /** The last key the walk's flat listings reached; null: none yet. */
    private String listedTo;
    /** No more flat listings in this walk. */
    private boolean ended;

    Walk(String lastChild, long at) {
      this.lastChild = lastChild;
      this.at = at;
    }
  }
}
