/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream;

import java.util.Objects;

/**
 * The writes a client was told of ({@link Slipstream#changed}), to judge what a request sent before one of
 * them says: S3's answer to a GET or HEAD, or a listing, may name the version a write replaced, so whoever
 * keeps such an answer takes a {@link #generation} before the request goes out and keeps the answer only if
 * {@link #writtenSince} says no write since touched its key (docs/architecture.md, rule 8).
 *
 * <p>That is judged per key, against the last {@value #WRITES_KEPT} writes, so that steady writes elsewhere
 * (Spark tasks closing their outputs) do not drop the answers to reads in flight; a request older than the
 * writes remembered is judged written. A write is a key prefix: every key of its bucket that starts with it
 * (a file, or a directory and everything under it). One per client, a few KiB. Thread-safe.
 */
public final class WriteLog {
  /** Writes remembered to judge answers to requests in flight; an answer to a request older than them is not kept. */
  public static final int WRITES_KEPT = 256;

  /** A write through the client: every key of {@code bucket} starting with {@code keyPrefix}. */
  private record Write(String bucket, String keyPrefix) {
    boolean covers(S3Location l) {
      return l.bucket().equals(bucket) && l.key().startsWith(keyPrefix);
    }
  }

  /** The last {@value #WRITES_KEPT} writes, write {@code n} at {@code n % WRITES_KEPT}. Guarded by itself. */
  private final Write[] recentWrites = new Write[WRITES_KEPT];
  /** Writes so far; the last one is at {@code recentWrites[writes % WRITES_KEPT]}. Written under {@code recentWrites}. */
  private volatile long writes;

  /** To be taken before a request is sent, and handed to {@link #writtenSince} with its answer. */
  public long generation() {
    return writes;
  }

  /**
   * Whether a write since {@code sentAt} (a {@link #generation}; negative: unknown) may have changed
   * {@code location}: one under a prefix of its key, or one no longer remembered.
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
   * A write to every key of {@code bucket} starting with {@code keyPrefix} ("": all): counted before
   * whoever keeps answers forgets theirs, so that an answer put from then on, or checked after its put,
   * sees it.
   */
  public void wrote(String bucket, String keyPrefix) {
    Write write = new Write(Objects.requireNonNull(bucket, "bucket"), Objects.requireNonNull(keyPrefix, "keyPrefix"));
    synchronized (recentWrites) {
      recentWrites[(int) ((writes + 1) % WRITES_KEPT)] = write;
      writes++;
    }
  }
}
