/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream;

import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What the values of one configuration key look like: the text it accepts (a size, a duration, an integer,
 * one of some names, ...), the range it allows, the Java value it gives, and the words that say why a text
 * is refused. Each {@link ConfigKey} names its type; {@link SlipstreamConfig} parses every key through it
 * and puts the key, as it was given, and the value in front of the reason.
 *
 * @param <T> the parsed value
 */
final class ValueType<T> {
  /** Why a text is not a value of the type; the caller names the key and the value. */
  static final class Refused extends RuntimeException {
    private static final long serialVersionUID = 1L;

    Refused(String why) {
      super(why, null, false, false);
    }
  }

  private static final Pattern SIZE = Pattern.compile("(\\d+)\\s*([kmgt]?)(i?b)?");
  private static final Pattern TIME = Pattern.compile("(\\d+)\\s*(ms|s|m|h)?");
  /** The longest duration any key takes: long enough to mean "for ever", short enough to add to a clock. */
  static final Duration MAX_DURATION = Duration.ofDays(365);

  private final ValueKind kind;
  private final Function<String, T> parser;

  private ValueType(ValueKind kind, Function<String, T> parser) {
    this.kind = kind;
    this.parser = parser;
  }

  /** The kind of value, as {@link ConfigKey#type()} shows it. */
  ValueKind kind() {
    return kind;
  }

  /**
   * The value {@code text} stands for, or null where a text means "as if unset" (a blank directory).
   *
   * @throws Refused saying why {@code text} is not a value of this type
   */
  T parse(String text) {
    return parser.apply(text);
  }

  /** A size in bytes, any. */
  static ValueType<Long> size() {
    return new ValueType<>(ValueKind.SIZE, ValueType::sizeValue);
  }

  /** A size in bytes in [min, max]. */
  static ValueType<Long> size(long min, long max) {
    return new ValueType<>(ValueKind.SIZE, text -> {
      long n = sizeValue(text);
      if (n < min || n > max) {
        throw new Refused("must be between " + sizeText(min) + " and " + sizeText(max));
      }
      return n;
    });
  }

  /** Sizes in bytes, comma-separated ({@code 1G,4G,16G}), each above zero, at most 8. */
  static ValueType<java.util.List<Long>> sizes() {
    return new ValueType<>(ValueKind.STRING, text -> {
      java.util.List<Long> out = new java.util.ArrayList<>();
      for (String part : text.split(",")) {
        if (part.isBlank()) {
          continue;
        }
        long n = sizeValue(part.trim());
        if (n <= 0) {
          throw new Refused("each size must be above zero");
        }
        out.add(n);
      }
      if (out.size() > 8) {
        throw new Refused("at most 8 sizes");
      }
      return java.util.List.copyOf(out);
    });
  }

  /** An integer in [min, max]. */
  static ValueType<Integer> integer(int min, int max) {
    return new ValueType<>(ValueKind.INT, text -> {
      int n;
      try {
        n = Integer.parseInt(text.trim());
      } catch (NumberFormatException e) {
        throw new Refused("expected an integer");
      }
      if (n < min || n > max) {
        throw new Refused("must be between " + min + " and " + max);
      }
      return n;
    });
  }

  /** A duration from zero to {@link #MAX_DURATION}. */
  static ValueType<Duration> duration() {
    return new ValueType<>(ValueKind.DURATION, ValueType::durationValue);
  }

  /** A duration above zero, at most {@link #MAX_DURATION}. */
  static ValueType<Duration> positiveDuration() {
    return new ValueType<>(ValueKind.DURATION, text -> {
      Duration d = durationValue(text);
      if (d.isZero()) {
        throw new Refused("must be greater than zero");
      }
      return d;
    });
  }

  /** {@code true} or {@code false}, case and surrounding blanks ignored. */
  static ValueType<Boolean> bool() {
    return new ValueType<>(ValueKind.BOOLEAN, text -> {
      String v = text.trim().toLowerCase(Locale.ROOT);
      if (v.equals("true")) {
        return true;
      }
      if (v.equals("false")) {
        return false;
      }
      throw new Refused("expected true or false");
    });
  }

  /** The name of one of {@code choices}' constants, case ignored. */
  static <E extends Enum<E>> ValueType<E> choice(Class<E> choices) {
    return new ValueType<>(ValueKind.STRING, text -> {
      String v = text.trim();
      StringBuilder names = new StringBuilder();
      for (E e : choices.getEnumConstants()) {
        String name = e.name().toLowerCase(Locale.ROOT).replace('_', '-'); // READ_WRITE is read-write
        if (name.equalsIgnoreCase(v)) {
          return e;
        }
        names.append(names.length() == 0 ? "" : ", ").append(name);
      }
      throw new Refused("expected one of " + names);
    });
  }

  /** A share such as {@code 10%} or {@code 0.1}, in [0, 1). */
  static ValueType<Double> fraction() {
    return new ValueType<>(ValueKind.STRING, text -> {
      double d = shareValue(text);
      if (!(d >= 0 && d < 1)) {
        throw new Refused("must be at least 0% and below 100%");
      }
      return d;
    });
  }

  /** A share such as {@code 0.1} or {@code 10%}, in [0, 1]: all of it ({@code 1}, {@code 100%}) included. */
  static ValueType<Double> fractionToWhole() {
    return new ValueType<>(ValueKind.STRING, text -> {
      double d = shareValue(text);
      if (!(d >= 0 && d <= 1)) {
        throw new Refused("must be between 0 and 1 (0% and 100%)");
      }
      return d;
    });
  }

  /** {@code 10%} or {@code 0.1} as 0.1; NaN passes, for the caller's range check to refuse. */
  private static double shareValue(String text) {
    String v = text.trim();
    try {
      return v.endsWith("%") ? Double.parseDouble(v.substring(0, v.length() - 1).trim()) / 100
          : Double.parseDouble(v);
    } catch (NumberFormatException e) {
      throw new Refused("expected a percentage such as 10% or a fraction such as 0.1");
    }
  }

  /** An amount of US dollars such as {@code 0.0004}: a price, at least 0. */
  static ValueType<Double> dollars() {
    return new ValueType<>(ValueKind.STRING, text -> {
      double d;
      try {
        d = Double.parseDouble(text.trim().startsWith("$") ? text.trim().substring(1) : text.trim());
      } catch (NumberFormatException e) {
        throw new Refused("expected an amount of US dollars such as 0.0004");
      }
      if (!(d >= 0) || Double.isInfinite(d)) {
        throw new Refused("must be a finite amount of at least 0");
      }
      return d;
    });
  }

  /** An http or https URI with a host, as written. */
  static ValueType<URI> httpUri() {
    return new ValueType<>(ValueKind.STRING, text -> {
      URI uri;
      try {
        uri = new URI(text);
      } catch (URISyntaxException e) {
        throw new Refused("not a URI: " + e.getReason());
      }
      if (uri.getScheme() == null || uri.getHost() == null) {
        throw new Refused("expected a URI such as http://127.0.0.1:9000");
      }
      String scheme = uri.getScheme().toLowerCase(Locale.ROOT);
      if (!scheme.equals("http") && !scheme.equals("https")) {
        throw new Refused("the scheme must be http or https, not " + uri.getScheme());
      }
      return uri;
    });
  }

  /** A local path, surrounding blanks ignored; a blank text is as if unset. */
  static ValueType<Path> path() {
    return new ValueType<>(ValueKind.STRING, text -> {
      String v = text.trim();
      return v.isEmpty() ? null : Path.of(v);
    });
  }

  /**
   * Servers as {@code host:port,host:port} ({@code :11211}, memcached's port, if none is given), in the
   * order written; empty for no text. Not resolved here.
   */
  static ValueType<java.util.List<java.net.InetSocketAddress>> hostPorts() {
    return new ValueType<>(ValueKind.STRING, text -> {
      java.util.List<java.net.InetSocketAddress> servers = new java.util.ArrayList<>();
      for (String part : text.split(",")) {
        String p = part.trim();
        if (p.isEmpty()) {
          continue;
        }
        int colon = p.lastIndexOf(':');
        String host = colon < 0 ? p : p.substring(0, colon);
        int port = 11211;
        if (colon >= 0) {
          try {
            port = Integer.parseInt(p.substring(colon + 1));
          } catch (NumberFormatException e) {
            throw new Refused("'" + p + "' has no port number after its ':'");
          }
        }
        if (host.isEmpty() || port < 1 || port > 65535) {
          throw new Refused("'" + p + "' is not host:port with a port in 1-65535");
        }
        servers.add(java.net.InetSocketAddress.createUnresolved(host, port));
      }
      return java.util.List.copyOf(servers);
    });
  }

  /** Any text, as written. */
  static ValueType<String> text() {
    return new ValueType<>(ValueKind.STRING, text -> text);
  }

  /** Any text, as written, never shown: {@code ****} in text and errors. */
  static ValueType<String> secret() {
    return new ValueType<>(ValueKind.SECRET, text -> text);
  }

  /**
   * A 256-bit AES key in base64 (44 characters), as S3's SSE-C headers carry it and S3A's
   * {@code fs.s3a.encryption.key} holds it; never shown. A refusal says what was expected, never the text.
   */
  static ValueType<String> aes256KeyBase64() {
    return new ValueType<>(ValueKind.SECRET, text -> {
      byte[] key;
      try {
        key = java.util.Base64.getDecoder().decode(text.strip());
      } catch (IllegalArgumentException e) {
        throw new Refused("expected a 256-bit AES key in base64 (44 characters), and this is not base64");
      }
      if (key.length != 32) {
        throw new Refused("expected a 256-bit AES key in base64 (44 characters), and this is " + key.length
            + " bytes");
      }
      return text.strip();
    });
  }

  private static long sizeValue(String text) {
    try {
      return parseSize(text);
    } catch (IllegalArgumentException e) {
      throw new Refused(e.getMessage());
    }
  }

  /** See {@link SlipstreamConfig#parseSize(String)}. */
  static long parseSize(String text) {
    Matcher m = SIZE.matcher(text == null ? "" : text.trim().toLowerCase(Locale.ROOT));
    if (!m.matches()) {
      throw new IllegalArgumentException("expected a size such as 8M, 512K or 1G");
    }
    int shift = switch (m.group(2)) {
      case "k" -> 10;
      case "m" -> 20;
      case "g" -> 30;
      case "t" -> 40;
      default -> 0;
    };
    long n;
    try {
      n = Long.parseLong(m.group(1));
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("too large");
    }
    if (n > (Long.MAX_VALUE >> shift)) {
      throw new IllegalArgumentException("too large");
    }
    return n << shift;
  }

  /** A size as configuration would write it: {@code 1K}, {@code 1G}, or bytes where no suffix fits exactly. */
  static String sizeText(long bytes) {
    String units = "KMGT";
    for (int u = units.length(); u >= 1; u--) {
      long unit = 1L << (10 * u);
      if (bytes >= unit && bytes % unit == 0) {
        return (bytes / unit) + units.substring(u - 1, u);
      }
    }
    return Long.toString(bytes);
  }

  private static Duration durationValue(String text) {
    Matcher m = TIME.matcher(text.trim().toLowerCase(Locale.ROOT));
    if (!m.matches()) {
      throw new Refused("expected a duration such as 500ms, 30s or 2m");
    }
    long n;
    try {
      n = Long.parseLong(m.group(1));
    } catch (NumberFormatException e) {
      throw new Refused("too large");
    }
    String unit = m.group(2) == null ? "ms" : m.group(2);
    Duration d;
    try {
      d = switch (unit) {
        case "s" -> Duration.ofSeconds(n);
        case "m" -> Duration.ofMinutes(n);
        case "h" -> Duration.ofHours(n);
        default -> Duration.ofMillis(n);
      };
    } catch (ArithmeticException e) {
      d = null;
    }
    if (d == null || d.compareTo(MAX_DURATION) > 0) {
      // Deadlines are computed in nanoseconds from now: far beyond a year they overflow.
      throw new Refused("too large: at most " + MAX_DURATION.toHours() + "h (365 days)");
    }
    return d;
  }
}
