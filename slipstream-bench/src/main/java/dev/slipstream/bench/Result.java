/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.bench;

/**
 * One row of the report: a reader on a workload, over the measured runs of one benchmark. Throughput and
 * CPU are medians over the runs (throughput with its min and max), peak heap the largest of the runs,
 * request and byte counts the medians per run. Numbers are NaN when no run completed.
 *
 * @param workload {@code sequential}, {@code parquet-full}, {@code parquet-projected}, {@code random}, {@code small-files}
 * @param reader {@code s3a-classic}, {@code s3a-prefetch}, {@code s3a-analytics}, {@code slipstream}, {@code slipstream-core}
 * @param status {@code ok}; {@code failed} (a run threw); {@code wrong-bytes} (a run read bytes that differ from
 *     the source); {@code unavailable} (the reader could not be set up at all)
 * @param reason why, when the status is not {@code ok}
 * @param runs measured runs that completed
 * @param mbps median throughput in MB/s (10^6 bytes per second) of the bytes used
 * @param mbpsMin slowest run
 * @param mbpsMax fastest run
 * @param seconds median duration of a run
 * @param ratioVsS3aClassic {@code mbps} divided by S3A classic's on the same workload (NaN without it)
 * @param linkFraction {@code mbps} divided by the link capacity
 * @param cpuSecondsPerGb CPU seconds of the benchmark JVM per GB (10^9 bytes) used, less the link shaper's threads
 * @param peakHeapMb peak heap in use during a run, in MB (2^20 bytes)
 * @param peakDirectMb peak direct (off-heap) buffer memory during a run, in MB (2^20 bytes)
 * @param gets GET requests of objects per run
 * @param heads HEAD requests per run
 * @param lists LIST requests per run
 * @param bytesFetched response body bytes the link carried to the reader per run
 * @param bytesUsed bytes the workload needed: the object, the read ranges, or for Parquet the file (full) or the
 *     projected columns' chunks and the footer
 * @param verified every run, warm-ups included, read exactly the source's bytes
 * @param latency first-byte and total time of the object GETs of the measured runs, as the link shaper saw
 *     them alike for every reader (NaN when there were none, or the results predate it)
 * @param heap heap after GC against objects read, for a workload that samples it ({@code many-objects});
 *     null for the others
 */
public record Result(
    String workload,
    String reader,
    String status,
    String reason,
    int runs,
    double mbps,
    double mbpsMin,
    double mbpsMax,
    double seconds,
    double ratioVsS3aClassic,
    double linkFraction,
    double cpuSecondsPerGb,
    double peakHeapMb,
    double peakDirectMb,
    long gets,
    long heads,
    long lists,
    long bytesFetched,
    long bytesUsed,
    boolean verified,
    GetLatency latency,
    HeapCurve heap) {

  /** A row without a heap curve: every workload but {@code many-objects}. */
  public Result(String workload, String reader, String status, String reason, int runs, double mbps, double mbpsMin,
      double mbpsMax, double seconds, double ratioVsS3aClassic, double linkFraction, double cpuSecondsPerGb,
      double peakHeapMb, double peakDirectMb, long gets, long heads, long lists, long bytesFetched, long bytesUsed,
      boolean verified, GetLatency latency) {
    this(workload, reader, status, reason, runs, mbps, mbpsMin, mbpsMax, seconds, ratioVsS3aClassic, linkFraction,
        cpuSecondsPerGb, peakHeapMb, peakDirectMb, gets, heads, lists, bytesFetched, bytesUsed, verified, latency, null);
  }

  public static final String OK = "ok";
  public static final String FAILED = "failed";
  public static final String WRONG_BYTES = "wrong-bytes";
  public static final String UNAVAILABLE = "unavailable";
  /** Not run by design: e.g. a listing workload runs one of the S3A readers, whose streams play no part. */
  public static final String NOT_APPLICABLE = "not-applicable";

  /** Bytes fetched per byte used: 1.0 means nothing wasted; NaN when nothing was used. */
  public double fetchedPerUsed() {
    return bytesUsed > 0 ? (double) bytesFetched / bytesUsed : Double.NaN;
  }

  /**
   * What a TB (10^12 bytes) used cost in requests and transfer, in US dollars, at S3 Standard's list prices
   * in US East (GET and HEAD $0.0004, LIST $0.005 per 1,000; no transfer within the region); NaN when
   * nothing was used.
   */
  public double dollarsPerTbUsed() {
    if (bytesUsed <= 0) {
      return Double.NaN;
    }
    return dev.slipstream.Prices.S3_STANDARD_US_EAST.cost(gets, heads, lists, bytesFetched, bytesUsed)
        .dollarsPerGbRead() * 1000;
  }

  public boolean ok() {
    return OK.equals(status);
  }

  /**
   * Percentiles of object GETs' first-byte and total time, in milliseconds (nearest rank over every GET
   * of the measured runs).
   */
  public record GetLatency(double firstByteP50Ms, double firstByteP99Ms, double totalP50Ms, double totalP99Ms) {
    public static final GetLatency NONE = new GetLatency(Double.NaN, Double.NaN, Double.NaN, Double.NaN);

    /** From samples in nanoseconds; {@link #NONE} without any. */
    static GetLatency of(long[] firstByteNanos, long[] totalNanos) {
      if (firstByteNanos.length == 0) {
        return NONE;
      }
      long[] f = firstByteNanos.clone();
      long[] t = totalNanos.clone();
      java.util.Arrays.sort(f);
      java.util.Arrays.sort(t);
      return new GetLatency(millis(f, 50), millis(f, 99), millis(t, 50), millis(t, 99));
    }

    /** The {@code p}th percentile of sorted {@code v}, nearest rank, in milliseconds. */
    static double millis(long[] sorted, int p) {
      int rank = (int) Math.ceil(p / 100.0 * sorted.length);
      return sorted[Math.max(0, rank - 1)] / 1e6;
    }

    public boolean isKnown() {
      return !Double.isNaN(firstByteP50Ms);
    }
  }

  Result withRatio(double ratio) {
    return new Result(workload, reader, status, reason, runs, mbps, mbpsMin, mbpsMax, seconds, ratio, linkFraction,
        cpuSecondsPerGb, peakHeapMb, peakDirectMb, gets, heads, lists, bytesFetched, bytesUsed, verified, latency,
        heap);
  }
}
