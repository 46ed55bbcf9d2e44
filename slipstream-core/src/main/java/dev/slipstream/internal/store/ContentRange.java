/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.store;

/**
 * A {@code Content-Range} header of a 206, {@code bytes first-last/total}: which bytes a response
 * carries, inclusive, and the object's length. A total of {@code *} (unknown) is kept as -1.
 */
public record ContentRange(long first, long last, long total) {

  /** The range {@code header} states, or null if there is none or it is not of that form. */
  public static ContentRange parse(String header) {
    if (header == null) {
      return null;
    }
    String h = header.strip();
    if (!h.regionMatches(true, 0, "bytes ", 0, 6)) {
      return null;
    }
    h = h.substring(6).strip();
    int dash = h.indexOf('-');
    int slash = h.indexOf('/');
    if (dash <= 0 || slash < dash) {
      return null;
    }
    try {
      long first = Long.parseLong(h.substring(0, dash).strip());
      long last = Long.parseLong(h.substring(dash + 1, slash).strip());
      String t = h.substring(slash + 1).strip();
      long total = t.equals("*") ? -1 : Long.parseLong(t);
      if (first < 0 || last < first || total < -1 || (total >= 0 && last >= total)) {
        return null;
      }
      return new ContentRange(first, last, total);
    } catch (NumberFormatException e) {
      return null;
    }
  }

  /** Bytes in the range. */
  public long length() {
    return last - first + 1;
  }

  @Override
  public String toString() {
    return "bytes " + first + "-" + last + "/" + (total < 0 ? "*" : Long.toString(total));
  }
}
