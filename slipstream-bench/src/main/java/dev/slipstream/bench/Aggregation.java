/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.bench;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.ToDoubleFunction;

/** Turns the measurements of one reader on one workload into its report row. */
final class Aggregation {
  private Aggregation() {}

  static Result unavailable(String workload, String reader, String reason) {
    return new Result(workload, reader, Result.UNAVAILABLE, reason, 0, Double.NaN, Double.NaN, Double.NaN,
        Double.NaN, Double.NaN, Double.NaN, Double.NaN, Double.NaN, Double.NaN, 0, 0, 0, 0, 0, false,
        Result.GetLatency.NONE);
  }

  static Result notApplicable(String workload, String reader, String reason) {
    Result u = unavailable(workload, reader, reason);
    return new Result(workload, reader, Result.NOT_APPLICABLE, reason, 0, u.mbps(), u.mbpsMin(), u.mbpsMax(),
        u.seconds(), u.ratioVsS3aClassic(), u.linkFraction(), u.cpuSecondsPerGb(), u.peakHeapMb(), u.peakDirectMb(),
        0, 0, 0, 0, 0, false, Result.GetLatency.NONE);
  }

  /** The row for {@code all} (warm-ups included, for the byte check) of one reader on one workload. */
  static Result row(String workload, String reader, List<Measurement> all, double linkCapacityMbps) {
    List<Measurement> measured = new ArrayList<>();
    String status = Result.OK;
    String reason = null;
    boolean verified = true;
    for (Measurement m : all) {
      if (m.mismatch() != null) {
        verified = false;
        if (!Result.WRONG_BYTES.equals(status)) {
          status = Result.WRONG_BYTES;
          reason = m.mismatch();
        }
      } else if (m.error() != null) {
        verified = false;
        if (Result.OK.equals(status)) {
          status = Result.FAILED;
          reason = m.error();
        }
      }
      if (!m.warmup() && m.error() == null) {
        measured.add(m);
      }
    }
    if (measured.isEmpty()) {
      Result u = unavailable(workload, reader, reason);
      return new Result(workload, reader, status, reason, 0, u.mbps(), u.mbpsMin(), u.mbpsMax(), u.seconds(),
          u.ratioVsS3aClassic(), u.linkFraction(), u.cpuSecondsPerGb(), u.peakHeapMb(), u.peakDirectMb(),
          0, 0, 0, 0, 0, false, Result.GetLatency.NONE);
    }
    double mbps = median(measured, Measurement::megabytesPerSecond);
    return new Result(workload, reader, status, reason, measured.size(),
        mbps,
        measured.stream().mapToDouble(Measurement::megabytesPerSecond).min().orElse(Double.NaN),
        measured.stream().mapToDouble(Measurement::megabytesPerSecond).max().orElse(Double.NaN),
        median(measured, Measurement::seconds),
        Double.NaN,
        linkCapacityMbps > 0 ? mbps / linkCapacityMbps : Double.NaN,
        median(measured, Measurement::cpuSecondsPerGigabyte),
        measured.stream().mapToLong(m -> m.resources().peakHeapBytes()).max().orElse(0) / 1048576.0,
        measured.stream().mapToLong(m -> m.resources().peakDirectBytes()).max().orElse(0) / 1048576.0,
        Math.round(median(measured, m -> m.requests().gets())),
        Math.round(median(measured, m -> m.requests().heads())),
        Math.round(median(measured, m -> m.requests().lists())),
        Math.round(median(measured, Measurement::bytesFetched)),
        Math.round(median(measured, Measurement::bytesUsed)),
        verified,
        Result.GetLatency.of(concat(measured, m -> m.latencies().firstByteNanos()),
            concat(measured, m -> m.latencies().totalNanos())),
        medianCurve(measured));
  }

  /** The heap curve of the measured run with the median growth per object; null where none sampled one. */
  static HeapCurve medianCurve(List<Measurement> measured) {
    List<HeapCurve> curves = measured.stream().map(Measurement::heap).filter(java.util.Objects::nonNull)
        .sorted(java.util.Comparator.comparingDouble(HeapCurve::bytesPerObject)).toList();
    return curves.isEmpty() ? null : curves.get((curves.size() - 1) / 2);
  }

  /** Fills in each row's ratio to S3A classic's throughput on the same workload. */
  static List<Result> withRatios(List<Result> rows) {
    List<Result> out = new ArrayList<>();
    for (Result r : rows) {
      Result classic = rows.stream()
          .filter(c -> c.workload().equals(r.workload()) && c.reader().equals(Readers.S3A_CLASSIC) && c.runs() > 0)
          .findFirst().orElse(null);
      out.add(classic != null && r.runs() > 0 ? r.withRatio(r.mbps() / classic.mbps()) : r);
    }
    return out;
  }

  private static long[] concat(List<Measurement> ms, java.util.function.Function<Measurement, long[]> f) {
    return ms.stream().map(f).flatMapToLong(java.util.Arrays::stream).toArray();
  }

  static double median(List<Measurement> ms, ToDoubleFunction<Measurement> f) {
    double[] v = ms.stream().mapToDouble(f).sorted().toArray();
    if (v.length == 0) {
      return Double.NaN;
    }
    return v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
  }

  static double median(double... values) {
    double[] v = values.clone();
    Arrays.sort(v);
    return v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
  }
}
