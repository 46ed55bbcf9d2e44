/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/** The disk cache directory of one Slipstream session: made empty for it, deleted after it. */
final class SessionCache {
  private SessionCache() {}

  static Path create() {
    try {
      return Files.createTempDirectory("slipstream-bench-cache-");
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create a disk cache directory for a run", e);
    }
  }

  /** Deletes {@code dir} and everything in it; null is ignored. Blocks still being written are waited for. */
  static void delete(Path dir) {
    if (dir == null) {
      return;
    }
    dev.slipstream.Slipstream.awaitDiskCacheWrites(java.time.Duration.ofSeconds(60));
    try (Stream<Path> files = Files.walk(dir)) {
      for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    } catch (IOException e) {
      System.err.println("warning: could not delete " + dir + ": " + e);
    }
  }
}
