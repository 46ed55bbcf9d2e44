/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.util;

/**
 * One ETag, whichever way a server or a caller spelled it. S3 sends ETags quoted ({@code "af31…"});
 * some servers, proxies and listings send the same ETag bare ({@code af31…}), and a weak one carries
 * {@code W/}. Two spellings of one version are one version: this type owns the quoting (what goes into
 * {@code If-Match}, a cache key or a message) and the comparison, so that no other code compares ETag
 * strings.
 *
 * <p>Equality is on the opaque value between the quotes; weakness is kept for {@link #toString()} but
 * does not make two ETags differ (S3 never sends weak ones, and a version check must not fail on
 * spelling alone).
 *
 * <p>It lives at the bottom floor, below the store that reads ETags off responses, because every floor
 * and the public values ({@code OpenOptions}, {@code ObjectRef}) spell ETags through it: in the store, a
 * public value normalising an ETag made the public package and the store depend on each other.
 */
public final class ETag {
  private final String opaque;
  private final boolean weak;

  private ETag(String opaque, boolean weak) {
    this.opaque = opaque;
    this.weak = weak;
  }

  /**
   * The ETag {@code value} spells, quoted or bare, or null for null (a server that sent none).
   *
   * @throws IllegalArgumentException if {@code value} is blank or only quotes
   */
  public static ETag parse(String value) {
    if (value == null) {
      return null;
    }
    String v = value.strip();
    boolean weak = v.startsWith("W/") || v.startsWith("w/");
    if (weak) {
      v = v.substring(2);
    }
    if (v.length() >= 2 && v.startsWith("\"") && v.endsWith("\"")) {
      v = v.substring(1, v.length() - 1);
    }
    if (v.isBlank() || v.indexOf('"') >= 0) {
      throw new IllegalArgumentException("not an ETag: [" + value + "]");
    }
    return new ETag(v, weak);
  }

  /** {@link #parse} of a value a server sent: null, blank or malformed count as no ETag at all. */
  public static ETag fromServer(String value) {
    try {
      return parse(value);
    } catch (IllegalArgumentException e) {
      return null;
    }
  }

  /** The value between the quotes. */
  public String opaque() {
    return opaque;
  }

  /** True if both name one version, however each was spelled. Null-safe: null only equals null. */
  public static boolean same(ETag a, ETag b) {
    return a == null ? b == null : a.equals(b);
  }

  /** True if the two spellings name one version (null only matches null). */
  public static boolean same(String a, String b) {
    return same(fromServer(a), fromServer(b));
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof ETag other && opaque.equals(other.opaque);
  }

  @Override
  public int hashCode() {
    return opaque.hashCode();
  }

  /** The quoted form, as S3 sends it and as {@code If-Match} carries it: {@code "af31…"} or {@code W/"af31…"}. */
  @Override
  public String toString() {
    return (weak ? "W/\"" : "\"") + opaque + '"';
  }
}
