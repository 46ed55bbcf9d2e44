/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.cli;

import java.io.IOException;
import java.io.PrintStream;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Locale;
import java.util.function.LongSupplier;

/**
 * A progress display on stderr, one line drawn by a daemon thread: a transfer's bytes done and total,
 * percent, current MB/s and ETA ({@link #start(PrintStream, boolean, String, long, LongSupplier)}), or any
 * other {@link Line} (the load's reads so far, what {@code du} has listed).
 *
 * <p>On a terminal the line is redrawn in place ({@code \r}) a few times per second; otherwise (a log
 * file, a pipe, a CI console) a plain line is printed every few seconds, so the output stays readable.
 */
final class Progress {
  /** How often a transfer's line is redrawn on a terminal. */
  private static final long TRANSFER_INTERVAL_MILLIS = 200;
  private static final long PLAIN_INTERVAL_MILLIS = 5_000;

  /** What the display shows. */
  @FunctionalInterface
  interface Line {
    /** The line at {@code now} ({@link System#nanoTime()}), without a line terminator. */
    String render(long now);
  }

  private final PrintStream err;
  private final boolean terminal;
  private final long terminalIntervalMillis;
  private final Line line;
  private final Thread thread;
  private final Object lock = new Object();
  private int lastWidth;
  private boolean stopped;

  private Progress(PrintStream err, boolean terminal, long terminalIntervalMillis, Line line) {
    this.err = err;
    this.terminal = terminal;
    this.terminalIntervalMillis = terminalIntervalMillis;
    this.line = line;
    this.thread = new Thread(this::loop, "slipstream-progress");
    thread.setDaemon(true);
  }

  /**
   * Starts drawing the progress of a transfer of {@code total} bytes, of which {@code done} reports the
   * bytes done so far.
   */
  static Progress start(PrintStream err, boolean terminal, String label, long total, LongSupplier done) {
    return start(err, terminal, TRANSFER_INTERVAL_MILLIS, new TransferLine(terminal, label, total, done));
  }

  /**
   * Starts drawing {@code line}: every {@code terminalIntervalMillis} on a terminal, else every few
   * seconds.
   */
  static Progress start(PrintStream err, boolean terminal, long terminalIntervalMillis, Line line) {
    Progress p = new Progress(err, terminal, terminalIntervalMillis, line);
    p.thread.start();
    return p;
  }

  /**
   * Stops drawing. On a terminal, a successful transfer leaves its final line (100%) behind; a failed one
   * ends its line so that the error message starts on a new one.
   */
  void stop(boolean success) {
    if (!halt()) {
      return;
    }
    synchronized (lock) {
      if (terminal) {
        if (success) {
          draw(System.nanoTime());
        }
        if (lastWidth > 0) {
          err.print('\n');
          err.flush();
        }
      }
    }
  }

  /**
   * Stops drawing and, on a terminal, erases the line: for a display that only kept someone company
   * while a result was on its way, and has nothing to leave behind.
   */
  void stopAndErase() {
    if (halt()) {
      synchronized (lock) {
        erase();
      }
    }
  }

  /** What writes a line of results (to stdout or stderr) while the display runs. */
  @FunctionalInterface
  interface Output {
    void write() throws IOException;
  }

  /**
   * Writes {@code output} as a line of its own: on a terminal the progress line is erased first, and
   * drawn again below it at the next tick, so the two never share a line.
   */
  void above(Output output) throws IOException {
    synchronized (lock) {
      erase();
      output.write();
    }
  }

  /** Ends the drawing thread; false if it was already stopped. */
  private boolean halt() {
    synchronized (lock) {
      if (stopped) {
        return false;
      }
      stopped = true;
      lock.notifyAll();
    }
    try {
      thread.join(1_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    return true;
  }

  /** Blanks the line drawn on a terminal; called with {@link #lock} held. */
  private void erase() {
    if (terminal && lastWidth > 0) {
      err.print("\r" + " ".repeat(lastWidth) + "\r");
      err.flush();
      lastWidth = 0;
    }
  }

  private void loop() {
    long interval = terminal ? terminalIntervalMillis : PLAIN_INTERVAL_MILLIS;
    synchronized (lock) {
      while (!stopped) {
        try {
          lock.wait(interval);
        } catch (InterruptedException e) {
          return;
        }
        if (!stopped) {
          draw(System.nanoTime());
        }
      }
    }
  }

  /** Draws the current state; called with {@link #lock} held. */
  private void draw(long now) {
    String text = line.render(now);
    if (terminal) {
      StringBuilder sb = new StringBuilder(text.length() + 2 * lastWidth + 1).append('\r').append(text);
      // Blank out what is left of a longer previous line.
      for (int i = text.length(); i < lastWidth; i++) {
        sb.append(' ');
      }
      lastWidth = text.length();
      err.print(sb);
    } else {
      err.println(text);
      lastWidth = 0;
    }
    err.flush();
  }

  /** A transfer's line: bytes done and total, percent, current MB/s and ETA, and on a terminal a bar. */
  static final class TransferLine implements Line {
    /** The MB/s shown is measured over about this much recent time, so it follows changes in speed. */
    private static final long RATE_WINDOW_NANOS = 3_000_000_000L;
    private static final int BAR_WIDTH = 20;

    private final boolean terminal;
    private final String label;
    private final long total;
    private final LongSupplier done;
    private final long startNanos = System.nanoTime();
    private final Deque<long[]> samples = new ArrayDeque<>();

    TransferLine(boolean terminal, String label, long total, LongSupplier done) {
      this.terminal = terminal;
      this.label = label.isEmpty() ? "" : label + " ";
      this.total = total;
      this.done = done;
    }

    @Override
    public String render(long now) {
      return render(done.getAsLong(), now);
    }

    /** The line with {@code bytes} done. */
    String render(long bytes, long now) {
      samples.addLast(new long[] {now, bytes});
      while (samples.size() > 2 && now - samples.peekFirst()[0] > RATE_WINDOW_NANOS) {
        samples.removeFirst();
      }
      long[] first = samples.peekFirst();
      long windowNanos = now - first[0];
      double bytesPerSecond;
      if (bytes >= total && total > 0) {
        long elapsed = now - startNanos;
        bytesPerSecond = elapsed > 0 ? bytes / (elapsed / 1e9) : 0; // finished: the average of the whole transfer
      } else if (windowNanos >= 500_000_000L) {
        bytesPerSecond = (bytes - first[1]) / (windowNanos / 1e9);
      } else {
        long elapsed = now - startNanos;
        bytesPerSecond = elapsed > 0 ? bytes / (elapsed / 1e9) : 0;
      }
      int percent = total <= 0 ? 100 : (int) Math.min(100, bytes * 100 / total);
      int unit = Sizes.unitIndex(Math.max(total, bytes));
      String amount = Sizes.inUnit(bytes, unit) + " / " + Sizes.inUnit(total, unit) + " " + Sizes.unitName(unit);
      String eta;
      if (bytes >= total) {
        eta = "in " + Sizes.clock(Math.round((now - startNanos) / 1e9));
      } else if (bytesPerSecond > 0) {
        eta = "ETA " + Sizes.clock((long) Math.ceil((total - bytes) / bytesPerSecond));
      } else {
        eta = "ETA --:--";
      }
      String rate = String.format(Locale.ROOT, "%.1f MB/s", bytesPerSecond / 1e6);
      if (terminal) {
        int filled = total <= 0 ? BAR_WIDTH : (int) Math.min(BAR_WIDTH, bytes * BAR_WIDTH / total);
        String bar = "#".repeat(filled) + ".".repeat(BAR_WIDTH - filled);
        return String.format(Locale.ROOT, "%s[%s] %3d%%  %s  %s  %s", label, bar, percent, amount, rate, eta);
      }
      return String.format(Locale.ROOT, "%s%3d%%  %s  %s  %s", label, percent, amount, rate, eta);
    }
  }
}
