/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.bench;

import dev.slipstream.testkit.LinkShaper;
import dev.slipstream.testkit.RequestInfo;
import java.util.concurrent.atomic.LongAdder;

/**
 * Counts the requests every reader sends through the link shaper, the same way for all of them: HEAD
 * requests; GETs of an object; LISTs (a GET of the bucket itself, as ListObjects is); anything else. The
 * shaper has no per-kind counter, so this watches each request with a never-matching
 * {@link LinkShaper#onRequest} predicate, which the shaper asks about every request it forwards.
 */
final class RequestCounter {
  /** Requests of each kind; subtract two snapshots to get a run's. */
  record Counts(long gets, long heads, long lists, long others) {
    Counts minus(Counts before) {
      return new Counts(gets - before.gets, heads - before.heads, lists - before.lists, others - before.others);
    }
  }

  private final String bucketPath;
  private final LongAdder gets = new LongAdder();
  private final LongAdder heads = new LongAdder();
  private final LongAdder lists = new LongAdder();
  private final LongAdder others = new LongAdder();

  private RequestCounter(String bucket) {
    this.bucketPath = "/" + bucket;
  }

  /** First-byte and total nanoseconds of each object GET answered whole, in the order they ended. */
  private final LatencyLog latencies = new LatencyLog();

  static RequestCounter attach(LinkShaper shaper, String bucket) {
    RequestCounter counter = new RequestCounter(bucket);
    shaper.onRequest(info -> {
      counter.count(info);
      return false;
    }, () -> { });
    shaper.onResponse((info, status, firstByte, total) -> {
      if (counter.isObjectGet(info) && status >= 200 && status < 300) {
        counter.latencies.add(firstByte, total);
      }
    });
    return counter;
  }

  private boolean isObjectGet(RequestInfo r) {
    return r.isGet() && !r.path().equals(bucketPath) && !r.path().equals(bucketPath + "/");
  }

  /** Object GETs answered whole so far: a mark for {@link #latenciesSince}. */
  int latencyMark() {
    return latencies.size();
  }

  /** The first-byte and total nanoseconds of the object GETs answered since {@code mark}. */
  GetLatencies latenciesSince(int mark) {
    return latencies.since(mark);
  }

  /**
   * Heap this counter holds for its log of GET latencies (16 bytes a GET, in arrays that double): the
   * benchmark's own memory, which a workload that measures the heap subtracts.
   */
  long retainedBytes() {
    return latencies.retainedBytes();
  }

  /** First-byte and total nanoseconds of object GETs, one pair per GET. */
  record GetLatencies(long[] firstByteNanos, long[] totalNanos) {
    static final GetLatencies NONE = new GetLatencies(new long[0], new long[0]);
  }

  /** An append-only log of pairs; grows as needed. Thread-safe. */
  private static final class LatencyLog {
    private long[] first = new long[1024];
    private long[] total = new long[1024];
    private int size;

    synchronized void add(long firstByte, long all) {
      if (size == first.length) {
        first = java.util.Arrays.copyOf(first, size * 2);
        total = java.util.Arrays.copyOf(total, size * 2);
      }
      first[size] = firstByte;
      total[size] = all;
      size++;
    }

    synchronized int size() {
      return size;
    }

    synchronized long retainedBytes() {
      return 16L * first.length;
    }

    synchronized GetLatencies since(int mark) {
      int from = Math.min(mark, size);
      return new GetLatencies(java.util.Arrays.copyOfRange(first, from, size),
          java.util.Arrays.copyOfRange(total, from, size));
    }
  }

  void count(RequestInfo r) {
    if (r.isHead()) {
      heads.increment();
    } else if (r.isGet()) {
      String path = r.path();
      if (path.equals(bucketPath) || path.equals(bucketPath + "/")) {
        lists.increment();
      } else {
        gets.increment();
      }
    } else {
      others.increment();
    }
  }

  Counts snapshot() {
    return new Counts(gets.sum(), heads.sum(), lists.sum(), others.sum());
  }
}
