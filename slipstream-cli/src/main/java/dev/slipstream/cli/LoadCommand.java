/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.cli;

import dev.slipstream.OpenOptions;
import dev.slipstream.ReadPolicy;
import dev.slipstream.ReadStatistics;
import dev.slipstream.RetryCause;
import dev.slipstream.S3Location;
import dev.slipstream.Slipstream;
import dev.slipstream.SlipstreamConfig;
import dev.slipstream.SlipstreamInputStream;
import dev.slipstream.testkit.EmbeddedS3Server;
import dev.slipstream.testkit.LinkProfile;
import dev.slipstream.testkit.LinkShaper;
import dev.slipstream.testkit.TestData;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import org.HdrHistogram.Histogram;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;

/**
 * {@code slipstream load}: synthetic load on one Slipstream client. An S3 server runs in this JVM behind
 * a link shaper (as for {@code demo}), holding one large object and many small ones of known bytes;
 * {@code --streams} threads then read them in a mix of ways, each read checked byte for byte, until
 * {@code --duration} or {@code --count} is reached. A progress line shows what is going on; the final
 * table gives, per kind of read, reads, MB/s and latency percentiles, then errors by cause and retries.
 * Exits 1 if any byte read was wrong.
 */
@Command(name = "load", mixinStandardHelpOptions = true, sortOptions = false,
    description = {
        "Put synthetic read load on Slipstream and report throughput, latency percentiles and errors.",
        "Starts an S3 server inside this JVM behind a link shaper, writes test objects of known bytes, and"
            + " runs --streams readers over them until --duration or --count: sequential reads of a large"
            + " object, random reads in it, footer-then-ranges reads (as a Parquet reader makes), and whole"
            + " small files. Every byte read is checked; the exit status is 1 if any was wrong."})
final class LoadCommand implements Callable<Integer> {
  static final String BUCKET = "slipstream-load";
  static final int SMALL_FILES = 64;
  static final int SMALL_SIZE = 256 * 1024;
  static final List<String> KINDS = List.of("sequential", "random", "footer", "small");

  @ParentCommand
  SlipstreamCli cli;

  @Option(names = "--profile", paramLabel = "PROFILE", defaultValue = "s3-like", order = 1,
      description = "Link profile: s3-like, flaky (s3-like with 2%% of requests failing) or loopback."
          + " Default: ${DEFAULT-VALUE}.")
  String profile;

  @Option(names = "--streams", paramLabel = "N", defaultValue = "8", order = 2,
      description = "Readers at once, each on its own thread. Default: ${DEFAULT-VALUE}.")
  int streams;

  @Option(names = "--duration", paramLabel = "DURATION", defaultValue = "30s", order = 3,
      description = "How long to read, e.g. 30s or 10m. Default: ${DEFAULT-VALUE}.")
  String duration;

  @Option(names = "--count", paramLabel = "N", defaultValue = "0", order = 4,
      description = "Stop after this many reads in all (0: only --duration stops). Default: ${DEFAULT-VALUE}.")
  long count;

  @Option(names = "--mix", paramLabel = "LIST", split = ",", order = 5,
      description = "Kinds of read, taken in turn: sequential, random, footer, small. Default: all.")
  List<String> mix;

  @Option(names = "--size", paramLabel = "SIZE", defaultValue = "64M", order = 6,
      description = "Size of the large object. Default: ${DEFAULT-VALUE}.")
  String size;

  @Option(names = "--seed", paramLabel = "N", defaultValue = "20240917", order = 7,
      description = "Seed of the data, of the readers' offsets and of the shaper's draws. Default: ${DEFAULT-VALUE}.")
  long seed;

  @Option(names = "--tmp-dir", paramLabel = "DIR", order = 8,
      description = "Directory for the server's data (default: the system temp directory).")
  Path tmpDir;

  @Option(names = "--soak", order = 9,
      description = "Also sample heap (after a GC), threads, open files and the memory pool every"
          + " --sample-interval, and fail if any keeps growing or memory is left in use once every stream is"
          + " closed.")
  boolean soak;

  @Option(names = "--sample-interval", paramLabel = "DURATION", defaultValue = "60s", order = 10,
      description = "How often --soak samples. Default: ${DEFAULT-VALUE}.")
  String sampleInterval;

  @Option(names = "-D", paramLabel = "key=value", order = 11,
      description = "Change a Slipstream setting, e.g. -D memory.max=64M. The endpoint and credentials are the"
          + " load's own.")
  List<String> settings = new ArrayList<>();

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
  private final LongAdder wrongBytes = new LongAdder();
  private final AtomicLong firstWrong = new AtomicLong(-1);
  private volatile String wrongWhat;

  @Override
  public Integer call() throws Exception {
    LinkProfile link;
    long bytes;
    Duration limit;
    try {
      link = LinkProfile.named(profile);
      try {
        bytes = Sizes.parse(size);
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("--size '" + size + "' is invalid: " + e.getMessage());
      }
      limit = parseDuration(duration, "--duration");
      sampleEvery = parseDuration(sampleInterval, "--sample-interval");
    } catch (IllegalArgumentException e) {
      throw new UsageException(e.getMessage());
    }
    if (streams < 1 || streams > 1024) {
      throw new UsageException("--streams must be between 1 and 1024, not " + streams);
    }
    if (count < 0) {
      throw new UsageException("--count must be at least 0, not " + count);
    }
    if (bytes < 2L * 1024 * 1024) {
      throw new UsageException("--size '" + size + "' is too small: at least 2M, as the footer reads take 1 MiB"
          + " ranges of it");
    }
    List<String> kinds = mix == null ? KINDS : mix.stream().map(String::trim).toList();
    for (String k : kinds) {
      if (!KINDS.contains(k)) {
        throw new UsageException("unknown kind of read '" + k + "' in --mix; kinds: " + String.join(", ", KINDS));
      }
    }
    SlipstreamConfig.Builder userSettings = S3Options.checkedSettings(settings);
    kinds.forEach(k -> tallies.put(k, new Tally()));
    Path base = tmpDir != null ? tmpDir : Path.of(System.getProperty("java.io.tmpdir"));
    if (!Files.isDirectory(base)) {
      throw new java.nio.file.NoSuchFileException(base.toString(), null, "no such directory");
    }
    Path work = Files.createTempDirectory(base, "slipstream-load-");
    try {
      return run(link, bytes, limit, kinds, userSettings, work);
    } finally {
      DemoCommand.deleteTree(work);
    }
  }

  private int run(LinkProfile link, long bigSize, Duration limit, List<String> kinds,
      SlipstreamConfig.Builder userSettings, Path work) throws Exception {
    PrintStream out = cli.stdoutText();
    PrintStream err = cli.stderr();
    try (EmbeddedS3Server server = EmbeddedS3Server.start(work.resolve("s3"));
         LinkShaper shaper = LinkShaper.start(server.endpoint(), link, seed)) {
      SlipstreamConfig config = S3Options.embedded(userSettings, shaper.endpoint());
      server.createBucket(BUCKET);
      server.putGenerated(BUCKET, "big", seed, bigSize);
      for (int i = 0; i < SMALL_FILES; i++) {
        server.putGenerated(BUCKET, smallKey(i), seed + 1 + i, SMALL_SIZE);
      }
      out.printf("Slipstream load: %d readers for %s%s on the '%s' link, reads taken in turn: %s.%n", streams,
          Sizes.seconds(limit.toNanos()), count > 0 ? " or " + count + " reads" : "", link.name(),
          String.join(", ", kinds));
      out.printf("Data: one object of %s and %d of %s, every byte read checked.%n", Sizes.binary(bigSize),
          SMALL_FILES, Sizes.binary(SMALL_SIZE));
      try (Slipstream client = Slipstream.builder().config(config).isolatedResources().build()) {
        long t0 = System.nanoTime();
        long deadline = t0 + limit.toNanos();
        AtomicLong started = new AtomicLong();
        List<Thread> readers = new ArrayList<>();
        for (int r = 0; r < streams; r++) {
          int id = r;
          Thread t = new Thread(() -> readLoop(client, id, kinds, bigSize, deadline, started),
              "slipstream-load-" + r);
          t.setDaemon(true);
          readers.add(t);
          t.start();
        }
        ProgressLine progress = new ProgressLine(err, cli.terminal(), t0);
        progress.start();
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
        progress.stop();
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
    }
    if (wrongBytes.sum() > 0) {
      err.println("slipstream: wrong bytes read: " + wrongBytes.sum() + " reads, the first in " + wrongWhat
          + " at byte " + firstWrong.get());
      return Errors.IO;
    }
    return Errors.OK;
  }

  private static String smallKey(int i) {
    return String.format(Locale.ROOT, "small/part-%04d", i);
  }

  private void readLoop(Slipstream client, int id, List<String> kinds, long bigSize, long deadline,
      AtomicLong started) {
    Random random = new Random(seed * 31 + id);
    int turn = id;
    while (System.nanoTime() < deadline) {
      long n = started.incrementAndGet();
      if (count > 0 && n > count) {
        return;
      }
      String kind = kinds.get(turn++ % kinds.size());
      Tally tally = tallies.get(kind);
      long t0 = System.nanoTime();
      try {
        long read = switch (kind) {
          case "sequential" -> sequential(client, bigSize);
          case "random" -> random(client, bigSize, random);
          case "footer" -> footer(client, bigSize, random);
          default -> small(client, random.nextInt(SMALL_FILES));
        };
        tally.read(System.nanoTime() - t0);
        tally.bytes.add(read);
      } catch (IOException | RuntimeException e) {
        tally.errors.increment();
        errorsByCause.computeIfAbsent(e.getClass().getSimpleName(), k -> new LongAdder()).increment();
      }
    }
  }

  private S3Location big() {
    return new S3Location(BUCKET, "big");
  }

  private long sequential(Slipstream client, long size) throws IOException {
    byte[] buf = new byte[1 << 20];
    long pos = 0;
    try (SlipstreamInputStream in = client.open(big(), OpenOptions.length(size).withPolicy(ReadPolicy.SEQUENTIAL))) {
      int n;
      while ((n = in.read(buf, 0, buf.length)) > 0) {
        check("big", seed, pos, buf, n);
        pos += n;
      }
    }
    if (pos != size) {
      throw new IOException("read " + pos + " of " + size + " bytes of " + big());
    }
    return pos;
  }

  private long random(Slipstream client, long size, Random random) throws IOException {
    byte[] buf = new byte[64 * 1024];
    try (SlipstreamInputStream in = client.open(big(), OpenOptions.length(size).withPolicy(ReadPolicy.RANDOM))) {
      for (int i = 0; i < 8; i++) {
        long at = (long) (random.nextDouble() * (size - buf.length));
        in.readFully(at, buf, 0, buf.length);
        check("big", seed, at, buf, buf.length);
      }
    }
    return 8L * buf.length;
  }

  /** A Parquet reader's pattern: the last 64 KiB, then two 1 MiB ranges. */
  private long footer(Slipstream client, long size, Random random) throws IOException {
    byte[] tail = new byte[64 * 1024];
    byte[] range = new byte[1 << 20];
    try (SlipstreamInputStream in = client.open(big(), OpenOptions.length(size).withPolicy(ReadPolicy.RANDOM))) {
      in.readFully(size - tail.length, tail, 0, tail.length);
      check("big", seed, size - tail.length, tail, tail.length);
      for (int i = 0; i < 2; i++) {
        long at = (long) (random.nextDouble() * (size - tail.length - range.length));
        in.readFully(at, range, 0, range.length);
        check("big", seed, at, range, range.length);
      }
    }
    return tail.length + 2L * range.length;
  }

  private long small(Slipstream client, int i) throws IOException {
    try (SlipstreamInputStream in = client.open(new S3Location(BUCKET, smallKey(i)), OpenOptions.length(SMALL_SIZE))) {
      byte[] all = in.readAllBytes();
      if (all.length != SMALL_SIZE) {
        throw new IOException("read " + all.length + " of " + SMALL_SIZE + " bytes of " + smallKey(i));
      }
      check(smallKey(i), seed + 1 + i, 0, all, all.length);
      return all.length;
    }
  }

  private void check(String what, long dataSeed, long offset, byte[] b, int n) {
    long bad = TestData.firstMismatch(dataSeed, offset, b, 0, n);
    if (bad >= 0) {
      wrongBytes.increment();
      if (firstWrong.compareAndSet(-1, bad)) {
        wrongWhat = what;
      }
    }
  }

  private void report(PrintStream out, ReadStatistics stats, long nanos) {
    double seconds = nanos / 1e9;
    out.println();
    out.printf("%-11s %8s %10s %9s %9s %9s %9s %7s%n", "read", "reads", "MB", "MB/s", "p50 ms", "p99 ms",
        "p999 ms", "errors");
    long reads = 0;
    long allBytes = 0;
    long errors = 0;
    for (Map.Entry<String, Tally> e : tallies.entrySet()) {
      Tally t = e.getValue();
      long b = t.bytes.sum();
      out.printf(Locale.ROOT, "%-11s %8d %10.1f %9.1f %9.1f %9.1f %9.1f %7d%n", e.getKey(), t.reads(), b / 1e6,
          b / 1e6 / seconds, t.percentileMicros(50) / 1e3, t.percentileMicros(99) / 1e3,
          t.percentileMicros(99.9) / 1e3, t.errors.sum());
      reads += t.reads();
      allBytes += b;
      errors += t.errors.sum();
    }
    out.printf(Locale.ROOT, "%-11s %8d %10.1f %9.1f %29s %7d%n", "all", reads, allBytes / 1e6,
        allBytes / 1e6 / seconds, "", errors);
    out.printf(Locale.ROOT, "%.1f s; requests: %d GET, %d HEAD; retries: %s%n", seconds,
        stats.get(dev.slipstream.Counter.GET_REQUESTS), stats.get(dev.slipstream.Counter.HEAD_REQUESTS),
        retries(stats));
    if (!errorsByCause.isEmpty()) {
      StringBuilder b = new StringBuilder();
      errorsByCause.forEach((k, v) -> b.append(b.length() == 0 ? "" : ", ").append(k).append(' ').append(v.sum()));
      out.println("Reads that failed, by error: " + b);
    }
    out.printf(Locale.ROOT, "Bytes checked: %.1f MB; reads with wrong bytes: %d%n", allBytes / 1e6, wrongBytes.sum());
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

  /** A duration such as {@code 500ms}, {@code 30s}, {@code 10m} or {@code 2h}, for option {@code option}. */
  static Duration parseDuration(String text, String option) {
    java.util.regex.Matcher m = java.util.regex.Pattern.compile("(\\d{1,9})\\s*(ms|s|m|h)").matcher(text.trim());
    if (!m.matches()) {
      throw new IllegalArgumentException(option + " '" + text + "' is invalid: expected a duration such as 30s,"
          + " 10m or 2h");
    }
    long n = Long.parseLong(m.group(1));
    Duration d = switch (m.group(2)) {
      case "ms" -> Duration.ofMillis(n);
      case "s" -> Duration.ofSeconds(n);
      case "m" -> Duration.ofMinutes(n);
      default -> Duration.ofHours(n);
    };
    if (d.isZero()) {
      throw new IllegalArgumentException(option + " '" + text + "' must be longer than zero");
    }
    return d;
  }

  /** The live line: time, reads, MB/s so far, errors. Redrawn in place on a terminal, else every 5 s. */
  private final class ProgressLine {
    private final PrintStream err;
    private final boolean terminal;
    private final long t0;
    private final Thread thread;
    private volatile boolean stopped;

    ProgressLine(PrintStream err, boolean terminal, long t0) {
      this.err = err;
      this.terminal = terminal;
      this.t0 = t0;
      this.thread = new Thread(this::loop, "slipstream-load-progress");
      thread.setDaemon(true);
    }

    void start() {
      thread.start();
    }

    private void loop() {
      long interval = terminal ? 500 : 5_000;
      while (!stopped) {
        try {
          Thread.sleep(interval);
        } catch (InterruptedException e) {
          return;
        }
        if (!stopped) {
          draw();
        }
      }
    }

    private synchronized void draw() {
      long reads = 0;
      long bytes = 0;
      long errors = 0;
      for (Tally t : tallies.values()) {
        reads += t.reads();
        bytes += t.bytes.sum();
        errors += t.errors.sum();
      }
      double s = (System.nanoTime() - t0) / 1e9;
      String line = String.format(Locale.ROOT, "%6.1f s  %d reads  %.1f MB/s  %d errors  %d wrong", s, reads,
          bytes / 1e6 / s, errors, wrongBytes.sum());
      err.print(terminal ? "\r" + line : line + "\n");
      err.flush();
    }

    void stop() throws InterruptedException {
      stopped = true;
      thread.interrupt();
      thread.join(1_000);
      if (terminal) {
        draw();
        err.println();
      }
    }
  }
}
