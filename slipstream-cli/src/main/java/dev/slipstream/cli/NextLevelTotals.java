/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.cli;

import dev.slipstream.ListEntry;
import java.io.IOException;

/**
 * {@code du}'s sums: bytes and objects under a prefix, in all and per common prefix one level down (what
 * a listing with delimiter {@code /} would show: under {@code logs/}, {@code logs/2026/}). Fed a flat
 * listing in key order, in which the keys of each common prefix are contiguous, it hands each one's
 * total on as soon as the first key past it arrives: it holds one running total, never a table of them.
 */
final class NextLevelTotals {
  /** Bytes and objects under {@code prefix}. */
  record Total(String prefix, long bytes, long objects) {}

  /** Takes each common prefix's total as it is complete. */
  @FunctionalInterface
  interface Sink {
    void accept(Total total) throws IOException;
  }

  private final String prefix;
  private final Sink sink;

  private long bytes;
  private long objects;
  /** The common prefix being summed, or null between them. */
  private String group;
  private long groupBytes;
  private long groupObjects;

  /** {@code sink}: null for the grand total only ({@code du -s}). */
  NextLevelTotals(String prefix, Sink sink) {
    this.prefix = prefix;
    this.sink = sink;
  }

  /** Adds the next object of the listing (keys in S3's order). */
  void add(ListEntry e) throws IOException {
    bytes += e.size();
    objects++;
    if (sink == null) {
      return;
    }
    String key = e.key();
    String g = group != null && key.startsWith(group) ? group : groupOf(key);
    if (g == null || !g.equals(group)) {
      emit();
      group = g;
    }
    if (group != null) {
      groupBytes += e.size();
      groupObjects++;
    }
  }

  /** Hands on the last common prefix's total, and returns the grand total. */
  Total finish() throws IOException {
    emit();
    return total();
  }

  /** The grand total so far. */
  Total total() {
    return new Total(prefix, bytes, objects);
  }

  private String groupOf(String key) {
    int slash = key.indexOf('/', prefix.length());
    return slash < 0 ? null : key.substring(0, slash + 1);
  }

  private void emit() throws IOException {
    if (group != null && sink != null) {
      sink.accept(new Total(group, groupBytes, groupObjects));
    }
    group = null;
    groupBytes = 0;
    groupObjects = 0;
  }
}
