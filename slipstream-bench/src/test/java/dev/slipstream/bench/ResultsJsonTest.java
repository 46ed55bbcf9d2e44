/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.bench;

import static dev.slipstream.bench.TestRows.missing;
import static dev.slipstream.bench.TestRows.ok;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** results.json read back: what was written comes back, and what an older file lacks is named. */
class ResultsJsonTest {
  @TempDir
  Path tmp;

  @Test
  void whatIsWrittenIsReadBack() throws Exception {
    Results r = TestRows.run("s3-like", List.of(ok("sequential", "s3a-classic", 3, 25, 24, 26),
        missing("sequential", "slipstream", Result.FAILED, "IOException: \"quoted\"\nnext line")));
    Files.writeString(tmp.resolve(ReportFiles.JSON), JsonReport.write(r));

    ResultsJson.Loaded loaded = ResultsJson.read(tmp);
    assertThat(loaded.missing()).isEmpty();
    Results back = loaded.results();
    assertThat(back.rows()).hasSameSizeAs(r.rows());
    for (int i = 0; i < r.rows().size(); i++) { // numbers are written with 6 decimals: compared as written below
      Result a = r.rows().get(i);
      Result b = back.rows().get(i);
      assertThat(List.of(b.workload(), b.reader(), b.status(), String.valueOf(b.reason()), b.runs(), b.gets()))
          .isEqualTo(List.of(a.workload(), a.reader(), a.status(), String.valueOf(a.reason()), a.runs(), a.gets()));
    }
    assertThat(back.versions()).isEqualTo(r.versions());
    assertThat(back.sizes()).isEqualTo(r.sizes());
    assertThat(back.readers()).isEqualTo(r.readers());
    assertThat(back.workloads()).isEqualTo(r.workloads());
    assertThat(back.started()).isEqualTo(r.started());
    assertThat(JsonReport.write(back)).isEqualTo(JsonReport.write(r));
  }

  @Test
  void anOlderFileSaysWhatItLacks() throws Exception {
    ResultsJson.Loaded old = ResultsJson.read(Path.of("..", "docs", "bench", "2026-11-21-default", "results.json"));
    assertThat(old.missing()).contains("sizes.listing_directories", "sizes.listing_flat_keys", "versions");
    assertThat(old.results().workloads()).doesNotContainKey("listing"); // the sizes it lacks were of no use to it
    assertThat(old.results().rows()).hasSize(25);

    ResultsJson.Loaded recent = ResultsJson.read(Path.of("..", "docs", "bench", "2026-11-22-default"));
    assertThat(recent.missing()).containsExactly("sizes.many_objects", "rows[].get_first_byte_p50_ms",
        "rows[].get_first_byte_p99_ms", "rows[].get_total_p50_ms", "rows[].get_total_p99_ms", "versions");
    assertThat(recent.results().row("sequential", "slipstream").latency()).isEqualTo(Result.GetLatency.NONE);
    assertThat(recent.results().row("listing", "s3a-prefetch").status()).isEqualTo(Result.NOT_APPLICABLE);
  }

  @Test
  void somethingElseIsRefusedClearly() throws IOException {
    Files.writeString(tmp.resolve("results.json"), "{\"profile\": \"x\"}");
    assertThatThrownBy(() -> ResultsJson.read(tmp)).hasMessageContaining("no \"rows\"");
    Files.writeString(tmp.resolve("results.json"), "{\"rows\": [");
    assertThatThrownBy(() -> ResultsJson.read(tmp)).hasMessageContaining("not valid JSON");
    assertThatThrownBy(() -> ResultsJson.read(tmp.resolve("nowhere"))).hasMessageContaining("nowhere");
  }
}
