/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.list;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * Everything under a prefix (or the part of it after a given key), as one flat listing.
 *
 * <h2>Where it is cut</h2>
 * Nothing is cut until the first page (1,000 keys) comes back truncated: a small listing costs one
 * request. Then one LIST with delimiter {@code /}, starting after the first page's last key, shows the
 * children one level down (sub-prefixes and keys, up to 1,000 of them); the boundaries are picked
 * evenly among them, each sub-prefix standing for its whole subtree. That is one extra request, and it
 * fits the shape of data sets: partitioned tables are trees of directories.
 *
 * <p>A flat key space (no sub-prefix in that page) gives no such structure. Then the first page's keys
 * are read as a counter: the run of digits (or hex digits, or letters and digits) where its first and
 * last keys start to differ is taken as the most significant "digit", and the rest of its alphabet,
 * above the last key, is cut evenly: after {@code part-00000 ... part-00999}, boundaries
 * {@code part-2}, {@code part-5}, {@code part-7}. A guess that misses only makes a range empty, which
 * costs its one request.
 *
 * <p>Either way the requests stay within {@code ceil(keys / 1000) + ranges}: each range ends on at most
 * one partial page, and the probe is one request.
 */
final class PrefixPlan implements ListingPlan {
  private final String prefix;
  /** Keys up to this one (inclusive) are not listed; null: from the prefix's first key. */
  private final String startAfter;

  PrefixPlan(String prefix) {
    this(prefix, null);
  }

  PrefixPlan(String prefix, String startAfter) {
    this.prefix = prefix;
    this.startAfter = startAfter;
  }

  @Override
  public String prefix() {
    return prefix;
  }

  @Override
  public String startAfter() {
    return startAfter;
  }

  @Override
  public boolean accepts(String key) {
    return true;
  }

  @Override
  public boolean pastEnd(String key) {
    return false;
  }

  @Override
  public List<String> splitPoints(List<String> firstPage, int ranges, DelimiterProbe lister) throws IOException {
    if (ranges < 2 || firstPage.isEmpty()) {
      return List.of();
    }
    String last = firstPage.get(firstPage.size() - 1);
    List<String> children = lister.children(prefix, last);
    List<String> candidates = new ArrayList<>();
    boolean sawPrefix = false;
    for (String c : children) {
      if (c.endsWith("/")) {
        sawPrefix = true;
        c = c.substring(0, c.length() - 1); // the subtree c/... sorts after c
      }
      if (KeyOrder.compare(c, last) > 0) {
        candidates.add(c);
      }
    }
    candidates.sort(KeyOrder.S3);
    if (sawPrefix && !candidates.isEmpty()) {
      return ListingPlan.evenly(candidates, ranges - 1);
    }
    return counterSplit(firstPage.get(0), last, ranges, prefix.length());
  }

  private static final String DIGITS = "0123456789";
  private static final String HEX = "0123456789abcdef";
  private static final String ALNUM = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

  /** Boundaries above {@code last} at the most significant position of the "counter" in the keys. */
  static List<String> counterSplit(String first, String last, int ranges, int from) {
    int d = KeyOrder.commonPrefix(first, last).length();
    if (d >= last.length() || d < from) {
      return List.of();
    }
    String alphabet = alphabetOf(last.charAt(d));
    if (alphabet == null) {
      return List.of();
    }
    int s = d;
    while (s - 1 >= from && alphabet.indexOf(last.charAt(s - 1)) >= 0) {
      s--;
    }
    if (alphabet == ALNUM) {
      // letters and digits mixed: narrow to hex if the whole run is hex
      boolean hex = true;
      for (int i = s; i <= d; i++) {
        hex &= HEX.indexOf(last.charAt(i)) >= 0;
      }
      if (hex) {
        alphabet = HEX;
      }
    }
    int i0 = alphabet.indexOf(last.charAt(s));
    int span = alphabet.length() - i0;
    List<String> out = new ArrayList<>();
    String head = last.substring(0, s);
    for (int k = 1; k < ranges; k++) {
      int i = i0 + span * k / ranges;
      if (i <= i0 || i >= alphabet.length()) {
        continue;
      }
      String b = head + alphabet.charAt(i);
      if (KeyOrder.compare(b, last) > 0 && (out.isEmpty() || KeyOrder.compare(out.get(out.size() - 1), b) < 0)) {
        out.add(b);
      }
    }
    return out;
  }

  private static String alphabetOf(char c) {
    if (c >= '0' && c <= '9') {
      return DIGITS;
    }
    if (c >= 'a' && c <= 'f') {
      return HEX;
    }
    if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z')) {
      return ALNUM;
    }
    return null;
  }
}
