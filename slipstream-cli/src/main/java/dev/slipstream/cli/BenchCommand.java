/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.cli;

import dev.slipstream.bench.BenchOptions;
import dev.slipstream.bench.BenchSizes;
import dev.slipstream.bench.Benchmark;
import dev.slipstream.bench.Comparison;
import dev.slipstream.bench.Report;
import dev.slipstream.bench.ReportFiles;
import dev.slipstream.bench.Result;
import dev.slipstream.bench.Results;
import dev.slipstream.bench.ResultsJson;
import dev.slipstream.testkit.LinkProfile;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/**
 * {@code slipstream bench}: Slipstream beside S3A classic, prefetch and analytics, on this machine, in one
 * run (see {@code docs/benchmarks.md} and the {@code dev.slipstream.bench} package). Progress goes to
 * stderr, the results table to stdout, and with {@code --out} the report files to a directory.
 */
@Command(name = "bench", mixinStandardHelpOptions = true, sortOptions = false,
    description = {
        "Benchmark Slipstream beside S3A classic, S3A prefetch and S3A analytics.",
        "Starts an S3 server (s3proxy, in a child JVM) behind a link shaper, puts test data into it, measures"
            + " the link capacity, then runs each workload with every reader, alternating readers within each"
            + " round, after a warm-up. Every byte read is checked against the source. Prints a table of"
            + " medians; --out writes results.json, results.csv, PNG charts, report.md and report.html.",
        "Defaults take about 10 minutes on the s3-like profile; --full runs the reference sizes (a 3.5 GiB"
            + " sequential object, a 917 MB Parquet file, 1,000 small files, 2,000 partition directories:"
            + " about an hour, and over two with listing-recursive, whose 100,000-key prefix s3proxy lists"
            + " slowly; choose with --workloads)."})
final class BenchCommand implements Callable<Integer> {
  @ParentCommand
  SlipstreamCli cli;

  @Spec
  CommandSpec spec;

  /** --profile (order 10), --seed (30), --tmp-dir (40). */
  @Mixin
  LinkSetupOptions setup;

  @Option(names = "--readers", paramLabel = "LIST", split = ",", order = 11,
      description = "Readers to compare, comma-separated, in the order they alternate: s3a-classic, s3a-prefetch,"
          + " s3a-analytics, slipstream, slipstream-core. Default: all.")
  List<String> readers;

  @Option(names = "--workloads", paramLabel = "LIST", split = ",", order = 12,
      description = "Workloads to run, comma-separated: sequential, sequential-plain-open, sequential-warm,"
          + " parquet-full, parquet-projected, orc-full, orc-projected, random, small-files, small-files-open, listing, listing-per-dir, listing-glob, listing-recursive,"
          + " first-read, re-read; sequential-unhedged and parquet-full-unhedged (Slipstream with hedged"
          + " requests off, to compare on --profile heavy-tail), re-read-no-memory-cache (Slipstream with"
          + " cache.memory=false: its re-read from the disk cache), sequential-whole-blocks (Slipstream with"
          + " fetch.part.min=1G: one GET a block, to compare on --profile loopback), cluster-first, cluster-reread and"
          + " cluster-reread-killed (the shared tier: two hosts and three real memcached servers, which must be"
          + " installed); and spark-sql (real Spark from PyPI, run by"
          + " slipstream-bench/spark/run_spark_sql.py: needs python3 and a download of Spark). Default: all but"
          + " the Slipstream variants and spark-sql. many-objects (the heap a client keeps per distinct object"
          + " read: 10,000 small Parquet objects through one client, heap after GC every twentieth; one run per"
          + " reader, several minutes each) runs only when named.")
  List<String> workloads;

  @Option(names = "--full", order = 13,
      description = "Reference sizes: 3.5 GiB sequential object, 917 MB Parquet file in about 16 row groups, 200"
          + " random reads, 1,000 small files of 256 KiB, 100,000 objects for many-objects.")
  boolean full;

  @Option(names = "--out", paramLabel = "DIR", order = 14,
      description = "Write results.json, results.csv, the PNG charts, report.md and report.html (one self-contained"
          + " file) into DIR.")
  Path out;

  @Option(names = "--baseline", paramLabel = "DIR", order = 14,
      description = "A previous run's --out directory (or its results.json): the reports add the change against it"
          + " per workload and reader, called real only outside both runs' min-max spread.")
  Path baseline;

  @Option(names = "--report-from", paramLabel = "DIR", order = 14,
      description = "Do not run the benchmark: write the reports into --out again from DIR's results.json (a"
          + " previous --out directory), e.g. with --baseline. No figure changes.")
  Path reportFrom;

  @Option(names = "--runs", paramLabel = "N", defaultValue = "3", order = 15,
      description = "Measured runs per reader and workload. Default: ${DEFAULT-VALUE}.")
  int runs;

  @Option(names = "--warmup", paramLabel = "N", defaultValue = "1", order = 16,
      description = "Unmeasured warm-up runs per reader and workload. Default: ${DEFAULT-VALUE}.")
  int warmups;

  @Option(names = "--sequential-size", paramLabel = "SIZE", order = 17,
      description = "Size of the sequential (and random-read) object, e.g. 1G. Default: 128M, --full 3584M.")
  String sequentialSize;

  @Option(names = "--parquet-size", paramLabel = "SIZE", order = 18,
      description = "Approximate size of the Parquet file. Default: 48M, --full 917 MB.")
  String parquetSize;

  @Option(names = "--random-reads", paramLabel = "N", order = 19,
      description = "Positional reads per random run. Default: 16, --full 200.")
  Integer randomReads;

  @Option(names = "--small-files", paramLabel = "N", order = 20,
      description = "Objects of the small-files workload. Default: 64, --full 1000.")
  Integer smallFiles;

  @Option(names = "--many-objects", paramLabel = "N", order = 21,
      description = "Objects of the many-objects workload. Default: 10000, --full 100000.")
  Integer manyObjects;

  @Option(names = "--set", paramLabel = "KEY=VALUE", order = 22,
      description = "A Slipstream setting for both Slipstream readers, its key as in docs/configuration.md"
          + " without a prefix, e.g. --set block.size=16M; repeatable. The readers' descriptions in the report"
          + " say default settings; the command line in it shows these. Not with the cluster-* workloads or spark-sql.")
  java.util.Map<String, String> settings;

  @Option(names = "--debug", order = 41, description = "Print stack traces of errors.")
  boolean debug;

  @Override
  public Integer call() throws Exception {
    ResultsJson.Loaded previous = baseline == null ? null : readResults(baseline, "--baseline");
    if (reportFrom != null) {
      return rerender(previous);
    }
    LinkProfile link = setup.link();
    BenchSizes sizes = full ? BenchSizes.full() : BenchSizes.defaults();
    try {
      if (sequentialSize != null) {
        sizes = sizes.withSequentialBytes(Sizes.parse(sequentialSize));
      }
      if (parquetSize != null) {
        sizes = sizes.withParquetBytes(Sizes.parse(parquetSize));
      }
      if (randomReads != null) {
        sizes = sizes.withRandomReads(randomReads);
      }
      if (smallFiles != null) {
        sizes = sizes.withSmallFiles(smallFiles);
      }
      if (manyObjects != null) {
        sizes = sizes.withManyObjects(manyObjects);
      }
    } catch (IllegalArgumentException e) {
      throw new UsageException(e.getMessage());
    }
    Path base = setup.baseDir();
    List<String> chosen = workloads == null ? Benchmark.workloadNames() : trimmed(workloads);
    boolean sparkSql = chosen.contains(SPARK_SQL);
    List<String> inJvm = chosen.stream().filter(w -> !w.equals(SPARK_SQL)).toList();
    if (sparkSql && settings != null && !settings.isEmpty()) {
      throw new UsageException("--set cannot be given to " + SPARK_SQL + ": its Spark runs Slipstream with its"
          + " harness's settings; run it without --set");
    }
    Path sparkHarness = sparkSql ? sparkHarness() : null;
    if (inJvm.isEmpty()) {
      return runSparkSql(sparkHarness, link);
    }
    BenchOptions options;
    try {
      options = new BenchOptions(link, readers == null ? Benchmark.readerNames() : trimmed(readers), inJvm, sizes,
          warmups, runs, setup.seed, base, commandLine(), settings == null ? java.util.Map.of() : settings);
    } catch (IllegalArgumentException e) {
      throw new UsageException(e.getMessage());
    }

    PrintStream err = cli.stderr();
    long t0 = System.nanoTime();
    Results results = Benchmark.run(options, err);
    PrintStream stdout = cli.stdoutText();
    stdout.println();
    stdout.print(Report.table(results));
    stdout.printf(Locale.ROOT, "The benchmark took %.1f minutes.%n", (System.nanoTime() - t0) / 60e9);
    writeReports(results, previous, stdout);
    List<String> wrong = new ArrayList<>();
    for (Result r : results.rows()) {
      if (Result.WRONG_BYTES.equals(r.status())) {
        wrong.add(r.reader() + " on " + r.workload());
      }
    }
    if (!wrong.isEmpty()) {
      err.println("slipstream: wrong bytes read by " + String.join(", ", wrong));
      return Errors.IO;
    }
    return sparkSql ? runSparkSql(sparkHarness, link) : Errors.OK;
  }

  /** The workload run by the Python harness, outside this JVM: Spark distributions bring their own. */
  static final String SPARK_SQL = "spark-sql";
  /** The newest Spark the harness knows: the spark-sql workload runs on it. */
  static final String NEWEST_SPARK = "4.3.0";

  /**
   * The spark-sql harness of the source tree bin/slipstream runs from ({@code slipstream.source}), or of
   * the one the working directory is in.
   */
  private static Path sparkHarness() throws UsageException {
    Path rel = Path.of("slipstream-bench", "spark", "run_spark_sql.py");
    String source = System.getProperty("slipstream.source");
    if (source != null && Files.isRegularFile(Path.of(source).resolve(rel))) {
      return Path.of(source).resolve(rel).toAbsolutePath();
    }
    for (Path d = Path.of("").toAbsolutePath(); d != null; d = d.getParent()) {
      if (Files.isRegularFile(d.resolve(rel))) {
        return d.resolve(rel);
      }
    }
    throw new UsageException("the spark-sql workload runs " + rel + " of a Slipstream source tree; run it from"
        + " inside one, or with bin/slipstream, or run that script directly");
  }

  /**
   * Runs the spark-sql workload: S3A classic, S3A analytics and Slipstream querying a partitioned Parquet
   * table, as Spark writes it and as pyarrow does, through Spark {@value #NEWEST_SPARK} (pyspark from PyPI,
   * with the Hadoop it ships), cold, one job each, beside the same queries over the table's copy on local
   * disk (the reader local-disk: the I/O-free limit); its tables (times, and each job's CPU seconds,
   * vcore-seconds and GB-seconds of heap against S3A classic's) go to standard output, its JSON lines to
   * {@code --out DIR/spark-sql.jsonl}.
   */
  private int runSparkSql(Path harness, LinkProfile link) throws Exception {
    Path root = harness.getParent().getParent().getParent();
    List<String> cmd = new ArrayList<>(List.of("python3", harness.toString(), "--spark", NEWEST_SPARK,
        "--readers", "classic,analytics,slipstream,local-disk", "--profile", link.name()));
    if (out != null) {
      Files.createDirectories(out);
      cmd.add("--out");
      cmd.add(out.toAbsolutePath().resolve("spark-sql.jsonl").toString());
    }
    cli.stderr().println("spark-sql: " + String.join(" ", cmd));
    Process p;
    try {
      p = new ProcessBuilder(cmd).directory(root.toFile()).inheritIO().start();
    } catch (java.io.IOException e) {
      throw new java.io.IOException("spark-sql: cannot start python3 (" + e.getMessage() + "); it needs Python 3",
          e);
    }
    int rc = p.waitFor();
    if (rc != 0) {
      cli.stderr().println("slipstream: the spark-sql workload failed (exit " + rc + "; see above)");
      return Errors.IO;
    }
    return Errors.OK;
  }

  /** {@code --report-from}: the reports of an earlier run, written again; no benchmark runs. */
  private int rerender(ResultsJson.Loaded base) throws Exception {
    if (out == null) {
      throw new UsageException("--report-from needs --out DIR, where the reports go");
    }
    Path from = Files.isDirectory(reportFrom) ? reportFrom : reportFrom.toAbsolutePath().getParent();
    if (from != null && Files.isDirectory(out) && Files.isSameFile(from, out)) {
      throw new UsageException("--out must be another directory than --report-from's: its files would be overwritten");
    }
    ResultsJson.Loaded loaded = readResults(reportFrom, "--report-from");
    if (!loaded.missing().isEmpty()) {
      cli.stderr().println("slipstream: " + loaded.file() + " is older and lacks " + String.join(", ",
          loaded.missing()) + "; the reports say so");
    }
    PrintStream stdout = cli.stdoutText();
    stdout.print(Report.table(loaded.results()));
    writeReports(loaded.results(), base, stdout);
    // the run's own results.json, as it was: an older one is not completed with stand-in values
    Files.copy(loaded.file(), out.resolve(ReportFiles.JSON), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
    return Errors.OK;
  }

  private void writeReports(Results results, ResultsJson.Loaded base, PrintStream stdout) throws Exception {
    Comparison comparison = base == null ? null : Comparison.of(results, base, baseline.toString());
    if (comparison != null) {
      long better = comparison.changes().stream().filter(c -> c.verdict() == Comparison.Verdict.BETTER).count();
      long worse = comparison.changes().stream().filter(c -> c.verdict() == Comparison.Verdict.WORSE).count();
      stdout.println("Against the baseline " + baseline + ": " + better + " real improvements, " + worse
          + " real regressions (outside both runs' min-max spread); the rest is noise or not comparable."
          + (comparison.differences().isEmpty() ? "" : " Its conditions differ: "
              + String.join("; ", comparison.differences()) + "."));
    }
    if (out != null) {
      List<Path> written = ReportFiles.write(results, comparison, out);
      stdout.println("Wrote " + written.size() + " files into " + out + ": "
          + String.join(", ", written.stream().map(p -> p.getFileName().toString()).toList()));
    }
    stdout.flush();
  }

  private static ResultsJson.Loaded readResults(Path path, String option) throws Exception {
    try {
      return ResultsJson.read(path);
    } catch (java.nio.file.NoSuchFileException e) {
      throw new UsageException(option + ": no results.json in " + path);
    } catch (java.io.IOException e) {
      throw new UsageException(option + ": " + e.getMessage());
    }
  }

  private static List<String> trimmed(List<String> names) {
    return names.stream().map(String::trim).filter(s -> !s.isEmpty()).toList();
  }

  private String commandLine() {
    List<String> args = spec.commandLine().getParseResult().originalArgs();
    return "bin/slipstream " + String.join(" ", args);
  }
}
