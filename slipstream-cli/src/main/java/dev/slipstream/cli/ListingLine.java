/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.cli;

import java.util.Locale;
import java.util.function.LongSupplier;

/**
 * The progress of a long listing, as {@code du} shows it on a terminal: objects and bytes listed so
 * far, LIST requests sent, seconds. A listing has no known end, so there is no percent and no ETA.
 *
 * <pre>Listing s3://b/logs/: 123,000 objects, 4.2 GiB, 124 LISTs, 0:07</pre>
 */
final class ListingLine implements Progress.Line {
  private final String label;
  private final LongSupplier objects;
  private final LongSupplier bytes;
  private final LongSupplier lists;
  private final long startNanos;

  ListingLine(String label, LongSupplier objects, LongSupplier bytes, LongSupplier lists, long startNanos) {
    this.label = label;
    this.objects = objects;
    this.bytes = bytes;
    this.lists = lists;
    this.startNanos = startNanos;
  }

  @Override
  public String render(long now) {
    long n = objects.getAsLong();
    return String.format(Locale.ROOT, "Listing %s: %,d %s, %s, %s, %s", label, n, n == 1 ? "object" : "objects",
        Sizes.binary(bytes.getAsLong()), Sizes.plural(lists.getAsLong(), "LIST", "LISTs"),
        Sizes.clock((now - startNanos) / 1_000_000_000L));
  }
}
