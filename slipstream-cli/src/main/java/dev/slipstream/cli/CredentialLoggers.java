/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.cli;

import java.util.List;
import java.util.Locale;

/**
 * Keeps the third-party loggers that print credentials at INFO or above, whatever level is asked
 * (docs/architecture.md, rule 8). At DEBUG, Apache HttpClient prints every request header
 * ({@code org.apache.http.headers}) and byte ({@code org.apache.http.wire}), and the AWS SDK's SigV4
 * signers print the canonical request: all three show {@code X-Amz-Security-Token} in full. Nothing
 * useful to a user is lost: Slipstream's own DEBUG log and the SDK's request log (which names headers,
 * not their values) stay as asked.
 *
 * <p>Works through slf4j-simple's system properties, so it must run before the first logger of those
 * names is created: first thing in {@code main}.
 */
final class CredentialLoggers {
  /** The loggers whose DEBUG or TRACE output carries the session token or a signature's inputs. */
  static final List<String> NAMES = List.of(
      "org.apache.http.headers",
      "org.apache.http.wire",
      "software.amazon.awssdk.http.auth",
      "software.amazon.awssdk.auth.signer");

  private static final String PREFIX = "org.slf4j.simpleLogger.log.";
  private static final String DEFAULT = "org.slf4j.simpleLogger.defaultLogLevel";

  private CredentialLoggers() {}

  /** Raises each of {@link #NAMES} to INFO where the level asked for it (by name, parent or default) is lower. */
  static void keepQuiet() {
    for (String name : NAMES) {
      String asked = askedLevel(name);
      if (asked != null && below(asked)) {
        System.setProperty(PREFIX + name, "info");
      }
    }
  }

  /** The level system properties ask for {@code name}: its own, its nearest parent's, or the default; null if none. */
  private static String askedLevel(String name) {
    for (String n = name; !n.isEmpty(); n = n.contains(".") ? n.substring(0, n.lastIndexOf('.')) : "") {
      String v = System.getProperty(PREFIX + n);
      if (v != null) {
        return v;
      }
    }
    return System.getProperty(DEFAULT);
  }

  private static boolean below(String level) {
    String l = level.trim().toLowerCase(Locale.ROOT);
    return l.equals("trace") || l.equals("debug") || l.equals("all");
  }
}
