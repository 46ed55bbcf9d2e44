/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.bench;

import dev.slipstream.testkit.ForkedS3Server;
import dev.slipstream.testkit.LinkShaper;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Stream;

/**
 * Runs one benchmark: starts the S3 server (s3proxy in a child JVM, objects as files in a temporary
 * directory) and the link shaper in front of it, puts every workload's data into the server, measures the
 * link capacity, checks that each reader can be set up, then runs the workloads one after another. For
 * each workload it runs warm-up rounds, then measured rounds; within a round every reader runs once, in
 * the same order (A B C D E, A B C D E, ...), so slow drifts of the machine touch every reader alike.
 * Progress goes to the given stream, one line per run.
 */
public final class Benchmark {
  static final String BUCKET = "slipstream-bench";

  private final BenchOptions options;
  private final PrintStream log;
  private final ResourceMeter meter = new ResourceMeter();

  private Benchmark(BenchOptions options, PrintStream log) {
    this.options = options;
    this.log = log;
  }

  /** The readers, in report order: s3a-classic, s3a-prefetch, s3a-analytics, slipstream, slipstream-core. */
  public static java.util.List<String> readerNames() {
    return Readers.names();
  }

  /** The workloads, in run order (see {@link Workloads#names()}). */
  public static java.util.List<String> workloadNames() {
    return Workloads.names();
  }

  /** Runs the benchmark {@code options} describe, logging progress to {@code log}. */
  public static Results run(BenchOptions options, PrintStream log) throws Exception {
    return new Benchmark(options, log).run();
  }

  private Results run() throws Exception {
    Instant started = Instant.now();
    long t0 = System.nanoTime();
    Path work = Files.createTempDirectory(options.tmpDir(), "slipstream-bench-");
    try {
      Path scratch = Files.createDirectories(work.resolve("scratch"));
      S3ProxyJar.configure();
      log.printf("Starting the S3 server (s3proxy in a child JVM) and the link shaper (profile %s) ...%n",
          options.profile().name());
      try (ForkedS3Server server = ForkedS3Server.start();
           LinkShaper shaper = LinkShaper.start(server.endpoint(), options.profile(), options.seed());
           Fixture fixture = new Fixture(new Uploader(server.endpoint(), BUCKET), options.seed(), options.sizes(), scratch)) {
        server.createBucket(BUCKET);
        RequestCounter counter = RequestCounter.attach(shaper, BUCKET);
        fixture.harnessHeap(() -> harnessHeap(shaper, counter));
        List<Workload> workloads = new ArrayList<>();
        for (String name : options.workloads()) {
          Workload w = Workloads.create(name);
          long u0 = System.nanoTime();
          log.printf("Putting the data of workload %s into the server ...%n", name);
          w.upload(fixture);
          log.printf("  done in %.1f s: %s%n", (System.nanoTime() - u0) / 1e9, w.description());
          workloads.add(w);
        }
        long range = options.sizes().linkRangeBytes();
        fixture.putGenerated(LinkCapacity.KEY, options.seed() + 1, range * LinkCapacity.PARALLEL);
        log.printf("Measuring the link capacity: %d parallel ranged GETs of %s, raw AWS SDK, into a null sink ...%n",
            LinkCapacity.PARALLEL, Report.binary(range));
        double capacity = LinkCapacity.measure(shaper.endpoint(), BUCKET, range);
        log.printf(Locale.ROOT, "  link capacity: %.1f MB/s%n", capacity);

        Target target = new Target(shaper.endpoint(), BUCKET);
        Map<String, String> unavailable = probeReaders(target);
        Runner runner = new Runner(target, fixture, shaper, counter);
        List<Result> rows = new ArrayList<>();
        for (int wi = 0; wi < workloads.size(); wi++) {
          Workload w = workloads.get(wi);
          log.printf("[%d/%d] %s: %s%n", wi + 1, workloads.size(), w.name(), w.description());
          Map<String, List<Measurement>> byReader = new LinkedHashMap<>();
          int warmups = w.measuredOnce() ? 0 : options.warmups();
          int runs = w.measuredOnce() ? 1 : options.runs();
          for (int round = 0; round < warmups + runs; round++) {
            boolean warmup = round < warmups;
            for (String name : options.readers()) {
              if (unavailable.containsKey(name) || w.notApplicable(name) != null) {
                continue;
              }
              String label = warmup ? String.format("warm-up %d/%d", round + 1, warmups)
                  : String.format("run %d/%d", round - warmups + 1, runs);
              Measurement m = runner.run(Readers.byName(name), w, warmup, label + " " + name);
              byReader.computeIfAbsent(name, k -> new ArrayList<>()).add(m);
              log.println("  " + Report.progressLine(label, m));
            }
          }
          for (String name : options.readers()) {
            if (w.notApplicable(name) != null) {
              rows.add(Aggregation.notApplicable(w.name(), name, w.notApplicable(name)));
              continue;
            }
            rows.add(unavailable.containsKey(name)
                ? Aggregation.unavailable(w.name(), name, unavailable.get(name))
                : Aggregation.row(w.name(), name, byReader.get(name), capacity));
          }
        }
        Map<String, String> readers = new LinkedHashMap<>();
        options.readers().forEach(r -> readers.put(r, Readers.byName(r).description()));
        Map<String, String> described = new LinkedHashMap<>();
        workloads.forEach(w -> described.put(w.name(), w.description()));
        return new Results(options.profile().name(), Report.describe(options.profile()), capacity, started,
            Duration.ofNanos(System.nanoTime() - t0), Report.machine(), options.command(), options.sizes(),
            options.warmups(), options.runs(), readers, described, Aggregation.withRatios(rows),
            Versions.ofThisBuild());
      }
    } finally {
      deleteTree(work);
    }
  }

  /**
   * Bytes the shaper holds for each client connection it relays: its two 64 KiB relay buffers (the client's
   * side and the buffered stream to the server) and two 8 KiB header buffers.
   */
  static final long SHAPER_BYTES_PER_CONNECTION = 144L << 10;

  /**
   * What the benchmark's own objects hold of the heap, for a workload that measures it: the link shaper's log
   * of recent requests (up to 10,000 with their headers, which nothing here reads) and its count of each
   * distinct request (about 80 bytes each: a reader that sends four ranged GETs an object would pay for it
   * four times) are dropped; the log of GET latencies and the shaper's buffers of the connections open now
   * are counted.
   */
  private static long harnessHeap(LinkShaper shaper, RequestCounter counter) {
    shaper.clearRequestLog();
    shaper.forgetRequestCounts();
    return counter.retainedBytes() + shaper.openClientConnections() * SHAPER_BYTES_PER_CONNECTION;
  }

  /** Sets up each reader once; one that cannot be set up is reported with the reason, never dropped. */
  private Map<String, String> probeReaders(Target target) {
    Map<String, String> unavailable = new LinkedHashMap<>();
    for (String name : options.readers()) {
      try (ReadSession s = Readers.byName(name).open(target)) {
        s.stat(LinkCapacity.KEY);
      } catch (Exception | LinkageError e) {
        String reason = Report.reason(e);
        unavailable.put(name, reason);
        log.printf("Reader %s cannot run: %s%n", name, reason);
      }
    }
    return unavailable;
  }

  /** How often a run still going says so. */
  static final long TICK_MILLIS = 10_000;

  /** Runs one reader on one workload once: fresh session, measured, closed, checked. */
  private final class Runner {
    private final Target target;
    private final Fixture fixture;
    private final LinkShaper shaper;
    private final RequestCounter counter;

    Runner(Target target, Fixture fixture, LinkShaper shaper, RequestCounter counter) {
      this.target = target;
      this.fixture = fixture;
      this.shaper = shaper;
      this.counter = counter;
    }

    Measurement run(Reader reader, Workload workload, boolean warmup, String what) {
      ReadSession session;
      Workload.Run run;
      try {
        java.util.Map<String, String> settings = new java.util.HashMap<>(options.slipstreamSettings());
        settings.putAll(workload.slipstreamSettings()); // a variant's own setting is what it measures
        session = reader.open(target, settings);
      } catch (Exception | LinkageError e) {
        return Measurement.failed(workload.name(), reader.name(), warmup, "set-up: " + Report.reason(e));
      }
      try {
        run = workload instanceof Workload.TwoHosts two
            ? two.prepare(reader.name(), target, session, fixture, log)
            : workload.prepare(session, fixture);
      } catch (Exception | LinkageError e) {
        closeQuietly(session);
        return Measurement.failed(workload.name(), reader.name(), warmup, "set-up: " + Report.reason(e));
      }
      ResourceMeter.Window window = meter.start(workload.readerThreadCpu());
      RequestCounter.Counts before = counter.snapshot();
      int latencyMark = counter.latencyMark();
      long sentBefore = shaper.bytesSent();
      long t0 = System.nanoTime();
      long used = 0;
      String error = null;
      try (RunTicker ticker = RunTicker.start(log, what, TICK_MILLIS, () -> shaper.bytesSent() - sentBefore)) {
        used = run.execute();
      } catch (Exception | LinkageError | OutOfMemoryError e) {
        error = Report.reason(e);
      }
      long nanos = System.nanoTime() - t0;
      ResourceMeter.Reading resources = window.stop();
      closeQuietly(session);
      RequestCounter.Counts requests = counter.snapshot().minus(before);
      long fetched = shaper.bytesSent() - sentBefore;
      String mismatch = null;
      if (error == null) {
        try {
          mismatch = run.verify();
        } catch (Exception e) {
          mismatch = "cannot check the bytes read: " + Report.reason(e);
        }
      }
      return new Measurement(workload.name(), reader.name(), warmup, nanos, used, fetched, requests,
          counter.latenciesSince(latencyMark), resources, error, mismatch, error == null ? run.heapCurve() : null);
    }

    private void closeQuietly(ReadSession session) {
      try {
        session.close();
      } catch (Exception e) {
        log.println("  (closing " + session + " failed: " + Report.reason(e) + ")");
      }
    }
  }

  private static void deleteTree(Path dir) {
    try (Stream<Path> paths = Files.walk(dir)) {
      paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException e) {
      // best effort
    }
  }
}
