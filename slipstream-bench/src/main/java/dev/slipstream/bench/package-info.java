/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
/**
 * The benchmark: Slipstream beside the readers users choose between today, in one run, on the same data,
 * through the same link, reported so that the numbers can be trusted (docs/benchmarks.md).
 *
 * <h2>What is compared</h2>
 * Five {@link dev.slipstream.bench.Reader readers}: Hadoop's S3A with each of its three input streams
 * ({@code s3a-classic}, {@code s3a-prefetch}, {@code s3a-analytics}, the last being the AWS Analytics
 * Accelerator Library), Slipstream's Hadoop FileSystem ({@code slipstream}, through {@code fs.s3a.impl}),
 * and Slipstream's plain Java API ({@code slipstream-core}). Hadoop readers are configured only as far as
 * reaching the test server requires; every read setting keeps its default, because defaults are what
 * most jobs run with. Each run gets a fresh FileSystem instance or client, closed afterwards, so no cache
 * or warm connection carries over from one run to the next.
 *
 * <h2>Where they read from</h2>
 * An S3 server (s3proxy over a temporary directory) in a child JVM, behind the link shaper of the testkit
 * in this JVM, which gives the loopback link S3's first-byte latency and per-connection and overall
 * bandwidth ({@code s3-like}: ~20 ms, 25 MB/s per connection, 300 MB/s in all). The shaper counts every
 * request and body byte, which gives GET, HEAD and LIST counts and bytes fetched the same way for every
 * reader, whatever their own statistics say. The physical limit of a run, the link capacity, is measured
 * first: 16 parallel ranged GETs with the plain AWS SDK into a null sink.
 *
 * <h2>How</h2>
 * {@link dev.slipstream.bench.Workload Workloads} (sequential copy to a temp file; Parquet in full and with
 * 2 of 20 columns; random 64 KiB positional reads; many small files) run one after another. For each,
 * warm-up rounds come first, then measured rounds; in every round each reader runs once, in the same order,
 * so that a machine that slows down or speeds up during the run affects every reader alike. A run is timed
 * from the first read to the last (opening the FileSystem and the driver-side HEAD are outside), and its
 * CPU time, peak heap, requests and bytes counted; after the timer stops, every byte it read is checked
 * against the source. The report gives medians with min and max, ratios to S3A classic from the same run,
 * and fractions of the link capacity; a reader that fails or cannot start is a row saying why, never a
 * missing row. Tests check that the report is produced and the bytes right, never timings.
 *
 * <p>One workload measures memory, not speed: {@code many-objects} ({@link dev.slipstream.bench.ManyObjectsWorkload})
 * reads thousands of distinct small Parquet objects through one client per reader, once, and samples the heap
 * after a full GC as it goes, less Slipstream's memory pool, which {@code memory.max} bounds
 * ({@link dev.slipstream.bench.HeapCurve}); the report adds the growth per object and
 * a chart of the curve ({@link dev.slipstream.bench.HeapChart}).
 */
package dev.slipstream.bench;
