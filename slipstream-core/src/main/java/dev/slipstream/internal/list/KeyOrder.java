/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.list;

import java.util.Comparator;

/**
 * S3's key order: UTF-8 bytes compared as unsigned, which is Unicode code point order. Java's
 * {@link String#compareTo} compares UTF-16 units and differs from it for characters above U+FFFF
 * against U+E000..U+FFFF, so every comparison of keys here goes through this.
 */
public final class KeyOrder {
  /** Code point order, as S3 lists keys. */
  public static final Comparator<String> S3 = KeyOrder::compare;

  private KeyOrder() {}

  public static int compare(String a, String b) {
    int n = Math.min(a.length(), b.length());
    for (int i = 0; i < n; i++) {
      char x = a.charAt(i);
      char y = b.charAt(i);
      if (x != y) {
        boolean sx = Character.isSurrogate(x);
        boolean sy = Character.isSurrogate(y);
        if (sx != sy) {
          // a surrogate starts a code point above U+FFFF: greater than any BMP character
          return sx ? 1 : -1;
        }
        return Character.compare(x, y);
      }
    }
    return Integer.compare(a.length(), b.length());
  }

  /** The longest common prefix of {@code a} and {@code b}, never ending in half a surrogate pair. */
  public static String commonPrefix(String a, String b) {
    int n = Math.min(a.length(), b.length());
    int i = 0;
    while (i < n && a.charAt(i) == b.charAt(i)) {
      i++;
    }
    if (i > 0 && Character.isHighSurrogate(a.charAt(i - 1))) {
      i--;
    }
    return a.substring(0, i);
  }
}
