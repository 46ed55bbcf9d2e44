/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.cli;

import dev.slipstream.Counter;
import dev.slipstream.S3Clients;
import dev.slipstream.S3Location;
import dev.slipstream.Slipstream;
import dev.slipstream.SlipstreamConfig;
import dev.slipstream.SlipstreamInputStream;
import dev.slipstream.testkit.EmbeddedS3Server;
import dev.slipstream.testkit.LinkProfile;
import dev.slipstream.testkit.LinkShaper;
import dev.slipstream.testkit.TestData;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;
import software.amazon.awssdk.core.ResponseInputStream;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;

/**
 * {@code slipstream demo}: the difference prefetching makes, on this machine, with nothing to set up.
 * An S3 server runs in this JVM over a temporary directory, behind a link shaper that gives the
 * loopback link S3's latency and per-connection bandwidth; the same object is copied to a local file
 * with Slipstream and with one plain GET stream, both copies are checked byte for byte, and the two
 * throughputs are compared.
 */
@Command(name = "demo", mixinStandardHelpOptions = true, sortOptions = false,
    description = {
        "Compare Slipstream with a plain GET stream on a simulated S3 link.",
        "Starts an S3 server inside this JVM behind a link shaper that makes the loopback link behave"
            + " like S3, writes a test object, and copies it to a local temp file twice: with Slipstream,"
            + " then with one plain GET stream. Both copies are verified byte for byte and their speeds"
            + " compared. Needs about twice --size of free space in the temp directory; everything is"
            + " deleted at the end."})
final class DemoCommand implements Callable<Integer> {
  static final String BUCKET = "slipstream-demo";

  @ParentCommand
  SlipstreamCli cli;

  @Option(names = "--size", paramLabel = "SIZE", defaultValue = "512M", order = 1,
      description = "Size of the test object, with K, M or G suffixes (powers of 1024). Default: ${DEFAULT-VALUE}.")
  String size;

  /** --profile (order 10), --seed (30), --tmp-dir (40). */
  @Mixin
  LinkSetupOptions setup;

  @Option(names = {"-q", "--quiet"}, order = 41, description = "No progress bars.")
  boolean quiet;

  @Option(names = "-D", paramLabel = "key=value", order = 42,
      description = "Change a Slipstream setting for the demo, e.g. -D block.size=16M (default: Slipstream's"
          + " defaults). The endpoint and credentials are the demo's own.")
  List<String> settings = new ArrayList<>();

  @Option(names = "--debug", order = 43, description = "Print stack traces of errors and Slipstream's debug log.")
  boolean debug;

  /** One copy: bytes, time, and for Slipstream its request counts; or why a plain stream failed. */
  private record Result(long bytes, long nanos, long gets, long retries, String failure) {
    double megabytesPerSecond() {
      return Sizes.megabytesPerSecond(bytes, nanos);
    }
  }

  @Override
  public Integer call() throws Exception {
    long bytes;
    try {
      bytes = Sizes.parse(size);
    } catch (IllegalArgumentException e) {
      throw new UsageException("--size '" + size + "' is invalid: " + e.getMessage());
    }
    if (bytes <= 0) {
      throw new UsageException("--size must be at least 1 byte");
    }
    LinkProfile link = setup.link();
    // Check the -D settings before starting anything.
    SlipstreamConfig.Builder userSettings = S3Options.checkedSettings(settings);

    Path work = Files.createTempDirectory(setup.baseDir(), "slipstream-demo-");
    Thread cleanup = new Thread(() -> deleteTree(work), "slipstream-demo-cleanup");
    boolean hooked = Transfer.addShutdownHook(cleanup);
    try {
      return run(bytes, link, userSettings, work);
    } finally {
      deleteTree(work);
      if (hooked) {
        Transfer.removeShutdownHook(cleanup);
      }
    }
  }

  private int run(long bytes, LinkProfile link, SlipstreamConfig.Builder userSettings, Path work) throws Exception {
    PrintStream out = cli.stdoutText();
    Path data = work.resolve("s3");
    try (EmbeddedS3Server server = EmbeddedS3Server.start(data);
         LinkShaper shaper = LinkShaper.start(server.endpoint(), link, setup.seed)) {
      SlipstreamConfig config = S3Options.embedded(userSettings, shaper.endpoint());

      out.println("Slipstream demo: one object read from S3 twice, with Slipstream and with one plain GET stream.");
      out.printf("  S3 server    s3proxy inside this JVM at %s, data in %s%n", server.endpoint(), data);
      out.printf("  Link shaper  %s, in front of the server, profile '%s':%n", shaper.endpoint(), link.name());
      List<String> shape = describe(link);
      out.printf("               %s,%n", shape.get(0));
      out.printf("               %s%n", String.join(", ", shape.subList(1, shape.size())));
      out.printf("  Slipstream   %s blocks, prefetching up to %d blocks ahead, %d fetch threads (%s)%n",
          Sizes.binary(config.blockSize()), config.prefetchBlocks(), config.fetchThreads(),
          settings.isEmpty() ? "its defaults" : "its defaults changed by -D");
      out.println("  One GET      a single GET streamed into the file, as a plain stream reader does");
      out.println("Both copies go through the link shaper into a local temp file and are checked byte for byte.");
      out.println();

      server.createBucket(BUCKET);
      S3Location location = new S3Location(BUCKET, "demo-" + Sizes.binary(bytes).replace(" ", "") + ".bin");
      out.printf("Writing the test object %s (%s) ... ", location, Sizes.binary(bytes));
      out.flush();
      long t0 = System.nanoTime();
      server.putGenerated(BUCKET, location.key(), setup.seed, bytes);
      out.printf("done in %s.%n", Sizes.seconds(System.nanoTime() - t0));

      try (S3Client s3 = S3Clients.create(config)) {
        // Load and initialise the SDK's classes once, so that neither timed copy pays for it.
        s3.headObject(h -> h.bucket(location.bucket()).key(location.key()));

        out.printf("[1/2] Slipstream: copying %s ...%n", location);
        out.flush();
        Path slipFile = work.resolve("copy-slipstream.bin");
        Result slip = copyWithSlipstream(config, location, slipFile);
        verify(slipFile, bytes, "Slipstream");
        Transfer.deleteQuietly(slipFile);

        out.printf("[2/2] One GET stream: copying %s ...%n", location);
        out.flush();
        Path plainFile = work.resolve("copy-one-get.bin");
        Result plain = copyWithOneGet(s3, location, plainFile, bytes, link);
        if (plain.failure() == null) {
          verify(plainFile, bytes, "one GET stream");
        }
        Transfer.deleteQuietly(plainFile);
        out.println(plain.failure() == null
            ? "Both copies verified: every byte matches the object."
            : "The Slipstream copy verified: every byte matches the object.");
        out.println();

        out.printf(Locale.ROOT, "Slipstream:     %s in %.1f s = %.1f MB/s (%s, %s)%n", Sizes.binary(slip.bytes()),
            slip.nanos() / 1e9, slip.megabytesPerSecond(), Sizes.plural(slip.gets(), "GET", "GETs"),
            Sizes.plural(slip.retries(), "retry", "retries"));
        if (plain.failure() != null) {
          out.printf("One GET stream: failed after %s: %s%n", Sizes.binary(plain.bytes()), plain.failure());
          out.println("A single GET stream has nothing to fall back on when the link fails; Slipstream retries"
              + " each block from the last byte received.");
        } else {
          out.printf(Locale.ROOT, "One GET stream: %s in %.1f s = %.1f MB/s%n", Sizes.binary(plain.bytes()),
              plain.nanos() / 1e9, plain.megabytesPerSecond());
          double ratio = slip.megabytesPerSecond() / plain.megabytesPerSecond();
          if (ratio >= 1) {
            out.printf(Locale.ROOT, "Slipstream was %.1fx faster.%n", ratio);
          } else {
            out.printf(Locale.ROOT, "Slipstream was %.1fx slower.%n", 1 / ratio);
          }
        }
        out.flush();
      }
    }
    return Errors.OK;
  }

  private Result copyWithSlipstream(SlipstreamConfig config, S3Location location, Path file) throws IOException {
    try (Slipstream client = Slipstream.builder().config(config).isolatedResources().build()) {
      long start = System.nanoTime();
      try (SlipstreamInputStream in = client.open(location)) {
        AtomicLong done = new AtomicLong();
        Progress progress = progress("Slipstream", in.length(), done);
        boolean ok = false;
        try (OutputStream o = Files.newOutputStream(file)) {
          Transfer.copy(in, o, done);
          ok = true;
        } finally {
          stop(progress, ok);
        }
        long nanos = System.nanoTime() - start;
        return new Result(done.get(), nanos, in.statistics().get(Counter.GET_REQUESTS),
            in.statistics().get(Counter.RETRIES), null);
      }
    }
  }

  /** The contrast: one GET for the whole object, its body streamed into the file with transferTo. */
  private Result copyWithOneGet(S3Client s3, S3Location location, Path file, long bytes, LinkProfile link)
      throws IOException {
    AtomicLong done = new AtomicLong();
    long start = System.nanoTime();
    Progress progress = progress("One GET   ", bytes, done);
    boolean ok = false;
    try (ResponseInputStream<GetObjectResponse> in = s3.getObject(g -> g.bucket(location.bucket()).key(location.key()));
         OutputStream o = new Transfer.CountingOutputStream(Files.newOutputStream(file), done)) {
      in.transferTo(o);
      ok = true;
    } catch (IOException | SdkException e) {
      if (link.faultProbability() > 0) {
        // The link is made to fail; a plain stream failing on it is part of what the demo shows.
        return new Result(done.get(), System.nanoTime() - start, 1, 0, Errors.report(e).message());
      }
      throw e;
    } finally {
      stop(progress, ok);
    }
    return new Result(done.get(), System.nanoTime() - start, 1, 0, null);
  }

  private Progress progress(String label, long total, AtomicLong done) {
    return quiet ? null : Progress.start(cli.stderr(), cli.terminal(), label, total, done::get);
  }

  private static void stop(Progress progress, boolean ok) {
    if (progress != null) {
      progress.stop(ok);
    }
  }

  /** Checks every byte of {@code file} against the generated object; a difference is an I/O error. */
  private void verify(Path file, long expectedSize, String what) throws IOException {
    long actualSize = Files.size(file);
    byte[] buf = new byte[Transfer.BUFFER_SIZE];
    long offset = 0;
    try (InputStream in = Files.newInputStream(file)) {
      int n;
      while ((n = in.readNBytes(buf, 0, (int) Math.min(buf.length, Math.max(0, expectedSize - offset)))) > 0) {
        long mismatch = TestData.firstMismatch(setup.seed, offset, buf, 0, n);
        if (mismatch >= 0) {
          throw new IOException("the " + what + " copy differs from the object at byte " + mismatch);
        }
        offset += n;
      }
    }
    if (actualSize != expectedSize) {
      throw new IOException("the " + what + " copy is " + actualSize + " bytes long, the object " + expectedSize);
    }
  }

  /** What {@code p} does, in words: its latency first, then bandwidth and faults. */
  static List<String> describe(LinkProfile p) {
    List<String> parts = new ArrayList<>();
    if (p.latencyMedianMillis() > 0) {
      parts.add("first-byte latency ~" + p.latencyMedianMillis() + " ms median per request (tail to "
          + p.latencyMaxMillis() + " ms)");
    } else {
      parts.add("no added latency");
    }
    if (p.tailProbability() > 0) {
      parts.add(Math.round(p.tailProbability() * 1000) / 10.0 + "% of requests wait " + p.tailMinMillis() + "-"
          + p.tailMaxMillis() + " ms for their first byte");
    }
    if (p.perConnectionBytesPerSecond() > 0) {
      parts.add(megabytes(p.perConnectionBytesPerSecond()) + " MB/s per connection");
    }
    if (p.aggregateBytesPerSecond() > 0) {
      parts.add(megabytes(p.aggregateBytesPerSecond()) + " MB/s in all");
    }
    if (p.perConnectionBytesPerSecond() == 0 && p.aggregateBytesPerSecond() == 0) {
      parts.add("no bandwidth limit");
    }
    if (p.faultProbability() > 0) {
      parts.add(String.format(Locale.ROOT, "%s%% of requests fail (reset, 503, 500, stall, truncated body)",
          trim(p.faultProbability() * 100)));
    } else {
      parts.add("no faults");
    }
    return parts;
  }

  private static String megabytes(long bytesPerSecond) {
    return trim(bytesPerSecond / 1e6);
  }

  private static String trim(double v) {
    return v == Math.rint(v) ? Long.toString((long) v) : String.format(Locale.ROOT, "%.1f", v);
  }

  static void deleteTree(Path dir) {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(dir)) {
      paths.sorted(Comparator.reverseOrder()).forEach(Transfer::deleteQuietly);
    } catch (IOException e) {
      // best effort: report nothing, a temp directory is cleaned by the system eventually
    }
  }
}
