/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.fetch;

import dev.slipstream.S3Location;
import dev.slipstream.internal.util.ETag;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What S3 last answered this client about each object it read, for {@code access.ttl} (rule 8): a 2xx to
 * a GET or HEAD, made with this client's credentials, names a version (ETag, or Last-Modified where the
 * server sends no ETag) and its length. While such an answer is fresh, an open of that version passes
 * the {@link AccessCheck} at once, so cached bytes are served with no request; an open by path with no
 * status may take the version from it instead of a HEAD.
 *
 * <p>One per client, never shared across clients or processes. A LIST is never an answer (listing and
 * reading are separate permissions). Writes through the client forget the answers of their paths.
 * Bounded: past {@link #MAX_ENTRIES} objects the expired answers go, and if that is not enough, all of
 * them (a forgotten answer only costs a request).
 */
public final class RecentAnswers {
  static final int MAX_ENTRIES = 100_000;

  /** One answer: the version and length S3 named, and when (System.nanoTime). */
  public record Answer(ETag etag, Instant lastModified, long length, long atNanos) {
    /** Whether this answer names the version {@code etag} (or, with no ETag on either, {@code lastModified}). */
    boolean names(ETag otherEtag, Instant otherModified) {
      if (etag != null || otherEtag != null) {
        return etag != null && etag.equals(otherEtag);
      }
      return lastModified != null && otherModified != null
          && lastModified.getEpochSecond() == otherModified.getEpochSecond();
    }
  }

  private final long ttlNanos;
  private final ConcurrentHashMap<S3Location, Answer> answers = new ConcurrentHashMap<>();
  /** Writes so far ({@link #forgetUnder}): an answer to a request sent before the last one is not kept. */
  private volatile long writes;

  /** @param ttl how long an answer stands ({@code access.ttl}); zero: never (every open asks) */
  public RecentAnswers(Duration ttl) {
    this.ttlNanos = ttl.toNanos();
  }

  /** To be taken before a request is sent, and handed to {@link #answered} with its answer. */
  public long generation() {
    return writes;
  }

  /**
   * S3 answered a request for this version of {@code location} with success, just now; {@code sentAt}: the
   * {@link #generation} when the request was sent. An answer to a request sent before a write through
   * this client ({@link #forgetUnder}) may name the version the write replaced: it is not kept.
   */
  void answered(S3Location location, ETag etag, Instant lastModified, long length, long sentAt) {
    if (ttlNanos <= 0 || (etag == null && lastModified == null) || sentAt != writes) {
      return;
    }
    if (answers.size() >= MAX_ENTRIES) {
      long now = System.nanoTime();
      answers.values().removeIf(a -> now - a.atNanos() >= ttlNanos);
      if (answers.size() >= MAX_ENTRIES) {
        answers.clear();
      }
    }
    Answer a = new Answer(etag, lastModified, length, System.nanoTime());
    answers.put(location, a);
    if (sentAt != writes) {
      answers.remove(location, a); // a write came between the check above and the put
    }
  }

  /** The answer for {@code location} if one stands now, else null. */
  public Answer fresh(S3Location location) {
    if (ttlNanos <= 0) {
      return null;
    }
    Answer a = answers.get(location);
    if (a == null) {
      return null;
    }
    if (System.nanoTime() - a.atNanos() >= ttlNanos) {
      answers.remove(location, a);
      return null;
    }
    return a;
  }

  /** Whether an answer for this version of {@code location} stands now. */
  public boolean fresh(S3Location location, ETag etag, Instant lastModified) {
    Answer a = fresh(location);
    return a != null && a.names(etag, lastModified);
  }

  /** S3 refused a request for {@code location} (another version, gone, or denied): its answer no longer stands. */
  void forget(S3Location location) {
    answers.remove(location);
  }

  /** A write through this client: forgets the answers for {@code prefix}'s bucket and every key starting with its key. */
  public void forgetUnder(S3Location prefix) {
    forgetUnder(prefix.bucket(), prefix.key());
  }

  /** A write through this client: forgets the answers for every key of {@code bucket} starting with {@code keyPrefix} ("": all). */
  public void forgetUnder(String bucket, String keyPrefix) {
    synchronized (this) {
      writes++; // first: an answer put from now on, or checked against the old count, is dropped
    }
    answers.keySet().removeIf(l -> l.bucket().equals(bucket) && l.key().startsWith(keyPrefix));
  }
}
