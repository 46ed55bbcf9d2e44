/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.hadoop;

import dev.slipstream.ObjectRef;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.ToIntFunction;

/**
 * The order Spark's partition discovery hands out a table's partition directories, and so the order of
 * their files before Spark sorts them by length for its tasks. Spark (4.x, on Scala 2.13) groups the
 * files it listed by parent directory into a Scala immutable {@code HashMap} keyed by the directory's
 * Hadoop {@code Path}, and takes the partitions in that map's iteration order. That map is a hash trie
 * (CHAMP): a key's place comes from its improved hash code, five bits a level from the lowest; a node
 * gives its own entries first, in the order of their five bits, then its sub-nodes' in the same order,
 * depth first. A trie built only by insertions has one shape for one set of keys, so the order follows
 * from the directories alone. A map of four keys or fewer is no trie (Scala keeps them as built): no order
 * is given then. Spark leaves hidden files and directories out of its listing ({@code _name} without
 * {@code =}, {@code .name}, {@code name._COPYING_}; {@code _metadata} and {@code _common_metadata} are kept):
 * so does this order, since every key in the map moves the others' places.
 *
 * <p>Checked against Scala's own {@code HashMap} in the tests; a model of an engine's internals, so it is
 * followed only once a thread was seen to open two files in a row in it ({@link FollowedOrders}), and
 * open-ahead's outcomes switch a wrong one off.
 */
final class PartitionOrder {
  /** Maps this small are not tries: Scala keeps up to four entries in insertion order. */
  private static final int SMALLEST_TRIE = 5;
  private static final int BITS = 5;

  private PartitionOrder() {}

  /**
   * {@code byKey}'s files Spark would see, partition by partition in the order of its partition discovery,
   * each directory's files in key order; null if they lie in fewer than {@value #SMALLEST_TRIE} directories.
   *
   * @param byKey files in key order, all under {@code root}
   * @param root the directory listed ({@code "a/b/"}, or {@code ""}): only names below it can be hidden
   * @param directoryHash the hash code of a directory's qualified {@code Path}, by its key (no trailing slash)
   */
  static List<ObjectRef> byPartition(List<ObjectRef> byKey, String root, ToIntFunction<String> directoryHash) {
    Map<String, List<ObjectRef>> byDirectory = new LinkedHashMap<>();
    for (ObjectRef f : byKey) {
      String key = f.location().key();
      if (key.startsWith(root) && !hidden(key.substring(root.length()))) {
        int slash = key.lastIndexOf('/');
        byDirectory.computeIfAbsent(slash < 0 ? "" : key.substring(0, slash), d -> new ArrayList<>()).add(f);
      }
    }
    if (byDirectory.size() < SMALLEST_TRIE) {
      return null;
    }
    List<Keyed> directories = new ArrayList<>(byDirectory.size());
    for (String d : byDirectory.keySet()) {
      directories.add(new Keyed(d, improve(directoryHash.applyAsInt(d))));
    }
    List<ObjectRef> ordered = new ArrayList<>(byKey.size());
    for (Keyed d : trieOrder(directories, 0)) {
      ordered.addAll(byDirectory.get(d.name()));
    }
    return ordered;
  }

  private record Keyed(String name, int hash) {}

  /** {@code keys} in the iteration order of a hash trie holding them, from level {@code shift}. */
  private static List<Keyed> trieOrder(List<Keyed> keys, int shift) {
    if (shift >= Integer.SIZE) {
      return keys; // equal hashes: one collision node, in insertion order
    }
    TreeMap<Integer, List<Keyed>> byBits = new TreeMap<>();
    for (Keyed k : keys) {
      byBits.computeIfAbsent((k.hash() >>> shift) & ((1 << BITS) - 1), b -> new ArrayList<>()).add(k);
    }
    List<Keyed> order = new ArrayList<>(keys.size());
    List<List<Keyed>> deeper = new ArrayList<>();
    for (List<Keyed> same : byBits.values()) {
      if (same.size() == 1) {
        order.add(same.get(0)); // the node's own entries first
      } else {
        deeper.add(same);
      }
    }
    for (List<Keyed> same : deeper) {
      order.addAll(trieOrder(same, shift + BITS));
    }
    return order;
  }

  /** Scala's spreading of a hash code before its hash trie takes bits of it ({@code scala.collection.Hashing}). */
  static int improve(int hashCode) {
    int h = hashCode + ~(hashCode << 9);
    h ^= h >>> 14;
    h += h << 4;
    return h ^ (h >>> 10);
  }

  /** Whether Spark's listing leaves this file out ({@code key} below the root listed): hidden, or under a hidden directory. */
  static boolean hidden(String key) {
    int from = 0;
    while (true) {
      int slash = key.indexOf('/', from);
      String name = slash < 0 ? key.substring(from) : key.substring(from, slash);
      boolean excluded = name.startsWith("_") && !name.contains("=") || name.startsWith(".")
          || name.endsWith("._COPYING_");
      boolean kept = slash < 0 && (name.startsWith("_metadata") || name.startsWith("_common_metadata"));
      if (excluded && !kept) {
        return true;
      }
      if (slash < 0) {
        return false;
      }
      from = slash + 1;
    }
  }
}
