/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.bench;

import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Hand-made rows and runs for the report tests: only the fields the reports read are set with care. */
final class TestRows {
  private TestRows() {}

  /** A completed row: median {@code mbps} of {@code runs} runs spread from {@code min} to {@code max}. */
  static Result ok(String workload, String reader, int runs, double mbps, double min, double max) {
    return new Result(workload, reader, Result.OK, null, runs, mbps, min, max, 1.0, Double.NaN, mbps / 300, 1.5,
        100, 5, 16, 1, 0, 128_000_000, 128_000_000, true, new Result.GetLatency(21, 45, 180, 330));
  }

  static Result missing(String workload, String reader, String status, String reason) {
    Result u = Aggregation.unavailable(workload, reader, reason);
    return new Result(workload, reader, status, reason, 0, u.mbps(), u.mbpsMin(), u.mbpsMax(), u.seconds(),
        u.ratioVsS3aClassic(), u.linkFraction(), u.cpuSecondsPerGb(), u.peakHeapMb(), u.peakDirectMb(), 0, 0, 0, 0,
        0, false, Result.GetLatency.NONE);
  }

  /** A run of {@code rows} on the s3-like profile with the default sizes, ratios filled in. */
  static Results run(String profile, List<Result> rows) {
    Map<String, String> readers = new LinkedHashMap<>();
    Map<String, String> workloads = new LinkedHashMap<>();
    rows.forEach(r -> readers.put(r.reader(), "the reader " + r.reader()));
    rows.forEach(r -> workloads.put(r.workload(), "the workload " + r.workload()));
    return new Results(profile, "a profile", 300.0, Instant.parse("2026-11-23T10:00:00Z"), Duration.ofMinutes(6),
        "2 cores (Test CPU), 8 GiB RAM, Linux 6 (amd64), Java 17.0.15 (OpenJDK 64-Bit Server VM), max heap 2048 MiB",
        "bin/slipstream bench --out x", BenchSizes.defaults(), 1, 3, readers, workloads,
        Aggregation.withRatios(rows), Map.of("Slipstream", "0.1.0-test", "Hadoop (S3A)", "3.5.0"));
  }
}
