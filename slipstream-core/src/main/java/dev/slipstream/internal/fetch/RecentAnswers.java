/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.fetch;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.Scheduler;
import com.github.benmanes.caffeine.cache.Ticker;
import dev.slipstream.S3Location;
import dev.slipstream.internal.util.ETag;
import java.time.Duration;
import java.time.Instant;

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
 * answer may name the version the write replaced. That is judged per key, against the last
 * {@value #WRITES_KEPT} writes ({@link #writtenSince}), so that steady writes elsewhere (Spark tasks closing
 * their outputs) do not drop the answers to reads in flight.
 *
 * <p>Bounded in time and bytes, so that a client that reads a million distinct objects keeps a flat heap:
 * an answer goes {@code access.ttl} after it was received (it no longer stands then anyway), and the
 * answers together weigh at most {@link #MAX_BYTES} ({@link #weight}), the least useful dropped first
 * (a dropped answer only costs a request). Expired answers are dropped by the JVM-wide scheduler thread
 * even when the client is idle; the cache's upkeep runs on the threads that use it, never on a pool.
 */
public final class RecentAnswers {
  /**
   * The most heap the answers of one client take: about 24,000 answers of 350 bytes, the objects a
   * busy executor opens within the default {@code access.ttl} of 30 s (800 a second), while 100,000
   * objects never hold more than a few percent of a 1 GiB heap.
   */
  static final long MAX_BYTES = 8L << 20;
  /** Writes remembered to judge answers to requests in flight; an answer to a request older than them is not kept. */
  static final int WRITES_KEPT = 256;
  /**
   * Heap an answer takes besides its key's characters, by counting fields (compressed references): the
   * cache's node (64) and hash-table entry (40), the location (24) and its key's String (40; the bucket's
   * String is the client's, shared), the answer (40), its ETag (24) with its String (40 + a 32-digit
   * MD5 and quotes), and a Last-Modified instant (24).
   */
  static final int FIXED_BYTES = 64 + 40 + 24 + 40 + 40 + 24 + 40 + 40 + 24;

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

  /** A write through the client: every key of {@code bucket} starting with {@code keyPrefix}. */
  private record Write(String bucket, String keyPrefix) {
    boolean covers(S3Location l) {
      return l.bucket().equals(bucket) && l.key().startsWith(keyPrefix);
    }
  }

  /** Null when answers never stand ({@code access.ttl} 0). */
  private final Cache<S3Location, Answer> answers;
  /** The last {@value #WRITES_KEPT} writes, write {@code n} at {@code n % WRITES_KEPT}. Guarded by itself. */
  private final Write[] recentWrites = new Write[WRITES_KEPT];
  /** Writes so far; the last one is at {@code recentWrites[writes % WRITES_KEPT]}. Written under {@code recentWrites}. */
  private volatile long writes;

  /** @param ttl how long an answer stands ({@code access.ttl}); zero: never (every open asks) */
  public RecentAnswers(Duration ttl) {
    this(ttl, MAX_BYTES, Ticker.systemTicker());
  }

  RecentAnswers(Duration ttl, long maxBytes, Ticker ticker) {
    this.answers = ttl.isZero() || ttl.isNegative() ? null : Caffeine.newBuilder()
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

  /** To be taken before a request is sent, and handed to {@link #answered} (or {@link #writtenSince}) with its answer. */
  public long generation() {
    return writes;
  }

  /**
   * Whether a write through this client since {@code sentAt} (a {@link #generation}; negative: unknown)
   * may have changed {@code location}: one under a prefix of its key, or one no longer remembered.
   */
  public boolean writtenSince(S3Location location, long sentAt) {
    if (sentAt >= 0 && sentAt == writes) {
      return false; // no write at all since: the common case, with no lock
    }
    synchronized (recentWrites) {
      long last = writes;
      if (sentAt < 0 || last - sentAt > WRITES_KEPT) {
        return true; // the writes since are not all remembered: any of them may have been to this key
      }
      for (long w = sentAt + 1; w <= last; w++) {
        if (recentWrites[(int) (w % WRITES_KEPT)].covers(location)) {
          return true;
        }
      }
      return false;
    }
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
    Answer a = new Answer(etag, lastModified, length);
    answers.put(location, a);
    // A write that came between the check above and the put: either it is seen here, or it was counted
    // after the put and its own removal (in forgetUnder) finds the answer.
    if (writtenSince(location, sentAt)) {
      answers.asMap().remove(location, a);
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
      answers.invalidate(location);
    }
  }

  /** A write through this client: forgets the answers for {@code prefix}'s bucket and every key starting with its key. */
  public void forgetUnder(S3Location prefix) {
    forgetUnder(prefix.bucket(), prefix.key());
  }

  /** A write through this client: forgets the answers for every key of {@code bucket} starting with {@code keyPrefix} ("": all). */
  public void forgetUnder(String bucket, String keyPrefix) {
    Write write = new Write(bucket, keyPrefix);
    synchronized (recentWrites) {
      // first: an answer put from now on, or checked after its put, sees this write
      recentWrites[(int) ((writes + 1) % WRITES_KEPT)] = write;
      writes++;
    }
    if (answers != null) {
      answers.asMap().keySet().removeIf(write::covers);
    }
  }

  /** Drops every answer: the client closes. */
  public void clear() {
    if (answers != null) {
      answers.invalidateAll();
    }
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
