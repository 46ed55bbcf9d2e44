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
 * The many-objects workload with a few objects on the loopback link, every reader: each reads every
 * object's own values through one client, once, and its heap after GC is sampled every twentieth of the
 * objects and reported (results.json read back, the chart and the tables). Heap figures are never asserted.
 */
class ManyObjectsSmokeTest {
  @TempDir
  Path tmp;

  @Test
  void everyReaderReadsEveryObjectAndItsHeapIsSampledAndReported() throws Exception {
    BenchSizes sizes = BenchSizes.smoke();
    BenchOptions options = new BenchOptions(LinkProfile.LOOPBACK, Benchmark.readerNames(),
        List.of(ManyObjectsWorkload.NAME), sizes, 1, 2, BenchOptions.DEFAULT_SEED, tmp, "ManyObjectsSmokeTest");
    ByteArrayOutputStream progress = new ByteArrayOutputStream();
    Results results;
    try (PrintStream log = new PrintStream(progress, true, StandardCharsets.UTF_8)) {
      results = Benchmark.run(options, log);
    }
    System.out.print(progress.toString(StandardCharsets.UTF_8));
    System.out.println(Report.table(results));

    assertThat(results.rows()).hasSize(Benchmark.readerNames().size());
    for (Result row : results.rows()) {
      assertThat(row.status()).as("%s: %s", row.reader(), row.reason()).isEqualTo(Result.OK);
      assertThat(row.verified()).isTrue();
      assertThat(row.runs()).as("one run, whatever the rounds asked for").isEqualTo(1);
      int perDirectory = ManyObjectsWorkload.perDirectory(sizes.manyObjects());
      assertThat(row.lists()).as("one listing per directory")
          .isEqualTo((sizes.manyObjects() + perDirectory - 1) / perDirectory);
      assertThat(row.gets()).isGreaterThanOrEqualTo(sizes.manyObjects());
      HeapCurve heap = row.heap();
      assertThat(heap).as("heap curve of %s", row.reader()).isNotNull();
      assertThat(heap.objects()).hasSize(ManyObjectsWorkload.SAMPLES + 1).startsWith(0L)
          .endsWith((long) sizes.manyObjects());
      assertThat(java.util.Arrays.stream(heap.heapBytes()).min().orElse(0)).isPositive();
      assertThat(heap.fitFrom()).isEqualTo(sizes.manyObjects() * ManyObjectsWorkload.WARM_UP_PERCENT / 100);
      assertThat(Double.isFinite(heap.bytesPerObject())).isTrue();
    }
    assertThat(progress.toString(StandardCharsets.UTF_8)).contains("run 1/1")
        .as("no warm-up round: the workload's first objects are its warm-up").doesNotContainPattern("warm-up \\d+/\\d+");

    Path out = tmp.resolve("report");
    ReportFiles.write(results, out);
    Results back = ResultsJson.read(out).results();
    for (Result row : results.rows()) {
      assertThat(back.row(row.workload(), row.reader()).heap()).isEqualTo(row.heap());
    }
    assertThat(Files.readAllBytes(out.resolve("heap-many-objects.png"))).startsWith(0x89, 'P', 'N', 'G');
    assertThat(Files.readString(out.resolve(ReportFiles.HTML))).contains("growth per object",
        "data-chart=\"heap-many-objects.png\"");
    assertThat(Files.readString(out.resolve(ReportFiles.MARKDOWN))).contains("heap after GC, first → last",
        "heap-many-objects.png");
    assertThat(Files.readAllLines(out.resolve(ReportFiles.CSV)).get(0)).endsWith("heap_bytes_per_object,heap_after_gc_peak_mb");
  }
}
