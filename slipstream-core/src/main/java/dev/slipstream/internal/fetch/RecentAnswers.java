/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.fetch;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.RemovalCause;
import com.github.benmanes.caffeine.cache.Scheduler;
import com.github.benmanes.caffeine.cache.Ticker;
import dev.slipstream.S3Location;
import dev.slipstream.WriteLog;
import dev.slipstream.internal.util.ETag;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * What S3 last answered this client about each object it read, for {@code access.ttl}
 * (docs/architecture.md, rule 8): a 2xx to a GET or HEAD, made with this client's credentials, names a version (ETag, or Last-Modified where the
 * server sends no ETag) and its length. While such an answer is fresh, an open of that version passes
 * the {@link AccessCheck} at once, so cached bytes are served with no request; an open by path with no
 * status may take the version from it instead of a HEAD.
 *
 * <p>One per client, never shared across clients or processes. A LIST is never an answer (listing and
 * reading are separate permissions). Writes through the client forget the answers under their prefix
 * ({@link #forgetUnder}), and an answer to a request sent before a write to its key is never kept: the
 * answer may name the version the write replaced. That is judged per key by the client's {@link WriteLog},
 * which the Hadoop FileSystem's remembered listings ask too.
 *
 * <p>A write forgets what it touches only: the keys of the answers kept are indexed, sorted, per bucket,
 * so that forgetting a prefix looks at the answers under it and at most one more, not at every answer
 * kept (Iceberg's expiry deletes a million paths one by one while 20,000 answers stand). The index
 * changes only inside the cache's own atomic operation on the key (a put, a removal here, an eviction),
 * so a key is indexed exactly while the cache holds its answer.
 *
 * <p>Bounded in time and bytes, so that a client that reads a million distinct objects keeps a flat heap:
 * an answer goes {@code access.ttl} after it was received (it no longer stands then anyway), and the
 * answers together weigh at most {@link #MAX_BYTES} ({@link #weight}, its index entry included), the least
 * useful dropped first (a dropped answer only costs a request). Expired answers are dropped by the JVM-wide
 * scheduler thread even when the client is idle; the cache's upkeep runs on the threads that use it, never
 * on a pool.
 */
public final class RecentAnswers {
  /**
   * The most heap the answers of one client take: about 21,000 answers of 390 bytes, the objects a
   * busy executor opens within the default {@code access.ttl} of 30 s (700 a second), while 100,000
   * objects never hold more than a few percent of a 1 GiB heap.
   */
  static final long MAX_BYTES = 8L << 20;
  /**
   * Heap an answer takes besides its key's characters, by counting fields (compressed references): the
   * cache's node (64) and hash-table entry (40), the location (24) and its key's String (40; the bucket's
   * String is the client's, shared), the answer (40), its ETag (24) with its String (40 + a 32-digit
   * MD5 and quotes), a Last-Modified instant (24), and its place in the sorted index (a skip-list node,
   * 24, and a share of its index nodes, 8).
   */
  static final int FIXED_BYTES = 64 + 40 + 24 + 40 + 40 + 24 + 40 + 40 + 24 + 32;

  /** One answer: the version and length S3 named. */
  public record Answer(ETag etag, Instant lastModified, long length) {
    /** Whether this answer names the version {@code etag} (or, with no ETag on either, {@code lastModified}). */
    boolean names(ETag otherEtag, Instant otherModified) {
      if (etag != null || otherEtag != null) {
        return etag != null && etag.equals(otherEtag);
      }
      return lastModified != null && otherModified != null
          && lastModified.getEpochSecond() == otherModified.getEpochSecond();
    }
  }

  /** Null when answers never stand ({@code access.ttl} 0). */
  private final Cache<S3Location, Answer> answers;
  /**
   * Per bucket, the keys the cache holds an answer for, sorted, each with that answer. Changed only within
   * the cache's atomic operation on the key ({@link #keep}, {@link #drop}, {@link #evicted}). A bucket's
   * map stays once its answers are gone: one per bucket this client read.
   */
  private final ConcurrentHashMap<String, ConcurrentSkipListMap<String, Answer>> keys = new ConcurrentHashMap<>();
  /** Answers looked at by forgets (for tests: a forget's cost is what it touches). */
  private final LongAdder examined = new LongAdder();
  /** The writes this client was told of, which judge the answers to requests sent before them. */
  private final WriteLog writes = new WriteLog();

  /** @param ttl how long an answer stands ({@code access.ttl}); zero: never (every open asks) */
  public RecentAnswers(Duration ttl) {
    this(ttl, MAX_BYTES, Ticker.systemTicker());
  }

  RecentAnswers(Duration ttl, long maxBytes, Ticker ticker) {
    this.answers = ttl.isZero() || ttl.isNegative() ? null : Caffeine.newBuilder()
        .evictionListener(this::evicted) // within the eviction's atomic operation on the key
        .maximumWeight(maxBytes)
        .weigher(RecentAnswers::weight)
        .expireAfterWrite(ttl)
        .executor(Runnable::run)
        .scheduler(Scheduler.systemScheduler())
        .ticker(ticker)
        .build();
  }

  /** The heap an answer takes, estimated ({@link #FIXED_BYTES} and the key's characters). */
  static int weight(S3Location location, Answer answer) {
    return FIXED_BYTES + location.key().length();
  }

  /** The writes this client was told of ({@link #forgetUnder}). */
  public WriteLog writes() {
    return writes;
  }

  /** To be taken before a request is sent, and handed to {@link #answered} (or {@link #writtenSince}) with its answer. */
  public long generation() {
    return writes.generation();
  }

  /** As {@link WriteLog#writtenSince}: whether a write since {@code sentAt} may have changed {@code location}. */
  public boolean writtenSince(S3Location location, long sentAt) {
    return writes.writtenSince(location, sentAt);
  }

  /**
   * S3 answered a request for this version of {@code location} with success, just now; {@code sentAt}: the
   * {@link #generation} when the request was sent. An answer to a request sent before a write to this key
   * through this client ({@link #forgetUnder}) may name the version the write replaced: it is not kept.
   */
  void answered(S3Location location, ETag etag, Instant lastModified, long length, long sentAt) {
    if (answers == null || (etag == null && lastModified == null) || writtenSince(location, sentAt)) {
      return;
    }
    keep(location, new Answer(etag, lastModified, length));
    // A write that came between the check above and the put: either it is seen here, or it was counted
    // after the put and its own removal (in forgetUnder) finds the answer.
    if (writtenSince(location, sentAt)) {
      drop(location);
    }
  }

  /** The answer for {@code location} if one stands now, else null. */
  public Answer fresh(S3Location location) {
    return answers == null ? null : answers.getIfPresent(location);
  }

  /** Whether an answer for this version of {@code location} stands now. */
  public boolean fresh(S3Location location, ETag etag, Instant lastModified) {
    Answer a = fresh(location);
    return a != null && a.names(etag, lastModified);
  }

  /** S3 refused a request for {@code location} (another version, gone, or denied): its answer no longer stands. */
  void forget(S3Location location) {
    if (answers != null) {
      drop(location);
    }
  }

  /** A write through this client: forgets the answers for {@code prefix}'s bucket and every key starting with its key. */
  public void forgetUnder(S3Location prefix) {
    forgetUnder(prefix.bucket(), prefix.key());
  }

  /** A write through this client: forgets the answers for every key of {@code bucket} starting with {@code keyPrefix} ("": all). */
  public void forgetUnder(String bucket, String keyPrefix) {
    writes.wrote(bucket, keyPrefix); // first: an answer put from now on, or checked after its put, sees it
    ConcurrentSkipListMap<String, Answer> inBucket = answers == null ? null : keys.get(bucket);
    if (inBucket == null) {
      return;
    }
    // The keys starting with keyPrefix are the ones from it on, up to the first that does not.
    for (String key : inBucket.tailMap(keyPrefix).keySet()) {
      examined.increment();
      if (!key.startsWith(keyPrefix)) {
        break;
      }
      drop(new S3Location(bucket, key));
    }
  }

  /** Drops every answer: the client closes. */
  public void clear() {
    if (answers != null) {
      keys.forEach((bucket, inBucket) -> inBucket.keySet().forEach(key -> drop(new S3Location(bucket, key))));
    }
  }

  /** Holds {@code answer} for {@code location}, in the cache and the index at once. */
  private void keep(S3Location location, Answer answer) {
    answers.asMap().compute(location, (l, replaced) -> {
      keys.computeIfAbsent(l.bucket(), b -> new ConcurrentSkipListMap<>()).put(l.key(), answer);
      return answer;
    });
  }

  /** Drops the answer for {@code location}, from the cache and the index at once. */
  private void drop(S3Location location) {
    answers.asMap().compute(location, (l, dropped) -> {
      ConcurrentSkipListMap<String, Answer> inBucket = keys.get(l.bucket());
      if (inBucket != null) {
        inBucket.remove(l.key());
      }
      return null;
    });
  }

  /**
   * The cache evicted {@code answer} (expired, or the least useful beyond {@link #MAX_BYTES}): it leaves
   * the index, unless another answer already took its key's place there (a put over an expired entry may
   * tell of the old one after it indexed the new).
   */
  private void evicted(S3Location location, Answer answer, RemovalCause cause) {
    ConcurrentSkipListMap<String, Answer> inBucket = keys.get(location.bucket());
    if (inBucket != null) {
      inBucket.computeIfPresent(location.key(), (k, indexed) -> indexed == answer ? null : indexed);
    }
  }

  /** Answers looked at by forgets so far: each forget looks at what it forgets and at most one more. */
  long examined() {
    return examined.sum();
  }

  /** Keys indexed now, expired answers dropped first: always the answers kept (for tests). */
  long indexed() {
    if (answers != null) {
      answers.cleanUp();
    }
    return keys.values().stream().mapToLong(Map::size).sum();
  }

  /** Answers kept now, expired ones dropped first (for tests and diagnostics). */
  long size() {
    if (answers == null) {
      return 0;
    }
    answers.cleanUp();
    return answers.estimatedSize();
  }

  /** The estimated heap the answers take now, expired ones dropped first (for tests and diagnostics). */
  long weightedBytes() {
    if (answers == null) {
      return 0;
    }
    answers.cleanUp();
    return answers.policy().eviction().orElseThrow().weightedSize().orElseThrow();
  }
}
