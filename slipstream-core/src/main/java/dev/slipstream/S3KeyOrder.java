/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream;

import dev.slipstream.internal.list.KeyOrder;
import java.util.Comparator;

/**
 * The order in which S3 lists keys, and in which a {@link Listing} hands them out: UTF-8 bytes
 * compared as unsigned, which is Unicode code point order. Java's {@link String#compareTo} compares
 * UTF-16 units instead and disagrees with S3 for characters above U+FFFF against U+E000..U+FFFF; a
 * caller that sorts keys, or searches sorted keys, to line them up with a listing compares them here.
 * This class owns only the public way in; the comparison itself is the one Slipstream's lister uses.
 */
public final class S3KeyOrder {
  /** Keys in S3's listing order. */
  public static final Comparator<String> COMPARATOR = S3KeyOrder::compare;

  private S3KeyOrder() {}

  /** Negative, zero or positive as key {@code a} is listed before, as, or after key {@code b}. */
  public static int compare(String a, String b) {
    return KeyOrder.compare(a, b);
  }
}
