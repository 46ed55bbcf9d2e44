/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream;

/**
 * What names the version a stream reads ({@code change.detection.source};
 * {@link SlipstreamConfig#changeSource()}); the names are S3A's ({@code fs.s3a.change.detection.source}).
 */
public enum ChangeSource {
  /** The ETag (or the Last-Modified, where a store sends no ETag). */
  ETAG,
  /**
   * The version id of a versioned bucket, where the store gives one (the open's HEAD, or the first GET):
   * every later GET asks for that version id, so a stream reads one version even where two versions of
   * an object share an ETag. Where the store gives none, the ETag names it, as with {@link #ETAG}.
   */
  VERSIONID
}
