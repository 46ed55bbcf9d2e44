/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.cli;

import dev.slipstream.SlipstreamConfig;
import java.time.Duration;
import java.util.Locale;

/** Parsing and printing of sizes, rates and durations, the same way in every command. */
final class Sizes {
  private static final String[] UNITS = {"bytes", "KiB", "MiB", "GiB", "TiB"};

  private Sizes() {}

  /**
   * Parses a size such as {@code 512M}, {@code 64K}, {@code 2G} or {@code 1048576}: suffixes K, M, G, T
   * are powers of 1024, optionally followed by B or iB, case ignored.
   *
   * @throws IllegalArgumentException if {@code text} is not such a size
   */
  static long parse(String text) {
    return SlipstreamConfig.parseSize(text);
  }

  /**
   * Parses a duration above zero as configuration keys take them ({@link SlipstreamConfig#parseDuration}):
   * {@code 500ms}, {@code 30s}, {@code 10m}, {@code 2h}, case ignored; a plain number is milliseconds; at
   * most a year.
   *
   * @throws IllegalArgumentException saying what was expected
   */
  static Duration parseDuration(String text) {
    return SlipstreamConfig.parseDuration(text);
  }

  /** {@code 512 MiB}, {@code 1.5 GiB}, {@code 300 bytes}: exact multiples without decimals. */
  static String binary(long bytes) {
    if (bytes < 1024) {
      return bytes + (bytes == 1 ? " byte" : " bytes");
    }
    int u = 0;
    while (u < UNITS.length - 1 && bytes >= (1024L << (10 * u))) {
      u++;
    }
    long unit = 1L << (10 * u);
    if (bytes % unit == 0) {
      return (bytes / unit) + " " + UNITS[u];
    }
    return String.format(Locale.ROOT, "%.1f %s", (double) bytes / unit, UNITS[u]);
  }

  /** The binary unit {@link #binary} would pick for {@code bytes}, as an index and a divisor. */
  static int unitIndex(long bytes) {
    int u = 0;
    while (u < UNITS.length - 1 && bytes >= (1024L << (10 * u))) {
      u++;
    }
    return u;
  }

  static String unitName(int index) {
    return UNITS[index];
  }

  /** {@code bytes} in the unit {@code index} with one decimal, without the unit name. */
  static String inUnit(long bytes, int index) {
    if (index == 0) {
      return Long.toString(bytes);
    }
    return String.format(Locale.ROOT, "%.1f", (double) bytes / (1L << (10 * index)));
  }

  /** Throughput in MB/s, 1 MB = 10^6 bytes. */
  static double megabytesPerSecond(long bytes, long nanos) {
    if (nanos <= 0) {
      return 0;
    }
    return bytes / 1e6 / (nanos / 1e9);
  }

  static String rate(long bytes, long nanos) {
    return String.format(Locale.ROOT, "%.1f MB/s", megabytesPerSecond(bytes, nanos));
  }

  static String seconds(long nanos) {
    double s = nanos / 1e9;
    return String.format(Locale.ROOT, s < 10 ? "%.2f s" : "%.1f s", s);
  }

  /** {@code m:ss} or {@code h:mm:ss}. */
  static String clock(long seconds) {
    if (seconds < 0) {
      return "--:--";
    }
    long h = seconds / 3600;
    long m = (seconds / 60) % 60;
    long s = seconds % 60;
    return h > 0 ? String.format(Locale.ROOT, "%d:%02d:%02d", h, m, s) : String.format(Locale.ROOT, "%d:%02d", m, s);
  }

  static String plural(long n, String one, String many) {
    return n + " " + (n == 1 ? one : many);
  }
}
