/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.memcached;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.List;

/**
 * Which server holds a key: the weighted ketama ring of libmemcached, so that a client of ours and one of
 * libmemcached (or a proxy routing with it) place every key alike, and adding or losing a server moves only
 * that server's share of keys.
 *
 * <p>The ring, as libmemcached builds it: each server gets points in proportion to its weight, 160 for an
 * even share (computed in single precision, as libmemcached does, so that the same counts come out);
 * a server's points are the MD5 digests of {@code host-N} ({@code host:port-N} when the port is not 11211),
 * four points of 32 bits (little-endian) from each digest. A key's hash is the first four bytes of its MD5
 * (little-endian); it belongs to the first point at or after its hash, the ring wrapping around past the
 * last. Checked against libmemcached's own compatibility vectors (KetamaRingTest).
 */
final class KetamaRing {
  /** Points of one server when every server weighs the same: libmemcached's MEMCACHED_POINTS_PER_SERVER_KETAMA. */
  static final int POINTS_PER_SERVER = 160;
  private static final int POINTS_PER_DIGEST = 4;
  private static final int DEFAULT_PORT = 11211;

  /** A server on the ring: its host as written, port and weight. */
  record Server(String host, int port, int weight) {
    Server {
      if (weight <= 0) {
        throw new IllegalArgumentException("weight of " + host + ":" + port + " must be positive: " + weight);
      }
    }

    /** The name its points are hashed from, as libmemcached writes it. */
    String pointName(int n) {
      return port == DEFAULT_PORT ? host + "-" + n : host + ":" + port + "-" + n;
    }
  }

  /** Point values (unsigned 32-bit, held in longs), sorted, and the server index of each. */
  private final long[] points;
  private final int[] owners;

  KetamaRing(List<Server> servers) {
    if (servers.isEmpty()) {
      throw new IllegalArgumentException("a ring needs at least one server");
    }
    long total = 0;
    for (Server s : servers) {
      total += s.weight();
    }
    int live = servers.size();
    long[][] all = new long[live][];
    int count = 0;
    for (int i = 0; i < live; i++) {
      Server s = servers.get(i);
      // Single precision throughout, as libmemcached computes it (some server counts round down by 4).
      float share = (float) s.weight() / (float) total;
      int perServer = (int) Math.floor((float) (share * POINTS_PER_SERVER / 4 * (float) live + 0.0000000001F)) * 4;
      long[] mine = new long[perServer];
      for (int n = 0; n < perServer / POINTS_PER_DIGEST; n++) {
        byte[] digest = md5(s.pointName(n).getBytes(StandardCharsets.UTF_8));
        for (int k = 0; k < POINTS_PER_DIGEST; k++) {
          mine[n * POINTS_PER_DIGEST + k] = littleEndian(digest, k * 4);
        }
      }
      all[i] = mine;
      count += perServer;
    }
    // Sorted by value; equal values (rare) keep the order of the server list.
    long[] packed = new long[count];
    int p = 0;
    for (int i = 0; i < live; i++) {
      for (long v : all[i]) {
        packed[p++] = (v << 16) | i; // 32-bit value above a 16-bit server index
      }
    }
    Arrays.sort(packed);
    this.points = new long[count];
    this.owners = new int[count];
    for (int j = 0; j < count; j++) {
      points[j] = packed[j] >>> 16;
      owners[j] = (int) (packed[j] & 0xFFFF);
    }
  }

  /** The key's hash: the first four bytes of its MD5, little-endian, unsigned. */
  static long hash(byte[] key) {
    return littleEndian(md5(key), 0);
  }

  /** The index (in the list given) of the server that holds {@code key}. */
  int serverOf(byte[] key) {
    return owners[pointOf(hash(key))];
  }

  /** The index of the point a hash belongs to: the first at or after it, wrapping past the last. */
  int pointOf(long hash) {
    int lo = 0;
    int hi = points.length;
    while (lo < hi) {
      int mid = (lo + hi) >>> 1;
      if (points[mid] < hash) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return lo == points.length ? 0 : lo;
  }

  /** The value of point {@code i}. */
  long point(int i) {
    return points[i];
  }

  int size() {
    return points.length;
  }

  private static long littleEndian(byte[] b, int at) {
    return (b[at] & 0xFFL) | (b[at + 1] & 0xFFL) << 8 | (b[at + 2] & 0xFFL) << 16 | (b[at + 3] & 0xFFL) << 24;
  }

  private static byte[] md5(byte[] data) {
    try {
      return MessageDigest.getInstance("MD5").digest(data);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("MD5 is missing from this JVM", e);
    }
  }
}
