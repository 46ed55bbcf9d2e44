/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.learn;

import dev.slipstream.Counter;
import dev.slipstream.ReadStatistics;
import dev.slipstream.S3Location;
import java.util.function.Supplier;

/**
 * The layout one stream reads a file by (a Parquet footer, an ORC layout): the client's for the version the
 * stream reads, asked once, as soon as a response has pinned the version (its ETag); else the one the stream
 * parsed itself ({@link #set}). Null while none is known. Thread-safe.
 */
public final class ClientLayout<T> {
  /** Where the client keeps what it learnt, by object version. */
  @FunctionalInterface
  public interface Kept<T> {
    T get(S3Location location, long length, String etag);
  }

  private final S3Location location;
  private final long length;
  private final Supplier<String> etag;
  private final ReadStatistics stats;
  private final Kept<T> client;
  private final Counter reused;
  private volatile T layout;
  /** The client's were asked for this stream's version (once its ETag is known). */
  private volatile boolean asked;

  /**
   * @param etag the version's ETag, null until a response pins it
   * @param reused counted in {@code stats} when the client's layout is the stream's
   */
  public ClientLayout(S3Location location, long length, Supplier<String> etag, ReadStatistics stats,
      Kept<T> client, Counter reused) {
    this.location = location;
    this.length = length;
    this.etag = etag;
    this.stats = stats;
    this.client = client;
    this.reused = reused;
  }

  /** The layout, the client's asked for once the version is known; or null. */
  public T get() {
    T t = layout;
    if (t != null || asked) {
      return t;
    }
    String version = etag.get();
    if (version == null) {
      return null; // no version to name yet: asked again once a response pins it
    }
    asked = true;
    t = client.get(location, length, version);
    if (t != null) {
      layout = t;
      stats.increment(reused);
    }
    return t;
  }

  /** The layout known so far, the client's not asked; or null. */
  public T known() {
    return layout;
  }

  /** The stream parsed {@code t} itself: the stream's from now on. */
  public void set(T t) {
    layout = t;
  }
}
