/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.list;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The keys of a bucket, listed as S3 lists them (in UTF-8 byte order, compared here by their bytes, not
 * through {@link KeyOrder}), for plans to be checked against without a server.
 */
final class Keys {
  private final List<String> sorted;

  Keys(Collection<String> keys) {
    List<String> l = new ArrayList<>(new LinkedHashSet<>(keys));
    l.sort(KeyOrderTest.UTF8_BYTES);
    this.sorted = List.copyOf(l);
  }

  List<String> all() {
    return sorted;
  }

  /** Every key under {@code prefix} after {@code startAfter} (null: from the start), in order. */
  List<String> list(String prefix, String startAfter) {
    List<String> out = new ArrayList<>();
    for (String k : sorted) {
      if (k.startsWith(prefix) && (startAfter == null || KeyOrderTest.UTF8_BYTES.compare(k, startAfter) > 0)) {
        out.add(k);
      }
    }
    return out;
  }

  /**
   * One page of a LIST with delimiter "/": the common prefixes, then the keys, of what lies under
   * {@code prefix} after {@code startAfter}; as the listing hands them to a plan.
   */
  List<String> children(String prefix, String startAfter, int max) {
    Set<String> prefixes = new LinkedHashSet<>();
    List<String> keys = new ArrayList<>();
    for (String k : list(prefix, startAfter)) {
      if (prefixes.size() + keys.size() >= max) {
        break;
      }
      int slash = k.indexOf('/', prefix.length());
      if (slash >= 0) {
        prefixes.add(k.substring(0, slash + 1));
      } else {
        keys.add(k);
      }
    }
    List<String> out = new ArrayList<>(prefixes);
    out.addAll(keys);
    return out;
  }

  /**
   * What a plan's listing returns, cut at {@code boundaries} into ranges listed one by one: each range
   * from its start-after to the next boundary (inclusive), stopping where the plan says its keys end.
   */
  List<String> listWith(ListingPlan plan, List<String> boundaries) {
    List<String> out = new ArrayList<>();
    List<String> starts = new ArrayList<>();
    starts.add(plan.startAfter());
    starts.addAll(boundaries);
    for (int r = 0; r < starts.size(); r++) {
      String upper = r + 1 < starts.size() ? starts.get(r + 1) : null;
      for (String k : list(plan.prefix(), starts.get(r))) {
        if ((upper != null && KeyOrderTest.UTF8_BYTES.compare(k, upper) > 0) || plan.pastEnd(k)) {
          break;
        }
        if (plan.accepts(k)) {
          out.add(k);
        }
      }
    }
    return out;
  }

  /** The first page of a plan's listing: the first {@code n} keys listed, kept or not. */
  List<String> firstPage(ListingPlan plan, int n) {
    List<String> l = list(plan.prefix(), plan.startAfter());
    return l.subList(0, Math.min(n, l.size()));
  }
}
