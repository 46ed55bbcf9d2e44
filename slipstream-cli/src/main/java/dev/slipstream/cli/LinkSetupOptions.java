/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.cli;

import dev.slipstream.testkit.LinkProfile;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import picocli.CommandLine.Option;

/**
 * Options of the commands that set up a test of their own, an S3 server behind a link shaper and
 * generated data ({@code demo}, {@code load}, {@code bench}): the link's profile, the seed of the data and
 * of the random draws, and where the temporary files go.
 *
 * <p>The options' {@code order}s (10, 30, 40) place them among each command's own options in its help.
 */
final class LinkSetupOptions {
  static final String DEFAULT_PROFILE = "s3-like";

  /** Null when not given: {@code load} refuses it with {@code --bucket}. */
  @Option(names = "--profile", paramLabel = "PROFILE", order = 10,
      description = "Link profile: s3-like (20 ms first-byte latency, 25 MB/s per connection, 300 MB/s in all),"
          + " flaky (s3-like with 2%% of requests failing), heavy-tail (s3-like with 1%% of requests waiting 1-2 s"
          + " for their first byte) or loopback (no shaping). Default: " + DEFAULT_PROFILE + ".")
  String profile;

  @Option(names = "--seed", paramLabel = "N", defaultValue = "20240917", order = 30,
      description = "Seed of the generated data and of every random draw (the shaper's, and the offsets of random"
          + " reads). Default: ${DEFAULT-VALUE}.")
  long seed;

  /** Null when not given: {@code load} refuses it with {@code --bucket}. */
  @Option(names = "--tmp-dir", paramLabel = "DIR", order = 40,
      description = "Directory for the temporary files: the generated data and any copies (default: the system"
          + " temp directory).")
  Path tmpDir;

  /** The link profile {@code --profile} names. */
  LinkProfile link() {
    try {
      return LinkProfile.named(profile == null ? DEFAULT_PROFILE : profile);
    } catch (IllegalArgumentException e) {
      throw new UsageException(e.getMessage());
    }
  }

  /** The directory {@code --tmp-dir} names, else the system temp directory; it must exist. */
  Path baseDir() throws NoSuchFileException {
    Path base = tmpDir != null ? tmpDir : Path.of(System.getProperty("java.io.tmpdir"));
    if (!Files.isDirectory(base)) {
      throw new NoSuchFileException(base.toString(), null, "no such directory");
    }
    return base;
  }
}
