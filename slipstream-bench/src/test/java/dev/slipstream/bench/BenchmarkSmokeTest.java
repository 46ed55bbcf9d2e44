/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.bench;

import static org.assertj.core.api.Assertions.assertThat;

import dev.slipstream.testkit.LinkProfile;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The whole benchmark with tiny sizes on the loopback link, every reader and every workload, one warm-up
 * and one measured run: the report files are written and parse, every row is there with its fields, and
 * every reader read exactly the source's bytes. Timings are never asserted.
 */
class BenchmarkSmokeTest {
  @TempDir
  Path tmp;

  @Test
  void everyReaderReadsEveryWorkloadAndTheReportIsWritten() throws Exception {
    BenchOptions options = new BenchOptions(LinkProfile.LOOPBACK, Benchmark.readerNames(), Benchmark.workloadNames(),
        BenchSizes.smoke(), 1, 1, BenchOptions.DEFAULT_SEED, tmp, "BenchmarkSmokeTest");
    ByteArrayOutputStream progress = new ByteArrayOutputStream();
    Results results;
    try (PrintStream log = new PrintStream(progress, true, StandardCharsets.UTF_8)) {
      results = Benchmark.run(options, new PrintStream(new TeeStream(log, System.out), true, StandardCharsets.UTF_8));
    }
    System.out.println(Report.table(results));

    assertThat(results.rows()).hasSize(Benchmark.readerNames().size() * Benchmark.workloadNames().size());
    assertThat(Double.isFinite(results.linkCapacityMbps())).as("link capacity was measured").isTrue();
    for (Result row : results.rows()) {
      assertThat(row.status()).as("%s on %s: %s", row.reader(), row.workload(), row.reason())
          .isNotEqualTo(Result.WRONG_BYTES);
      if (Result.NOT_APPLICABLE.equals(row.status())) {
        // orc-core reads only through a Hadoop FileSystem: the core reader has no ORC rows
        assertThat(row.workload()).matches(w -> w.startsWith(ListingWorkload.DIRECTORIES)
            || w.equals(SmallFilesWorkload.BY_PATH) || w.equals(OrcWorkload.FULL) || w.equals(OrcWorkload.PROJECTED),
            "a listing workload, small-files-open or an ORC workload");
        continue;
      }
      if (!row.ok() && knownPeerFailure(row)) {
        // A bug of the peer, not of the benchmark: reported in the row, accepted here, printed.
        System.out.println("ACCEPTED known peer failure: " + row.reader() + " on " + row.workload() + ": " + row.reason());
        continue;
      }
      assertThat(row.status()).as("%s on %s: %s", row.reader(), row.workload(), row.reason()).isEqualTo(Result.OK);
      assertThat(row.verified()).isTrue();
      assertThat(row.runs()).isEqualTo(1);
      assertThat(row.bytesUsed()).isPositive();
      // A re-read may be served whole by the reader's caches (Slipstream's disk cache, the analytics
      // stream's memory): it may fetch nothing at all.
      boolean reRead = row.workload().equals(ReReadWorkload.AGAIN);
      if (!reRead) {
        assertThat(row.bytesFetched()).isPositive();
      }
      if (row.workload().startsWith(ListingWorkload.DIRECTORIES)) {
        assertThat(row.lists()).as("%s lists on %s", row.reader(), row.workload()).isPositive();
        assertThat(row.gets()).isZero();
        assertThat(row.heads()).isZero();
      } else if (!reRead) {
        assertThat(row.gets()).isPositive();
      }
      if (row.gets() > 0) {
        // every object GET of the measured runs, timed by the link shaper
        Result.GetLatency l = row.latency();
        assertThat(l.isKnown()).as("GET latency of %s on %s", row.reader(), row.workload()).isTrue();
        assertThat(l.firstByteP50Ms()).isLessThanOrEqualTo(l.firstByteP99Ms()).isLessThanOrEqualTo(l.totalP99Ms());
        assertThat(l.totalP50Ms()).isGreaterThanOrEqualTo(l.firstByteP50Ms()).isLessThanOrEqualTo(l.totalP99Ms());
      }
      assertThat(Double.isFinite(row.mbps())).as("a rate was computed for %s", row).isTrue();
      assertThat(Double.isFinite(row.cpuSecondsPerGb())).as("CPU was measured for %s", row).isTrue();
      assertThat(row.peakHeapMb()).isPositive();
      if (row.reader().equals(Readers.S3A_CLASSIC)) {
        assertThat(row.ratioVsS3aClassic()).isEqualTo(1.0);
      }
    }
    // Listing: Slipstream's merge-join needs fewer LISTs than S3A's one per directory.
    Result perDirectory = results.row(ListingWorkload.DIRECTORIES, Readers.S3A_CLASSIC);
    Result mergeJoin = results.row(ListingWorkload.DIRECTORIES, Readers.SLIPSTREAM);
    assertThat(perDirectory.lists()).isGreaterThanOrEqualTo(BenchSizes.smoke().listingDirectories());
    assertThat(mergeJoin.lists()).isLessThan(perDirectory.lists());
    // FileInputFormat's glob: S3A lists the parent, then every directory; Slipstream one flat listing.
    Result globS3a = results.row(ListingWorkload.GLOB, Readers.S3A_CLASSIC);
    Result globSlipstream = results.row(ListingWorkload.GLOB, Readers.SLIPSTREAM);
    assertThat(globS3a.lists()).isGreaterThan(BenchSizes.smoke().listingDirectories());
    assertThat(globSlipstream.lists()).isLessThan(globS3a.lists());
    // One listStatus per directory: S3A one LIST each; Slipstream's walk fewer.
    Result walkS3a = results.row(ListingWorkload.PER_DIRECTORY, Readers.S3A_CLASSIC);
    Result walkSlipstream = results.row(ListingWorkload.PER_DIRECTORY, Readers.SLIPSTREAM);
    assertThat(walkS3a.lists()).isGreaterThanOrEqualTo(BenchSizes.smoke().listingDirectories());
    assertThat(walkSlipstream.lists()).isLessThan(walkS3a.lists());
    // Small files are listed: at least one LIST per run for every reader.
    results.rows().stream().filter(r -> r.workload().startsWith(SmallFilesWorkload.NAME) && r.ok())
        .forEach(r -> assertThat(r.lists()).as(r.reader()).isPositive());
    // Opened by path: S3A a HEAD each; Slipstream takes the listing's length and version, no HEAD.
    assertThat(results.row(SmallFilesWorkload.BY_PATH, Readers.S3A_CLASSIC).heads())
        .isEqualTo(BenchSizes.smoke().smallFiles());
    assertThat(results.row(SmallFilesWorkload.BY_PATH, Readers.SLIPSTREAM).heads()).isZero();

    Path out = tmp.resolve("report");
    List<Path> files = ReportFiles.write(results, out);
    for (Path f : files) {
      assertThat(f).isRegularFile();
      assertThat(Files.size(f)).isPositive();
    }
    String json = Files.readString(out.resolve(ReportFiles.JSON));
    Object parsed = Json.parse(json);
    assertThat(parsed).isInstanceOf(java.util.Map.class);
    var map = (java.util.Map<?, ?>) parsed;
    assertThat(map.get("profile")).isEqualTo("loopback");
    assertThat(map.get("link_capacity_mbps")).isInstanceOf(Double.class);
    var rows = (List<?>) map.get("rows");
    assertThat(rows).hasSize(results.rows().size());
    for (Object o : rows) {
      @SuppressWarnings("unchecked")
      var row = (java.util.Map<String, Object>) o;
      assertThat(row.keySet()).contains("workload", "reader", "mbps", "ratio_vs_s3a_classic", "link_fraction",
          "cpu_s_per_gb", "peak_heap_mb", "gets", "heads", "lists", "bytes_fetched", "bytes_used");
      assertThat(Benchmark.workloadNames()).contains((String) row.get("workload"));
      assertThat(Benchmark.readerNames()).contains((String) row.get("reader"));
      if (!Result.NOT_APPLICABLE.equals(row.get("status"))) {
        assertThat(row.get("verified")).isEqualTo(Boolean.TRUE);
      }
    }
    List<String> csv = Files.readAllLines(out.resolve(ReportFiles.CSV));
    assertThat(csv.get(0)).isEqualTo(CsvReport.HEADER);
    assertThat(csv).hasSize(results.rows().size() + 1);
    for (String name : List.of("mbps-sequential.png", "ratio-vs-s3a-classic.png", "cpu-s-per-gb.png")) {
      byte[] png = Files.readAllBytes(out.resolve(name));
      assertThat(png).startsWith(0x89, 'P', 'N', 'G');
    }
    String md = Files.readString(out.resolve(ReportFiles.MARKDOWN));
    assertThat(md).contains("# Slipstream benchmark", "## sequential", "## small-files", "## listing",
        "## listing-recursive", "ratio-vs-s3a-classic.png");
    String html = Files.readString(out.resolve(ReportFiles.HTML));
    assertThat(html).contains("<h2>sequential</h2>", "<h2>listing-recursive</h2>", "data:image/png;base64,");
    assertThat(progress.toString(StandardCharsets.UTF_8)).contains("link capacity", "run 1/1", "bytes ok");
  }

  /**
   * S3A's prefetching stream sometimes loses a block file of its own disk cache during random reads
   * ({@code NoSuchFileException: .../s3a/fs-cache-N.bin}, logged by its CachingBlockManager); the benchmark
   * reports it as a failed run of that reader. It is the only failure accepted here.
   */
  private static boolean knownPeerFailure(Result row) {
    return row.reader().equals(Readers.S3A_PREFETCH) && Result.FAILED.equals(row.status()) && row.reason() != null
        && row.reason().contains("NoSuchFileException") && row.reason().contains("fs-cache-");
  }

  /** Writes to two streams: the test's captured progress and the console, to watch a slow run. */
  private static final class TeeStream extends java.io.OutputStream {
    private final java.io.OutputStream a;
    private final java.io.OutputStream b;

    TeeStream(java.io.OutputStream a, java.io.OutputStream b) {
      this.a = a;
      this.b = b;
    }

    @Override
    public void write(int x) throws java.io.IOException {
      a.write(x);
      b.write(x);
    }

    @Override
    public void write(byte[] buf, int off, int len) throws java.io.IOException {
      a.write(buf, off, len);
      b.write(buf, off, len);
    }

    @Override
    public void flush() throws java.io.IOException {
      a.flush();
      b.flush();
    }
  }
}
