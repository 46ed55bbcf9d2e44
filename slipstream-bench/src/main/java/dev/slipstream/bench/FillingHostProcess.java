/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.bench;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Runs {@link FillingHost} in a child JVM and waits for it, bounded: the same {@code java} (from {@code
 * java.home}), class path and maximum heap (Slipstream's default memory budget is a share of it, as it is
 * for host B) as this JVM. The request, secret included, goes to the child's standard input, never onto its
 * command line. A directory among the workload's scratch files, deleted afterwards, holds the child's
 * temporary files and its standard output and error: read for the result line, and quoted in the error
 * when it fails.
 * A child still running at the timeout is killed, and so is one left running by any failure here.
 */
final class FillingHostProcess {
  /** How much of the child's output an error quotes at most: its last lines. */
  private static final int QUOTED_LINES = 20;
  /** How long a killed child is given to end. */
  private static final long KILL_WAIT_SECONDS = 10;

  private FillingHostProcess() {}

  /**
   * The time host A gets to read {@code length} bytes: a minute for starting the JVM and the clients, plus
   * 2 MB/s at least (the {@code s3-like} link gives ~100 times that).
   */
  static Duration timeoutFor(long length) {
    return Duration.ofSeconds(60 + length / 2_000_000);
  }

  /**
   * Runs host A for {@code request} within {@code timeout}, its output in a file in {@code dir}; returns what
   * it read, checked against the request. Throws an IOException naming the cause and quoting the child's
   * last lines of output when it fails, exits without its result line or reads other bytes, and when it
   * does not end in time (then it is killed first).
   */
  static FillingHost.Filled run(FillingHost.Request request, Duration timeout, Path dir) throws IOException {
    Path home = Files.createTempDirectory(dir, "host-a-");
    Path output = home.resolve("output.log");
    Process child = null;
    try {
      ProcessBuilder pb = new ProcessBuilder(command(Files.createDirectory(home.resolve("tmp"))))
          .redirectErrorStream(true).redirectOutput(output.toFile());
      child = pb.start();
      try (OutputStream in = child.getOutputStream()) {
        in.write(request.text().getBytes(StandardCharsets.UTF_8));
      } catch (IOException e) {
        // The child ended before reading its request: its output says why; waited for below.
      }
      boolean ended;
      try {
        ended = child.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IOException("interrupted while waiting for host A (a child JVM, pid " + child.pid() + ")", e);
      }
      if (!ended) {
        kill(child);
        throw new IOException("host A (a child JVM, pid " + child.pid() + ") did not finish reading s3://"
            + request.bucket() + "/" + request.key() + " within " + timeout.toSeconds() + " s and was killed;"
            + " its output: " + quote(output));
      }
      int exit = child.exitValue();
      if (exit != 0) {
        throw new IOException("host A (a child JVM) failed with exit status " + exit + ": " + quote(output));
      }
      FillingHost.Filled filled = result(output);
      if (filled == null) {
        throw new IOException("host A (a child JVM) ended without its result line: " + quote(output));
      }
      if (filled.bytes() != request.length() || filled.crc32c() != request.crc32c()) {
        throw new IOException("host A read wrong bytes: " + filled.line());
      }
      return filled;
    } finally {
      if (child != null && child.isAlive()) {
        kill(child);
      }
      deleteTree(home);
    }
  }

  /**
   * {@code java -Xmx... -Djava.io.tmpdir=TMP -cp <this class path> dev.slipstream.bench.FillingHost}: the
   * child's temporary files (its session's cache directory) in {@code tmp}, deleted with it even when it
   * was killed.
   */
  static List<String> command(Path tmp) {
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    long maxHeap = Runtime.getRuntime().maxMemory();
    if (maxHeap != Long.MAX_VALUE) {
      cmd.add("-Xmx" + (maxHeap >> 20) + "m");
    }
    cmd.add("-Djava.io.tmpdir=" + tmp);
    cmd.add("-cp");
    cmd.add(System.getProperty("java.class.path"));
    cmd.add(FillingHost.class.getName());
    return cmd;
  }

  private static void kill(Process child) {
    child.destroyForcibly();
    try {
      child.waitFor(KILL_WAIT_SECONDS, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** The result line of the child's output, or null if it has none. */
  private static FillingHost.Filled result(Path output) throws IOException {
    for (String line : lines(output)) {
      FillingHost.Filled f = FillingHost.Filled.parse(line.trim());
      if (f != null) {
        return f;
      }
    }
    return null;
  }

  /** The last {@value #QUOTED_LINES} lines of the child's output, joined with " | ". */
  private static String quote(Path output) {
    try {
      List<String> lines = lines(output).stream().filter(l -> !l.isBlank()).toList();
      if (lines.isEmpty()) {
        return "(none)";
      }
      List<String> last = lines.subList(Math.max(0, lines.size() - QUOTED_LINES), lines.size());
      return (last.size() < lines.size() ? "... | " : "") + String.join(" | ", last);
    } catch (IOException e) {
      return "(unreadable: " + e.getMessage() + ")";
    }
  }

  /** Deletes {@code dir} and what it holds; a failure is reported, never thrown over the run's own error. */
  private static void deleteTree(Path dir) {
    try (java.util.stream.Stream<Path> paths = Files.walk(dir)) {
      for (Path p : paths.sorted(java.util.Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    } catch (IOException e) {
      System.err.println("warning: could not delete " + dir + ": " + e);
    }
  }

  /** The output's lines; bytes that are no UTF-8 become replacement characters rather than an error. */
  private static List<String> lines(Path output) throws IOException {
    return new String(Files.readAllBytes(output), StandardCharsets.UTF_8).lines().toList();
  }
}
