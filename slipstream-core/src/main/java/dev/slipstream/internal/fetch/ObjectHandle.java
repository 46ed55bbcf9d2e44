/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.fetch;

import dev.slipstream.ChangeDetection;
import dev.slipstream.ChangeSource;
import dev.slipstream.ObjectChangedException;
import dev.slipstream.ReadStatistics;
import dev.slipstream.S3Location;
import dev.slipstream.internal.store.ObjectStore;
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
  /** The version id, where the store gave one (a versioned bucket): known at open or pinned by a response. */
  private final AtomicReference<String> versionId = new AtomicReference<>();
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

  /** The version id the open or a response gave, or null (a bucket without versions, or not known yet). */
  public String versionId() {
    return versionId.get();
  }

  /** The version id S3 gave for the version this stream reads (its HEAD), if any. */
  public void pinVersionId(String id) {
    if (id != null) {
      versionId.compareAndSet(null, id);
    }
  }

  /**
   * What a GET of this stream asks of the store ({@code change.detection}): with {@link
   * ChangeDetection#CLIENT} nothing, the responses alone are compared; else the version id where {@code
   * source} is {@link ChangeSource#VERSIONID} and one is known, else {@code If-Match} the ETag, else
   * {@code If-Unmodified-Since} the Last-Modified.
   */
  ObjectStore.Version asked(ChangeDetection detection, ChangeSource source) {
    if (detection == ChangeDetection.CLIENT) {
      return ObjectStore.Version.ANY;
    }
    String id = source == ChangeSource.VERSIONID ? versionId.get() : null;
    if (id != null) {
      return new ObjectStore.Version(null, null, id);
    }
    return new ObjectStore.Version(etag.get(), unmodifiedSince(), null);
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
   * Fails if what a response says of its version differs from what is pinned: the version id where both
   * have one, the ETag where the response has one; where it has none, the Last-Modified (compared to the
   * second, the precision of HTTP dates). A response that names no version at all while the stream reads
   * one named by its ETag is refused: a store that ignores {@code If-Match} (or is not asked,
   * {@code change.detection=client}) could be serving another version. Pins nothing: a response pins the
   * version only once it passed every check ({@link #pinVersion}).
   */
  void checkVersion(ETag seen, Instant seenModified, String seenVersionId) throws java.io.IOException {
    String pinnedId = versionId.get();
    if (seenVersionId != null && pinnedId != null && !pinnedId.equals(seenVersionId)) {
      throw new ObjectChangedException(location, "version id " + pinnedId + " at open, now " + seenVersionId);
    }
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
    boolean sameId = seenVersionId != null && seenVersionId.equals(pinnedId);
    if (seen == null && pinned != null && (seenModified == null || pinnedModified == null) && !sameId) {
      throw new java.io.IOException(location + ": a response with no ETag, while this stream reads the version"
          + " with ETag " + pinned + ", and no Last-Modified or version id to compare: the server may be"
          + " serving another version (does it ignore If-Match?); its bytes are not used");
    }
  }

  /**
   * Pins what a response that passed every check ({@link #checkVersion}, its length and shape) says of its
   * version, if nothing is pinned yet; fails as {@link #checkVersion} does if another response pinned
   * another version in the meantime. Never before the checks: a response refused for its length must not
   * name the version of the stream, or a later read could pass through the tiers as that version.
   */
  void pinVersion(ETag seen, Instant seenModified, String seenVersionId) throws java.io.IOException {
    if (seen != null) {
      etag.compareAndSet(null, seen);
    }
    if (seenModified != null) {
      lastModified.compareAndSet(null, seenModified);
    }
    pinVersionId(seenVersionId);
    checkVersion(seen, seenModified, seenVersionId);
  }
}
