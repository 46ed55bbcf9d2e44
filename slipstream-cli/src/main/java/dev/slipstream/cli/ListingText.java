/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.cli;

import dev.slipstream.ListEntry;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Locale;

/**
 * {@code ls}'s lines for a person: date (UTC), size, with {@code -l} the ETag, and the full key. Columns
 * have fixed widths, wide enough for S3's largest object (5 TiB, 13 digits) and a multipart ETag, so
 * they line up without waiting for the rest of the listing. A common prefix shows {@code PRE} in the
 * size column, as {@code aws s3 ls} does.
 *
 * <pre>
 * 2026-11-27 10:04:12          1234  logs/a.csv
 *                                PRE  logs/2026/
 * </pre>
 */
final class ListingText implements ListingFormat {
  private static final DateTimeFormatter DATE = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss", Locale.ROOT)
      .withZone(ZoneOffset.UTC);
  private static final int DATE_WIDTH = 19;
  private static final int SIZE_WIDTH = 13;
  /** 32 hex digits of an MD5, "-", up to 5 digits of a multipart upload's part count. */
  private static final int ETAG_WIDTH = 38;

  private final boolean etags;
  private final boolean human;

  /**
   * @param etags show each object's ETag ({@code -l})
   * @param human sizes as {@code 1.5 MiB} rather than bytes ({@code -h})
   */
  ListingText(boolean etags, boolean human) {
    this.etags = etags;
    this.human = human;
  }

  @Override
  public String object(ListEntry e) {
    Instant modified = e.lastModified();
    String date = modified == null ? "-" : DATE.format(modified);
    String size = human ? Sizes.binary(e.size()) : Long.toString(e.size());
    String etag = e.etagValue();
    return line(date, size, etag == null ? "-" : etag, e.key());
  }

  @Override
  public String prefix(String prefix) {
    return line("", "PRE", "", prefix);
  }

  private String line(String date, String size, String etag, String name) {
    StringBuilder b = new StringBuilder(96);
    pad(b, date, DATE_WIDTH, false).append(' ');
    pad(b, size, SIZE_WIDTH, true).append("  ");
    if (etags) {
      pad(b, etag, ETAG_WIDTH, false).append("  ");
    }
    return b.append(name).toString();
  }

  private static StringBuilder pad(StringBuilder b, String s, int width, boolean right) {
    if (right) {
      b.append(" ".repeat(Math.max(0, width - s.length()))).append(s);
    } else {
      b.append(s).append(" ".repeat(Math.max(0, width - s.length())));
    }
    return b;
  }
}
