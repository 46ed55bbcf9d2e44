/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.testkit;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

/**
 * An S3 server behind a shaped link, as a process of its own, for engines that run outside the JVM
 * of a test (a pyspark job, a spark-submit): s3proxy in a child JVM ({@link ForkedS3Server}, whose jar
 * the system property {@value ForkedS3Server#JAR_PROPERTY} names) with a {@link LinkShaper} in front.
 *
 * <p>Prints one line, {@code endpoint=<shaped> direct=<unshaped> access=<key> secret=<key>} (the
 * embedded server's fixed test keys), then keeps the link's counters in a
 * file ({@code bytes_sent requests gets heads}, rewritten every 50 ms and once more at the end) so that
 * a job can read what the link delivered around each query. Runs until its standard input ends, then
 * stops both servers. Everything listens on 127.0.0.1 only.
 *
 * <p>With {@code --requests FILE} it also writes a line per response relayed whole, as it ends: {@code
 * <start ms> <first byte ms> <end ms> <method> <path> <range or -> <status>} (times in milliseconds since
 * the epoch, the first byte's when the response's head was sent), to compare the requests of two readers.
 *
 * <p>Usage: {@code ShapedS3Main --profile s3-like|flaky|heavy-tail|loopback --stats FILE [--bucket NAME]
 * [--requests FILE]}
 */
public final class ShapedS3Main {
  private ShapedS3Main() {}

  public static void main(String[] args) throws Exception {
    LinkProfile profile = LinkProfile.S3_LIKE;
    Path stats = null;
    String bucket = null;
    Path requests = null;
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--profile" -> profile = LinkProfile.named(value(args, ++i));
        case "--stats" -> stats = Path.of(value(args, ++i));
        case "--bucket" -> bucket = value(args, ++i);
        case "--requests" -> requests = Path.of(value(args, ++i));
        default -> throw new IllegalArgumentException("unknown argument " + args[i]
            + "; usage: --profile s3-like|flaky|heavy-tail|loopback --stats FILE [--bucket NAME] [--requests FILE]");
      }
    }
    if (stats == null) {
      throw new IllegalArgumentException("--stats FILE is required");
    }
    try (ForkedS3Server server = ForkedS3Server.start();
        LinkShaper link = LinkShaper.start(server.endpoint(), profile, 42)) {
      if (bucket != null) {
        server.createBucket(bucket);
      }
      PrintWriter requestLog = requests == null ? null
          : new PrintWriter(Files.newBufferedWriter(requests, StandardCharsets.UTF_8), true);
      if (requestLog != null) {
        link.onResponse((request, status, firstByteNanos, totalNanos) -> {
          long end = System.currentTimeMillis();
          long start = end - totalNanos / 1_000_000;
          String range = request.range() == null ? "-" : request.range().replace(' ', '_');
          synchronized (requestLog) {
            requestLog.println(start + " " + (start + firstByteNanos / 1_000_000) + " " + end + " "
                + request.method() + " " + request.path() + " " + range + " " + status);
          }
        });
      }
      writeStats(link, stats);
      // The embedded server's fixed test keys (EmbeddedS3Server), not a credential of anyone's.
      System.out.println("endpoint=" + link.endpoint() + " direct=" + server.endpoint() + " access="
          + EmbeddedS3Server.ACCESS_KEY + " secret=" + EmbeddedS3Server.SECRET_KEY);
      System.out.flush();
      Thread waiter = new Thread(ShapedS3Main::awaitStdinEnd, "stdin-watch");
      waiter.setDaemon(true);
      waiter.start();
      while (waiter.isAlive()) {
        writeStats(link, stats);
        waiter.join(50);
      }
      writeStats(link, stats);
      if (requestLog != null) {
        requestLog.close();
      }
    }
  }

  private static String value(String[] args, int i) {
    if (i >= args.length) {
      throw new IllegalArgumentException(args[i - 1] + " needs a value");
    }
    return args[i];
  }

  private static void awaitStdinEnd() {
    try {
      InputStream in = System.in;
      while (in.read() >= 0) {
        // nothing to do with what is typed: only the end matters
      }
    } catch (IOException e) {
      // stdin gone: stop
    }
  }

  private static void writeStats(LinkShaper link, Path stats) throws IOException {
    Path tmp = stats.resolveSibling(stats.getFileName() + ".tmp");
    String line = link.bytesSent() + " " + link.requests() + " " + link.requests("GET") + " " + link.requests("HEAD")
        + "\n";
    Files.writeString(tmp, line, StandardCharsets.US_ASCII);
    Files.move(tmp, stats, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
  }
}
