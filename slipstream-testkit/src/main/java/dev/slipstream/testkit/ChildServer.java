/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.testkit;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A server the tests run as a child process, in a temporary directory of its own that holds its log: started
 * with a reaper, so that no server outlives its tests if the JVM exits without {@link #close()}, and stopped
 * by its own process id, then its directory deleted.
 */
final class ChildServer implements AutoCloseable {
  private final Path dir;
  private final Path log;
  private final Process process;
  private final Thread reaper;

  private ChildServer(Path dir, Path log, Process process, String name) {
    this.dir = dir;
    this.log = log;
    this.process = process;
    this.reaper = new Thread(process::destroyForcibly, name + "-reaper");
    Runtime.getRuntime().addShutdownHook(reaper);
  }

  /** Starts {@code command} with its output in {@code log}, a file of {@code dir}, the directory it owns. */
  static ChildServer start(List<String> command, Path dir, Path log, String name) throws IOException {
    Process p = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    return new ChildServer(dir, log, p, name);
  }

  Process process() {
    return process;
  }

  Path log() {
    return log;
  }

  /**
   * Stops the process, asking first when {@code gently} (then forcibly after 10 s), and deletes its
   * directory, best effort.
   */
  void stop(boolean gently) {
    try {
      Runtime.getRuntime().removeShutdownHook(reaper);
    } catch (IllegalStateException shuttingDown) {
      // stopped from another shutdown hook: the reaper runs anyway, harmlessly
    }
    if (gently) {
      process.destroy();
    } else {
      process.destroyForcibly();
    }
    try {
      if (!process.waitFor(10, TimeUnit.SECONDS)) {
        process.destroyForcibly();
        process.waitFor(10, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    try (Stream<Path> paths = Files.walk(dir)) {
      paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException e) {
      // best effort
    }
  }

  @Override
  public void close() {
    stop(true);
  }
}
