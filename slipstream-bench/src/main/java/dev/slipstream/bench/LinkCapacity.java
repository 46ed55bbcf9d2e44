/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.bench;

import java.io.InputStream;
import java.net.URI;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;
import software.amazon.awssdk.core.ResponseInputStream;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;

/**
 * The physical limit of a run: {@value #PARALLEL} ranged GETs at once with the plain AWS SDK client,
 * through the same link shaper as the readers, each body read into a null sink. One unmeasured pass,
 * then {@value #PASSES} measured passes; the median is the link capacity every reader is compared with.
 */
final class LinkCapacity {
  static final int PARALLEL = 16;
  static final int PASSES = 3;
  static final String KEY = "link/probe.bin";

  private LinkCapacity() {}

  /** Median MB/s (10^6 bytes per second) of parallel ranged GETs of {@code rangeBytes} each. */
  static double measure(URI endpoint, String bucket, long rangeBytes) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(PARALLEL, r -> {
      Thread t = new Thread(r, "bench-link-probe");
      t.setDaemon(true);
      return t;
    });
    try (S3Client s3 = Uploader.client(endpoint, PARALLEL)) {
      double[] passes = new double[PASSES];
      for (int pass = -1; pass < PASSES; pass++) {
        AtomicLong bytes = new AtomicLong();
        long t0 = System.nanoTime();
        List<Future<?>> gets = new ArrayList<>();
        for (int i = 0; i < PARALLEL; i++) {
          long start = i * rangeBytes;
          String range = "bytes=" + start + "-" + (start + rangeBytes - 1);
          gets.add(pool.submit(() -> {
            byte[] sink = new byte[1 << 16];
            try (ResponseInputStream<GetObjectResponse> in = s3.getObject(g -> g.bucket(bucket).key(KEY).range(range))) {
              long n = drain(in, sink);
              bytes.addAndGet(n);
            }
            return null;
          }));
        }
        for (Future<?> f : gets) {
          f.get();
        }
        long nanos = System.nanoTime() - t0;
        if (pass >= 0) {
          passes[pass] = bytes.get() / 1e6 / (nanos / 1e9);
        }
      }
      Arrays.sort(passes);
      return passes[PASSES / 2];
    } finally {
      pool.shutdownNow();
    }
  }

  private static long drain(InputStream in, byte[] sink) throws java.io.IOException {
    long total = 0;
    int n;
    while ((n = in.read(sink)) > 0) {
      total += n;
    }
    return total;
  }
}
