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

  static RequestCounter attach(LinkShaper shaper, String bucket) {
    RequestCounter counter = new RequestCounter(bucket);
    shaper.onRequest(info -> {
      counter.count(info);
      return false;
    }, () -> { });
    return counter;
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
