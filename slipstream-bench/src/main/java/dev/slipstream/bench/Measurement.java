/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.bench;

/**
 * One run of one reader on one workload.
 *
 * @param latencies first-byte and total time of each object GET of the run, as the link shaper saw them
 * @param error null when the run completed, else why it did not
 * @param mismatch null when every byte read was right (or the run did not complete), else what differed
 * @param heap the heap after GC the run sampled as it went, or null (see {@link Workload.Run#heapCurve()})
 */
record Measurement(
    String workload,
    String reader,
    boolean warmup,
    long nanos,
    long bytesUsed,
    long bytesFetched,
    RequestCounter.Counts requests,
    RequestCounter.GetLatencies latencies,
    ResourceMeter.Reading resources,
    String error,
    String mismatch,
    HeapCurve heap) {

  Measurement(String workload, String reader, boolean warmup, long nanos, long bytesUsed, long bytesFetched,
      RequestCounter.Counts requests, RequestCounter.GetLatencies latencies, ResourceMeter.Reading resources,
      String error, String mismatch) {
    this(workload, reader, warmup, nanos, bytesUsed, bytesFetched, requests, latencies, resources, error, mismatch,
        null);
  }

  boolean ok() {
    return error == null && mismatch == null;
  }

  double seconds() {
    return nanos / 1e9;
  }

  double megabytesPerSecond() {
    return bytesUsed / 1e6 / seconds();
  }

  double cpuSecondsPerGigabyte() {
    return resources.cpuNanos() / 1e9 / (bytesUsed / 1e9);
  }

  static Measurement failed(String workload, String reader, boolean warmup, String error) {
    return new Measurement(workload, reader, warmup, 0, 0, 0, new RequestCounter.Counts(0, 0, 0, 0),
        RequestCounter.GetLatencies.NONE, new ResourceMeter.Reading(0, 0, 0), error, null);
  }
}
