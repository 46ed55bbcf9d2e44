/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.fetch;

import dev.slipstream.ObjectChangedException;
import dev.slipstream.ReadStatistics;
import dev.slipstream.S3Location;
import dev.slipstream.internal.util.ETag;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The version of one object a stream reads: location, length, and what every response is checked
 * against. The version is named by its ETag where the server sends one, and by its Last-Modified where
 * it does not; both are known at open (from a HEAD or the caller) or pinned by the first response.
 */
public final class ObjectHandle {
  private final S3Location location;
  private final long length;
  private final boolean lengthGiven;
  private final AtomicReference<ETag> etag;
  private final AtomicReference<Instant> lastModified;
  private final ReadStatistics stats;
  /** This client's standing answers from S3 (access.ttl), or null where none are kept. */
  private final RecentAnswers answers;
  private final AccessCheck access = new AccessCheck(this::answeredRecently);
  /** Which stream (or open-ahead fetch) this is, in the request log. */
  private final long id = IDS.incrementAndGet();
  private static final java.util.concurrent.atomic.AtomicLong IDS = new java.util.concurrent.atomic.AtomicLong();

  /**
   * @param lengthGiven the length came from the caller, not from S3
   * @param etag the ETag, quoted or bare, or null if not known yet
   */
  public ObjectHandle(S3Location location, long length, boolean lengthGiven, String etag, ReadStatistics stats) {
    this(location, length, lengthGiven, ETag.fromServer(etag), null, stats);
  }

  /**
   * @param lengthGiven the length came from the caller, not from S3
   * @param etag the ETag, or null if not known yet
   * @param lastModified the version's Last-Modified, or null if not known yet
   */
  public ObjectHandle(S3Location location, long length, boolean lengthGiven, ETag etag, Instant lastModified,
      ReadStatistics stats) {
    this(location, length, lengthGiven, etag, lastModified, stats, null);
  }

  /**
   * @param lengthGiven the length came from the caller, not from S3
   * @param etag the ETag, or null if not known yet
   * @param lastModified the version's Last-Modified, or null if not known yet
   * @param answers the client's standing answers from S3, which this open's answers join and whose
   *     answer for this version passes its access check; or null
   */
  public ObjectHandle(S3Location location, long length, boolean lengthGiven, ETag etag, Instant lastModified,
      ReadStatistics stats, RecentAnswers answers) {
    this.answers = answers;
    this.location = location;
    this.length = length;
    this.lengthGiven = lengthGiven;
    this.etag = new AtomicReference<>(etag);
    this.lastModified = new AtomicReference<>(lastModified);
    this.stats = stats;
  }

  public S3Location location() {
    return location;
  }

  /** A number for this stream, unique in the JVM: how the request log tells streams apart. */
  public long id() {
    return id;
  }

  public long length() {
    return length;
  }

  /** The pinned ETag, quoted, or null until the first response (or for a server that sends none). */
  public String etag() {
    ETag e = etag.get();
    return e == null ? null : e.toString();
  }

  /** The pinned ETag, or null. */
  public ETag pinnedEtag() {
    return etag.get();
  }

  /**
   * What a GET sends as {@code If-Unmodified-Since}: the pinned Last-Modified where no ETag pins the
   * version (with an ETag, {@code If-Match} guards it and S3 ignores the date), else null.
   */
  Instant unmodifiedSince() {
    return etag.get() == null ? lastModified.get() : null;
  }

  public ReadStatistics stats() {
    return stats;
  }

  /** Whether S3 has answered this open yet: the gate every cached byte passes (see {@link AccessCheck}). */
  AccessCheck access() {
    return access;
  }

  /**
   * S3 answered a request of this open (its HEAD, or a GET whose response passed its checks) with
   * success: cached bytes may be served, and the client remembers the answer for {@code access.ttl},
   * unless it wrote the object since the request was sent ({@code sentAt}: {@link #beforeRequest}).
   */
  public void answered(long sentAt) {
    access.grant();
    if (answers != null) {
      answers.answered(location, etag.get(), lastModified.get(), length, sentAt);
    }
  }

  /** To be taken before a request of this open is sent, and handed to {@link #answered} with its answer. */
  public long beforeRequest() {
    return answers == null ? 0 : answers.generation();
  }

  /**
   * S3 refused a request of this open for good: the object changed, is gone, or access is denied. The
   * client's answer for the object no longer stands: the next open asks again.
   */
  void refused() {
    if (answers != null) {
      answers.forget(location);
    }
  }

  private boolean answeredRecently() {
    return answers != null && answers.fresh(location, etag.get(), lastModified.get());
  }

  /** Fails if the object's length, as a response states it, is not the length this stream reads. */
  void checkLength(long objectLength) throws java.io.IOException {
    if (objectLength < 0 || objectLength == length) {
      return;
    }
    if (lengthGiven && etag.get() == null) {
      throw new java.io.IOException(location + ": length " + length + " was given at open, but the object has "
          + objectLength + " bytes");
    }
    throw new ObjectChangedException(location, "length " + length + " at open, the object now has " + objectLength
        + " bytes");
  }

  /** The error for a 416 on bytes from {@code start}: the object is shorter than this stream's length. */
  java.io.IOException shorterThanLength(long start, java.io.IOException cause) {
    String what = "the object is shorter than the length " + length + (lengthGiven && etag.get() == null
        ? " given at open" : " seen at open") + ": bytes from " + start + " are not there";
    java.io.IOException e = lengthGiven && etag.get() == null
        ? new java.io.IOException(location + ": " + what)
        : new ObjectChangedException(location, what);
    e.initCause(cause);
    return e;
  }

  /**
   * Fails if what a response says of its version differs from what is pinned: the ETag decides where the
   * response has one; where it has none, the Last-Modified does (compared to the second, the precision
   * of HTTP dates). Pins nothing: a response pins the version only once it passed every check ({@link
   * #pinVersion}).
   */
  void checkVersion(ETag seen, Instant seenModified) throws ObjectChangedException {
    ETag pinned = etag.get();
    if (seen != null && pinned != null && !pinned.equals(seen)) {
      throw new ObjectChangedException(location, "ETag " + pinned + " at open, now " + seen);
    }
    Instant pinnedModified = lastModified.get();
    if (seen == null && seenModified != null && pinnedModified != null
        && pinnedModified.getEpochSecond() != seenModified.getEpochSecond()) {
      throw new ObjectChangedException(location, "Last-Modified " + pinnedModified + " at open, now "
          + seenModified + " (the server sends no ETag)");
    }
  }

  /**
   * Pins what a response that passed every check ({@link #checkVersion}, its length and shape) says of its
   * version, if nothing is pinned yet; fails as {@link #checkVersion} does if another response pinned
   * another version in the meantime. Never before the checks: a response refused for its length must not
   * name the version of the stream, or a later read could pass through the tiers as that version.
   */
  void pinVersion(ETag seen, Instant seenModified) throws ObjectChangedException {
    if (seen != null) {
      etag.compareAndSet(null, seen);
    }
    if (seenModified != null) {
      lastModified.compareAndSet(null, seenModified);
    }
    checkVersion(seen, seenModified);
  }
}
