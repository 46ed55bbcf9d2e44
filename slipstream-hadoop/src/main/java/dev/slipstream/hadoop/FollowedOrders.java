/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.hadoop;

import dev.slipstream.ObjectRef;
import dev.slipstream.S3Location;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.ToIntFunction;

/**
 * The orders a thread is seen to open listed files in, across every listing of a directory tree: the next
 * files to open ahead when a reader does not read its files in one listing's order. Two orders are known,
 * over the files this FileSystem listed lately under the deepest directory holding both the previous file
 * and the one opened now:
 * <ul>
 *   <li><b>by key</b>: S3's listing order, which a reader that walks a table's partitions in turn follows;</li>
 *   <li><b>largest first</b>, equal lengths by key: the order Spark packs a scan's files into its tasks
 *       ({@code FilePartition}: files sorted by length, largest first, then cut into partitions in turn), so
 *       that within a task, each file is the one after the last in this order;</li>
 *   <li><b>largest first, equal lengths by partition</b>: the same, for a table of more than four partition
 *       directories. Spark's sort by length is stable, and what it sorts comes partition by partition, in
 *       the order its partition discovery hands the directories out ({@link PartitionOrder}), each
 *       directory's files in key order. Files of equal length (a table pyarrow wrote, say) are then read
 *       in that order, which no listing shows.</li>
 * </ul>
 * An order is followed once a thread opened two files in a row in it. A task that moves on to its next
 * partition opens a file that follows nothing it read: the order another thread proved last in the same
 * tree is then followed from that file (Spark's tasks all take one order). Thread-safe.
 */
final class FollowedOrders {
  /** The order proven last, and under which directory; null until one is. */
  private volatile Proven last;
  /** The hash code of a directory's path as the engine holds it (a Hadoop {@code Path}), by its key. */
  private final ToIntFunction<String> directoryHash;

  private enum Kind {
    BY_KEY, LARGEST_FIRST, LARGEST_FIRST_BY_PARTITION
  }

  /**
   * Directories' hash codes known: each open of a file looks at every directory of its table, and making a
   * qualified {@code Path} is most of that work (about half of what this FileSystem spent on a Spark task's
   * threads in a profile). At most {@value #HASHES_KEPT}, the least recently used let go first.
   */
  private final Map<String, Integer> hashes = new LinkedHashMap<>(64, 0.75f, true) {
    @Override
    protected boolean removeEldestEntry(Map.Entry<String, Integer> eldest) {
      return size() > HASHES_KEPT;
    }
  };
  static final int HASHES_KEPT = 16_384;

  /** @param directoryHash the hash code of a directory's qualified {@code Path}, by its key (no trailing slash) */
  FollowedOrders(ToIntFunction<String> directoryHash) {
    this.directoryHash = dir -> {
      synchronized (hashes) {
        return hashes.computeIfAbsent(dir, directoryHash::applyAsInt);
      }
    };
  }

  private record Proven(String bucket, String dir, Kind kind) {}

  /**
   * Up to {@code k} files that follow {@code current} in the order this thread's previous file and
   * {@code current} show (or, if they show none, the order proven last under the same directory);
   * empty if no order is known.
   *
   * @param previous the file this thread opened before {@code current}; null if none
   * @param listedUnder the files remembered under a directory, in key order
   */
  List<ObjectRef> following(S3Location previous, S3Location current, int k, Listed listedUnder) {
    if (previous != null && previous.bucket().equals(current.bucket())) {
      String dir = commonDirectory(previous.key(), current.key());
      List<ObjectRef> files = listedUnder.files(current.bucket(), dir);
      for (Kind kind : Kind.values()) {
        List<ObjectRef> order = ordered(files, dir, kind);
        int at = order == null ? -1 : indexOf(order, current);
        if (at > 0 && order.get(at - 1).location().equals(previous)) {
          last = new Proven(current.bucket(), dir, kind);
          return after(order, at, k);
        }
      }
    }
    Proven p = last;
    if (p == null || !p.bucket().equals(current.bucket()) || !current.key().startsWith(p.dir())) {
      return List.of();
    }
    List<ObjectRef> order = ordered(listedUnder.files(p.bucket(), p.dir()), p.dir(), p.kind());
    int at = order == null ? -1 : indexOf(order, current);
    return at < 0 ? List.of() : after(order, at, k);
  }

  /** The files remembered under a directory ({@code ""}: the whole bucket), in key order. */
  @FunctionalInterface
  interface Listed {
    List<ObjectRef> files(String bucket, String dir);
  }

  /** {@code byKey} in the order {@code kind}; null where that order is not defined (too few partitions). */
  private List<ObjectRef> ordered(List<ObjectRef> byKey, String dir, Kind kind) {
    if (kind == Kind.BY_KEY) {
      return byKey;
    }
    List<ObjectRef> sorted = kind == Kind.LARGEST_FIRST ? new ArrayList<>(byKey)
        : PartitionOrder.byPartition(byKey, dir, directoryHash);
    if (sorted == null) {
      return null;
    }
    sorted.sort(Comparator.comparingLong(ObjectRef::length).reversed()); // stable: equal lengths as they were
    return sorted;
  }

  private static int indexOf(List<ObjectRef> order, S3Location location) {
    for (int i = 0; i < order.size(); i++) {
      if (order.get(i).location().equals(location)) {
        return i;
      }
    }
    return -1;
  }

  private static List<ObjectRef> after(List<ObjectRef> order, int at, int k) {
    return List.copyOf(order.subList(at + 1, Math.min(order.size(), at + 1 + k)));
  }

  /** The deepest directory ({@code "a/b/"}, or {@code ""} for the bucket's root) holding both keys. */
  static String commonDirectory(String a, String b) {
    int n = Math.min(a.length(), b.length());
    int i = 0;
    while (i < n && a.charAt(i) == b.charAt(i)) {
      i++;
    }
    return a.substring(0, a.lastIndexOf('/', i - 1) + 1);
  }
}
