/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.bench;

import dev.slipstream.testkit.LinkProfile;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;

/**
 * What one benchmark run does.
 *
 * @param profile the link shaping between the readers and the S3 server
 * @param readers reader names, in the order they alternate within a round (see {@link Readers})
 * @param workloads workload names, run one after another (see {@link Workloads})
 * @param sizes how much data each workload reads
 * @param warmups unmeasured rounds per workload before the measured ones
 * @param runs measured rounds per workload; each round runs every reader once
 * @param seed seed of the generated data and of the link shaper's random draws
 * @param tmpDir where the server's data and the temporary copies go
 * @param command the command line, for the report
 */
public record BenchOptions(
    LinkProfile profile,
    List<String> readers,
    List<String> workloads,
    BenchSizes sizes,
    int warmups,
    int runs,
    long seed,
    Path tmpDir,
    String command) {

  public static final long DEFAULT_SEED = 20240917L;

  public BenchOptions {
    Objects.requireNonNull(profile, "profile");
    readers = List.copyOf(readers);
    workloads = List.copyOf(workloads);
    Objects.requireNonNull(sizes, "sizes");
    Objects.requireNonNull(tmpDir, "tmpDir");
    command = command == null ? "" : command;
    if (readers.isEmpty() || workloads.isEmpty()) {
      throw new IllegalArgumentException("at least one reader and one workload are needed");
    }
    if (warmups < 0 || runs < 1) {
      throw new IllegalArgumentException("warm-up rounds must be >= 0 and measured runs >= 1");
    }
    readers.forEach(Readers::byName);
    workloads.forEach(Workloads::checkName);
  }
}
