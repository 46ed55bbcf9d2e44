/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream;

import java.util.Objects;
import java.util.OptionalLong;

/**
 * What the caller knows about the object and how it will read it.
 *
 * <p>With a known length no HEAD request is made, nor with the {@link ReadPolicy#SEQUENTIAL} policy, whose
 * first GET (of the first block) learns the length; the ETag, when known too, pins the version from the
 * first GET on (every GET carries {@code If-Match}); without it, the ETag of the first response is
 * pinned instead. A length that does not match the object fails the first read that sees the
 * difference, with a message saying so.
 *
 * <p>{@code splitEnd}: the end of the part of the object this reader is responsible for (a Hadoop
 * input split). Prefetch never starts a block past the one holding the split's last byte; reads past
 * the split end (to finish a record that straddles it) still work, fetched on demand.
 *
 * @param length the object's length in bytes, or -1 if unknown
 * @param etag the object's ETag as S3 returns it (quotes optional), or null
 * @param policy the expected access pattern
 * @param splitEnd the end (exclusive) of the caller's split, or -1 for none
 * @param fromStore the length and ETag come from the store's answer to a request this caller made for
 *     this open, with this client's credentials (a HEAD of its own, as Hadoop's S3A makes): that answer
 *     then stands for the permission check that cached bytes otherwise wait for (see the README's
 *     Security section). False for a listing's or a caller's knowledge, and for a HEAD that
 *     proves no GET ({@link S3Clients#headProvesRead}: an object under a KMS key).
 * @param versionId the version id of the version to read, or null (see {@link #withVersionId})
 */
public record OpenOptions(long length, String etag, ReadPolicy policy, long splitEnd, boolean fromStore,
    String versionId) {
  public static final OpenOptions NONE = new OpenOptions(-1, null, ReadPolicy.ADAPTIVE, -1, false, null);

  public OpenOptions {
    if (length < -1) {
      throw new IllegalArgumentException("length must be >= 0 (or -1 for unknown): " + length);
    }
    if (etag != null && etag.isBlank()) {
      throw new IllegalArgumentException("etag must not be blank");
    }
    if (etag != null) {
      etag = dev.slipstream.internal.util.ETag.parse(etag).toString(); // one spelling: quoted
    }
    Objects.requireNonNull(policy, "policy");
    if (versionId != null && versionId.isBlank()) {
      throw new IllegalArgumentException("versionId must not be blank");
    }
    if (splitEnd < -1) {
      throw new IllegalArgumentException("splitEnd must be >= 0 (or -1 for none): " + splitEnd);
    }
  }

  /** Length and ETag, e.g. from a listing: no HEAD request. */
  public static OpenOptions known(long length, String etag) {
    return NONE.withLength(length).withEtag(etag);
  }

  public static OpenOptions length(long length) {
    return NONE.withLength(length);
  }

  public OpenOptions withLength(long newLength) {
    return new OpenOptions(newLength, etag, policy, splitEnd, fromStore, versionId);
  }

  public OpenOptions withEtag(String newEtag) {
    return new OpenOptions(length, newEtag, policy, splitEnd, fromStore, versionId);
  }

  public OpenOptions withPolicy(ReadPolicy newPolicy) {
    return new OpenOptions(length, etag, newPolicy, splitEnd, fromStore, versionId);
  }

  public OpenOptions withSplitEnd(long newSplitEnd) {
    return new OpenOptions(length, etag, policy, newSplitEnd, fromStore, versionId);
  }

  /**
   * The length and ETag were just learnt from the store with this client's credentials, in this open
   * (see {@code fromStore}); only for a caller that made that request itself.
   */
  public OpenOptions withFromStore(boolean newFromStore) {
    return new OpenOptions(length, etag, policy, splitEnd, newFromStore, versionId);
  }

  /**
   * The version id of the version to read (a versioned bucket's, as a HEAD or a listing of versions gives
   * it): with {@code change.detection.source=versionid} every GET asks for it.
   */
  public OpenOptions withVersionId(String newVersionId) {
    return new OpenOptions(length, etag, policy, splitEnd, fromStore, newVersionId);
  }

  public OptionalLong knownLength() {
    return length >= 0 ? OptionalLong.of(length) : OptionalLong.empty();
  }
}
