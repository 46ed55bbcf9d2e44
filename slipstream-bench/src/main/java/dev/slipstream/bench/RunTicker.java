/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.bench;

import java.io.PrintStream;
import java.util.Locale;
import java.util.function.LongSupplier;

/**
 * Says that a long run is still going: every {@code interval}, a line with how long it has run and the
 * bytes the link delivered to it so far, so that a slow reader (S3A classic reads the sequential object
 * for minutes at {@code --full}) is never silent. A run shorter than the interval prints nothing. One
 * daemon thread per run, stopped by {@link #close()}.
 */
final class RunTicker implements AutoCloseable {
  private final PrintStream log;
  private final String what;
  private final long intervalMillis;
  private final LongSupplier bytesSoFar;
  private final long startNanos = System.nanoTime();
  private final Thread thread;
  private boolean stopped;

  private RunTicker(PrintStream log, String what, long intervalMillis, LongSupplier bytesSoFar) {
    this.log = log;
    this.what = what;
    this.intervalMillis = intervalMillis;
    this.bytesSoFar = bytesSoFar;
    this.thread = new Thread(this::loop, "slipstream-bench-ticker");
    thread.setDaemon(true);
  }

  /** Starts ticking for the run {@code what} (e.g. "run 2/3 s3a-classic"). */
  static RunTicker start(PrintStream log, String what, long intervalMillis, LongSupplier bytesSoFar) {
    RunTicker t = new RunTicker(log, what, intervalMillis, bytesSoFar);
    t.thread.start();
    return t;
  }

  private void loop() {
    synchronized (this) {
      while (!stopped) {
        try {
          wait(intervalMillis);
        } catch (InterruptedException e) {
          return;
        }
        if (!stopped) {
          long seconds = (System.nanoTime() - startNanos) / 1_000_000_000L;
          log.printf(Locale.ROOT, "  %s: %d s so far, %.1f MB from the link%n", what, seconds,
              bytesSoFar.getAsLong() / 1e6);
        }
      }
    }
  }

  @Override
  public void close() {
    synchronized (this) {
      stopped = true;
      notifyAll();
    }
    try {
      thread.join(1_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
