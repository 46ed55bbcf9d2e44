/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.bench;

import dev.slipstream.SlipstreamConfig;
import dev.slipstream.testkit.LinkProfile;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
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
 * @param slipstreamSettings settings for both Slipstream readers, keys without their prefix (as in
 *     docs/configuration.md), checked against Slipstream's keys and values; a workload that sets a key itself
 *     (the Slipstream variants) keeps its own value. Not for the {@code cluster-*} workloads, whose second
 *     host starts with the workload's settings alone.
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
    String command,
    Map<String, String> slipstreamSettings) {

  public static final long DEFAULT_SEED = 20240917L;

  /**
   * Settings the benchmark gives the Slipstream readers itself: its server's address and credentials (which
   * must never reach the report's command line), and each run's own disk cache.
   */
  static final List<String> BENCH_OWN_SETTINGS = List.of("endpoint", "region", "path.style.access",
      "access.key", "secret.key", "session.token", "cache.disk.dir");

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
    slipstreamSettings = Map.copyOf(slipstreamSettings);
    if (!slipstreamSettings.isEmpty()) {
      for (String key : slipstreamSettings.keySet()) {
        if (BENCH_OWN_SETTINGS.contains(key)) {
          throw new IllegalArgumentException(key + " cannot be set: the benchmark sets it for its own server and"
              + " for each run (" + String.join(", ", BENCH_OWN_SETTINGS) + ")");
        }
      }
      SlipstreamConfig.Builder check = SlipstreamConfig.builder();
      slipstreamSettings.forEach(check::set); // an unknown key or a bad value is refused here, named
      check.build();
      for (String w : workloads) {
        if (Workloads.twoHosts(w)) {
          throw new IllegalArgumentException("Slipstream settings cannot be given to " + w
              + ": its second host starts with the workload's own settings; run it without them");
        }
      }
    }
  }

  /** Options with Slipstream's default settings. */
  public BenchOptions(LinkProfile profile, List<String> readers, List<String> workloads, BenchSizes sizes,
      int warmups, int runs, long seed, Path tmpDir, String command) {
    this(profile, readers, workloads, sizes, warmups, runs, seed, tmpDir, command, Map.of());
  }
}
