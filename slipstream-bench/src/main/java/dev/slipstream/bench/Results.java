/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.bench;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * Everything one benchmark run found, as the report writers need it.
 *
 * @param profile the link profile's name
 * @param profileDescription the link profile in words
 * @param linkCapacityMbps the link capacity in MB/s, see {@link LinkCapacity}
 * @param started when the run started
 * @param duration how long the whole run took
 * @param machine the machine and JVM, in one line
 * @param command the command line
 * @param sizes the sizes used
 * @param warmups unmeasured rounds per workload
 * @param runs measured rounds per workload
 * @param readers reader name to its set-up, in report order
 * @param workloads workload name to what it does, in run order
 * @param rows one per workload and reader
 * @param versions name to version of Slipstream and the libraries compared, see {@link Versions}; empty when
 *     not recorded (results.json files written before they were)
 */
public record Results(
    String profile,
    String profileDescription,
    double linkCapacityMbps,
    Instant started,
    Duration duration,
    String machine,
    String command,
    BenchSizes sizes,
    int warmups,
    int runs,
    Map<String, String> readers,
    Map<String, String> workloads,
    List<Result> rows,
    Map<String, String> versions) {

  public Results {
    readers = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(readers));
    workloads = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(workloads));
    rows = List.copyOf(rows);
    versions = versions == null ? Map.of()
        : java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(versions));
  }

  /** The row of {@code reader} on {@code workload}, or null. */
  public Result row(String workload, String reader) {
    return rows.stream().filter(r -> r.workload().equals(workload) && r.reader().equals(reader)).findFirst()
        .orElse(null);
  }
}
