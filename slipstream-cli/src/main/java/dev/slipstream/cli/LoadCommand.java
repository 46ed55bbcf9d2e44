/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.cli;

import dev.slipstream.ReadStatistics;
import dev.slipstream.RetryCause;
import dev.slipstream.Slipstream;
import dev.slipstream.SlipstreamConfig;
import dev.slipstream.metrics.PrometheusEndpoint;
import dev.slipstream.metrics.SlipstreamMetrics;
import dev.slipstream.testkit.EmbeddedS3Server;
import dev.slipstream.testkit.LinkProfile;
import dev.slipstream.testkit.LinkShaper;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import org.HdrHistogram.Histogram;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;

/**
 * {@code slipstream load}: synthetic load on one Slipstream client. By default an S3 server runs in this
 * JVM behind a link shaper (as for {@code demo}); with {@code --bucket} the load runs against a real
 * endpoint instead, writing its objects under a prefix and deleting them at the end. Either way it reads
 * one large object and many small ones of known bytes: {@code --streams} threads read them in a mix of
 * ways, closed-loop or at {@code --rate}, each read checked byte for byte, until {@code --duration} or
 * {@code --count} is reached. A progress line shows what is going on; the final table gives, per kind of
 * read, reads, MB/s and latency percentiles, then errors by cause and retries. Exits 1 if any byte read
 * was wrong.
 */
@Command(name = "load", mixinStandardHelpOptions = true, sortOptions = false,
    description = {
        "Put synthetic read load on Slipstream and report throughput, latency percentiles and errors.",
        "By default starts an S3 server inside this JVM behind a link shaper; with --bucket, runs against a real"
            + " endpoint (--endpoint, or AWS S3), writing its objects under --prefix and deleting them at the end."
            + " --streams readers read them until --duration or --count: sequential reads of a large object,"
            + " random reads in it, footer-then-ranges reads (as a Parquet reader makes), and whole small"
            + " files. Every byte read is checked; the exit status is 1 if any was wrong."})
final class LoadCommand implements Callable<Integer> {
  static final String BUCKET = "slipstream-load";
  static final List<String> KINDS = LoadReads.KINDS;

  @ParentCommand
  SlipstreamCli cli;

  /** --profile (order 10) and --tmp-dir (40), for the embedded server only; --seed (30). */
  @Mixin
  LinkSetupOptions setup;

  @Option(names = "--streams", paramLabel = "N", defaultValue = "8", order = 11,
      description = "Readers at once, each on its own thread. Default: ${DEFAULT-VALUE}.")
  int streams;

  @Option(names = "--duration", paramLabel = "DURATION", defaultValue = "30s", order = 12,
      description = "How long to read, e.g. 30s or 10m. Default: ${DEFAULT-VALUE}.")
  String duration;

  @Option(names = "--count", paramLabel = "N", defaultValue = "0", order = 13,
      description = "Stop after this many reads in all (0: only --duration stops). Default: ${DEFAULT-VALUE}.")
  long count;

  @Option(names = "--rate", paramLabel = "N", defaultValue = "0", order = 14,
      description = "Start reads at this many per second in all, whether earlier ones have finished or not (as long"
          + " as a reader is free); latency then counts from when a read was due. 0: each reader starts its next"
          + " read when its last one ends. Default: ${DEFAULT-VALUE}.")
  double rate;

  @Option(names = "--mix", paramLabel = "LIST", split = ",", order = 15,
      description = "Kinds of read, taken in turn: sequential, random, footer, small. Default: all.")
  List<String> mix;

  @Option(names = "--size", paramLabel = "SIZE", defaultValue = "64M", order = 16,
      description = "Size of the large object. Default: ${DEFAULT-VALUE}.")
  String size;

  @Option(names = "--bucket", paramLabel = "BUCKET", order = 31,
      description = "Run against this bucket of --endpoint (or AWS S3) instead of an embedded server. The load"
          + " writes its objects there (it needs write access) and deletes them at the end.")
  String bucket;

  @Option(names = "--prefix", paramLabel = "PREFIX", order = 32,
      description = "Where in --bucket the load's objects go. Default: slipstream-load/ and a random name.")
  String prefix;

  @Option(names = "--prometheus", paramLabel = "[HOST:]PORT", order = 33,
      description = "Serve the client's metrics for Prometheus at http://HOST:PORT/metrics while the load runs"
          + " (HOST: 127.0.0.1 unless given; PORT 0: any free port, printed).")
  String prometheus;

  @Option(names = "--soak", order = 41,
      description = "Also sample heap (after a GC), threads, open files and the memory pool every"
          + " --sample-interval, and fail if any keeps growing or memory is left in use once every stream is"
          + " closed.")
  boolean soak;

  @Option(names = "--sample-interval", paramLabel = "DURATION", defaultValue = "60s", order = 42,
      description = "How often --soak samples. Default: ${DEFAULT-VALUE}.")
  String sampleInterval;

  @Mixin
  S3Options s3;

  /** Reads of one kind: latency histogram (µs), bytes, errors. */
  private static final class Tally {
    private final Histogram micros = new Histogram(3_600_000_000L, 2);
    private final LongAdder bytes = new LongAdder();
    private final LongAdder errors = new LongAdder();

    synchronized void read(long nanos) {
      micros.recordValue(Math.min(3_600_000_000L, Math.max(0, nanos / 1000)));
    }

    synchronized long reads() {
      return micros.getTotalCount();
    }

    synchronized long percentileMicros(double p) {
      return micros.getTotalCount() == 0 ? 0 : micros.getValueAtPercentile(p);
    }
  }

  private final Map<String, Tally> tallies = new LinkedHashMap<>();
  private Duration sampleEvery;
  private final Map<String, LongAdder> errorsByCause = new ConcurrentHashMap<>();
  private LoadReads reads;

  @Override
  public Integer call() throws Exception {
    LinkProfile link;
    long bytes;
    Duration limit;
    InetSocketAddress scrapeAt;
    try {
      link = setup.link();
      try {
        bytes = Sizes.parse(size);
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("--size '" + size + "' is invalid: " + e.getMessage());
      }
      limit = duration(duration, "--duration");
      sampleEvery = duration(sampleInterval, "--sample-interval");
      scrapeAt = prometheus == null ? null : address(prometheus);
    } catch (IllegalArgumentException e) {
      throw new UsageException(e.getMessage());
    }
    if (streams < 1 || streams > 1024) {
      throw new UsageException("--streams must be between 1 and 1024, not " + streams);
    }
    if (count < 0) {
      throw new UsageException("--count must be at least 0, not " + count);
    }
    if (!(rate >= 0) || Double.isInfinite(rate)) {
      throw new UsageException("--rate must be a number of reads per second, at least 0, not " + rate);
    }
    if (bytes < 2L * 1024 * 1024) {
      throw new UsageException("--size '" + size + "' is too small: at least 2M, as the footer reads take 1 MiB"
          + " ranges of it");
    }
    if (bytes > LoadData.MAX_SIZE) {
      throw new UsageException("--size '" + size + "' is too large: at most 5G, what one PUT may write");
    }
    List<String> kinds = mix == null ? KINDS : mix.stream().map(String::trim).toList();
    for (String k : kinds) {
      if (!KINDS.contains(k)) {
        throw new UsageException("unknown kind of read '" + k + "' in --mix; kinds: " + String.join(", ", KINDS));
      }
    }
    kinds.forEach(k -> tallies.put(k, new Tally()));
    if (bucket != null) {
      if (setup.profile != null || setup.tmpDir != null) {
        throw new UsageException((setup.profile != null ? "--profile" : "--tmp-dir") + " is for the embedded server;"
            + " with --bucket the load runs against the real endpoint");
      }
      SlipstreamConfig config = s3.toConfig();
      String where = prefix != null ? prefix : "slipstream-load/" + UUID.randomUUID().toString().substring(0, 8) + "/";
      try (LoadData data = LoadData.external(config, bucket, where, bytes, setup.seed)) {
        return run(config, data, limit, kinds, scrapeAt,
            "against " + data.where() + config.endpoint().map(e -> " at " + e).orElse(""));
      }
    }
    if (s3.endpoint != null || s3.region != null || s3.pathStyle || prefix != null) {
      throw new UsageException("--endpoint, --region, --path-style and --prefix are for a real bucket: give"
          + " --bucket too");
    }
    SlipstreamConfig.Builder userSettings = S3Options.checkedSettings(s3.settings);
    Path work = Files.createTempDirectory(setup.baseDir(), "slipstream-load-");
    try (EmbeddedS3Server server = EmbeddedS3Server.start(work.resolve("s3"));
         LinkShaper shaper = LinkShaper.start(server.endpoint(), link, setup.seed)) {
      LoadData data = LoadData.embedded(server, BUCKET, bytes, setup.seed);
      return run(S3Options.embedded(userSettings, shaper.endpoint()), data, limit, kinds, scrapeAt,
          "on the '" + link.name() + "' link");
    } finally {
      DemoCommand.deleteTree(work);
    }
  }

  private int run(SlipstreamConfig config, LoadData data, Duration limit, List<String> kinds,
      InetSocketAddress scrapeAt, String where) throws Exception {
    PrintStream out = cli.stdoutText();
    PrintStream err = cli.stderr();
    out.printf("Slipstream load: %d readers for %s%s %s, reads taken in turn%s: %s.%n", streams,
        Sizes.seconds(limit.toNanos()), count > 0 ? " or " + count + " reads" : "", where,
        rate > 0 ? String.format(Locale.ROOT, " at %s a second", trim(rate)) : "", String.join(", ", kinds));
    out.printf("Data: one object of %s and %d of %s, every byte read checked.%n", Sizes.binary(data.bigSize()),
        LoadData.SMALL_FILES, Sizes.binary(LoadData.SMALL_SIZE));
    try (Slipstream client = Slipstream.builder().config(config).isolatedResources().build();
         PrometheusEndpoint scrape = scrapeAt == null ? null
             : PrometheusEndpoint.start(scrapeAt, new SlipstreamMetrics(client))) {
      if (scrape != null) {
        out.println("Prometheus metrics: " + scrape.uri());
        out.flush();
      }
      reads = new LoadReads(client, data);
      long t0 = System.nanoTime();
      long deadline = t0 + limit.toNanos();
      AtomicLong started = new AtomicLong();
      List<Thread> readers = new ArrayList<>();
      for (int r = 0; r < streams; r++) {
        int id = r;
        Thread t = new Thread(() -> readLoop(id, kinds, t0, deadline, started), "slipstream-load-" + r);
        t.setDaemon(true);
        readers.add(t);
        t.start();
      }
      // Redrawn in place on a terminal every 0.5 s, else a line every 5 s.
      Progress progress = Progress.start(err, cli.terminal(), 500, now -> progressLine(t0, now));
      Soak soakWatch = soak ? new Soak(client) : null;
      if (soakWatch != null) {
        soakWatch.sample(); // the baseline, with the readers just started
        while (readers.stream().anyMatch(Thread::isAlive)) {
          long next = System.nanoTime() + sampleEvery.toNanos();
          for (Thread t : readers) {
            t.join(Math.max(1, (next - System.nanoTime()) / 1_000_000));
          }
          if (System.nanoTime() >= next && readers.stream().anyMatch(Thread::isAlive)) {
            soakWatch.sample();
          }
        }
      }
      for (Thread t : readers) {
        t.join();
      }
      progress.stop(true);
      long nanos = System.nanoTime() - t0;
      report(out, client.statistics(), nanos);
      if (soakWatch != null) {
        String growth = soakWatch.report(out);
        if (growth != null) {
          err.println("slipstream: soak failed: " + growth);
          return Errors.IO;
        }
      }
    }
    if (reads.wrongReads() > 0) {
      err.println("slipstream: wrong bytes read: " + reads.wrongReads() + " reads, the first in " + reads.firstWrong());
      return Errors.IO;
    }
    return Errors.OK;
  }

  private static String trim(double d) {
    return d == Math.rint(d) ? Long.toString((long) d) : Double.toString(d);
  }

  /** {@code [HOST:]PORT} of --prometheus; the host is 127.0.0.1 unless given. */
  static InetSocketAddress address(String text) {
    int colon = text.lastIndexOf(':');
    String host = colon < 0 ? "127.0.0.1" : text.substring(0, colon).replaceAll("^\\[|\\]$", "");
    String port = colon < 0 ? text : text.substring(colon + 1);
    int p;
    try {
      p = Integer.parseInt(port.trim());
    } catch (NumberFormatException e) {
      p = -1;
    }
    if (p < 0 || p > 65535 || host.isBlank()) {
      throw new IllegalArgumentException("--prometheus '" + text + "' is invalid: expected [HOST:]PORT, e.g. 9464"
          + " or 0.0.0.0:9464");
    }
    return new InetSocketAddress(host, p);
  }

  /**
   * One reader: reads of each kind in turn until the deadline or the count. At a --rate, each read waits
   * for its turn in the schedule and its latency counts from then (so a slow store shows as latency, not
   * as fewer reads).
   */
  private void readLoop(int id, List<String> kinds, long t0, long deadline, AtomicLong started) {
    Random random = new Random(setup.seed * 31 + id);
    int turn = id;
    while (System.nanoTime() < deadline) {
      long n = started.incrementAndGet();
      if (count > 0 && n > count) {
        return;
      }
      long due = System.nanoTime();
      if (rate > 0) {
        due = t0 + (long) ((n - 1) * 1e9 / rate);
        if (due >= deadline) {
          return;
        }
        long wait = due - System.nanoTime();
        if (wait > 0) {
          java.util.concurrent.locks.LockSupport.parkNanos(wait);
        }
      }
      String kind = kinds.get(turn++ % kinds.size());
      Tally tally = tallies.get(kind);
      try {
        long read = reads.read(kind, random);
        tally.read(System.nanoTime() - due);
        tally.bytes.add(read);
      } catch (IOException | RuntimeException e) {
        tally.errors.increment();
        errorsByCause.computeIfAbsent(e.getClass().getSimpleName(), k -> new LongAdder()).increment();
      }
    }
  }

  private void report(PrintStream out, ReadStatistics stats, long nanos) {
    double seconds = nanos / 1e9;
    out.println();
    out.printf("%-11s %8s %10s %9s %9s %9s %9s %7s%n", "read", "reads", "MB", "MB/s", "p50 ms", "p99 ms",
        "p999 ms", "errors");
    long done = 0;
    long allBytes = 0;
    long errors = 0;
    for (Map.Entry<String, Tally> e : tallies.entrySet()) {
      Tally t = e.getValue();
      long b = t.bytes.sum();
      out.printf(Locale.ROOT, "%-11s %8d %10.1f %9.1f %9.1f %9.1f %9.1f %7d%n", e.getKey(), t.reads(), b / 1e6,
          b / 1e6 / seconds, t.percentileMicros(50) / 1e3, t.percentileMicros(99) / 1e3,
          t.percentileMicros(99.9) / 1e3, t.errors.sum());
      done += t.reads();
      allBytes += b;
      errors += t.errors.sum();
    }
    out.printf(Locale.ROOT, "%-11s %8d %10.1f %9.1f %29s %7d%n", "all", done, allBytes / 1e6,
        allBytes / 1e6 / seconds, "", errors);
    if (rate > 0) {
      out.printf(Locale.ROOT, "Rate: %.1f reads a second done, %s asked for%n", done / seconds, trim(rate));
    }
    out.printf(Locale.ROOT, "%.1f s; requests: %d GET, %d HEAD; retries: %s%n", seconds,
        stats.get(dev.slipstream.Counter.GET_REQUESTS), stats.get(dev.slipstream.Counter.HEAD_REQUESTS),
        retries(stats));
    dev.slipstream.LatencySummary firstByte = stats.latency(dev.slipstream.Latency.GET_FIRST_BYTE);
    out.printf(Locale.ROOT, "GET first byte, as the client waited for it: p50 %.1f ms, p99 %.1f ms, p999 %.1f ms;"
        + " hedged GETs: %d (%d answered first)%n", firstByte.p50Micros() / 1e3, firstByte.p99Micros() / 1e3,
        firstByte.p999Micros() / 1e3, stats.get(dev.slipstream.Counter.HEDGED_REQUESTS),
        stats.get(dev.slipstream.Counter.HEDGE_WINS));
    if (!errorsByCause.isEmpty()) {
      StringBuilder b = new StringBuilder();
      errorsByCause.forEach((k, v) -> b.append(b.length() == 0 ? "" : ", ").append(k).append(' ').append(v.sum()));
      out.println("Reads that failed, by error: " + b);
    }
    out.printf(Locale.ROOT, "Bytes checked: %.1f MB; reads with wrong bytes: %d%n", allBytes / 1e6, reads.wrongReads());
  }

  private static String retries(ReadStatistics stats) {
    StringBuilder b = new StringBuilder();
    for (RetryCause c : RetryCause.values()) {
      long n = stats.retries(c);
      if (n > 0) {
        b.append(b.length() == 0 ? "" : ", ").append(c.name().toLowerCase(Locale.ROOT)).append(' ').append(n);
      }
    }
    return b.length() == 0 ? "none" : b.toString();
  }

  /** The value of duration option {@code option}, as configuration keys take durations; above zero. */
  private static Duration duration(String text, String option) {
    try {
      return Sizes.parseDuration(text);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(option + " '" + text + "' is invalid: " + e.getMessage());
    }
  }

  /** The live line: time, reads, MB/s so far, errors. */
  private String progressLine(long t0, long now) {
    long done = 0;
    long bytes = 0;
    long errors = 0;
    for (Tally t : tallies.values()) {
      done += t.reads();
      bytes += t.bytes.sum();
      errors += t.errors.sum();
    }
    double s = (now - t0) / 1e9;
    return String.format(Locale.ROOT, "%6.1f s  %d reads  %.1f MB/s  %d errors  %d wrong", s, done,
        bytes / 1e6 / s, errors, reads.wrongReads());
  }
}
