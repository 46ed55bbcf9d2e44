/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.cli;

import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;

/** Copy loops and the write-to-a-temporary-file-then-rename dance. */
final class Transfer {
  /** Large reads let Slipstream hand over whole chunks of a block per call. */
  static final int BUFFER_SIZE = 1 << 20;

  private Transfer() {}

  /** Copies {@code in} to its end into {@code out}, adding every byte written to {@code counter}. */
  static long copy(InputStream in, OutputStream out, AtomicLong counter) throws IOException {
    byte[] buf = new byte[BUFFER_SIZE];
    long total = 0;
    int n;
    while ((n = in.read(buf, 0, buf.length)) >= 0) {
      if (n > 0) {
        out.write(buf, 0, n);
        total += n;
        counter.addAndGet(n);
      }
    }
    return total;
  }

  /** What writes the content of a file. */
  @FunctionalInterface
  interface Writer {
    void writeTo(OutputStream out) throws IOException;
  }

  /**
   * Writes {@code target} through a temporary file in the same directory, renamed over the target only
   * once {@code writer} has succeeded: on failure, or if the JVM is stopped (Ctrl-C) half-way, the
   * temporary file is deleted and the target is left as it was.
   */
  static void writeAtomically(Path target, Writer writer) throws IOException {
    writeAtomically(target, "." + target.getFileName() + ".slipstream-"
        + Long.toHexString(ThreadLocalRandom.current().nextLong() >>> 1) + ".part", writer);
  }

  /**
   * As {@link #writeAtomically(Path, Writer)} with the temporary file named {@code tmpName}. Only a file
   * this call created (CREATE_NEW) is ever deleted: if the name is taken, by a user's file or a symlink,
   * it fails and leaves that file alone.
   */
  static void writeAtomically(Path target, String tmpName, Writer writer) throws IOException {
    Path dir = target.toAbsolutePath().getParent();
    Path tmp = dir.resolve(tmpName);
    java.util.concurrent.atomic.AtomicBoolean created = new java.util.concurrent.atomic.AtomicBoolean();
    Thread cleanup = new Thread(() -> {
      if (created.get()) {
        deleteQuietly(tmp);
      }
    }, "slipstream-cleanup");
    boolean hooked = addShutdownHook(cleanup);
    boolean done = false;
    try {
      try (OutputStream out = Files.newOutputStream(tmp, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
        created.set(true);
        writer.writeTo(out);
      }
      try {
        Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
      } catch (AtomicMoveNotSupportedException e) {
        Files.move(tmp, target, StandardCopyOption.REPLACE_EXISTING);
      }
      done = true;
    } finally {
      if (!done && created.get()) {
        deleteQuietly(tmp);
      }
      if (hooked) {
        removeShutdownHook(cleanup);
      }
    }
  }

  static boolean addShutdownHook(Thread hook) {
    try {
      Runtime.getRuntime().addShutdownHook(hook);
      return true;
    } catch (IllegalStateException e) {
      return false; // already shutting down
    }
  }

  static void removeShutdownHook(Thread hook) {
    try {
      Runtime.getRuntime().removeShutdownHook(hook);
    } catch (IllegalStateException e) {
      // shutting down: the hook runs anyway
    }
  }

  static void deleteQuietly(Path file) {
    try {
      Files.deleteIfExists(file);
    } catch (IOException e) {
      // best effort
    }
  }

  /** Counts the bytes written through it. */
  static final class CountingOutputStream extends FilterOutputStream {
    private final AtomicLong counter;

    CountingOutputStream(OutputStream out, AtomicLong counter) {
      super(out);
      this.counter = counter;
    }

    @Override
    public void write(int b) throws IOException {
      out.write(b);
      counter.incrementAndGet();
    }

    @Override
    public void write(byte[] b, int off, int len) throws IOException {
      out.write(b, off, len);
      counter.addAndGet(len);
    }
  }

  /**
   * Standard output for object bytes: a failed write is marked as such, so that it is reported as a
   * problem of the output (or, for a closed pipe as in {@code slipstream cat ... | head}, not at all)
   * instead of as an S3 error.
   */
  static final class StdoutStream extends FilterOutputStream {
    StdoutStream(OutputStream out) {
      super(out);
    }

    @Override
    public void write(int b) throws IOException {
      try {
        out.write(b);
      } catch (IOException e) {
        throw new OutputFailedException(e);
      }
    }

    @Override
    public void write(byte[] b, int off, int len) throws IOException {
      try {
        out.write(b, off, len);
      } catch (IOException e) {
        throw new OutputFailedException(e);
      }
    }

    @Override
    public void flush() throws IOException {
      try {
        out.flush();
      } catch (IOException e) {
        throw new OutputFailedException(e);
      }
    }

    @Override
    public void close() throws IOException {
      flush(); // standard output stays open
    }
  }

  /** Writing to standard output failed. */
  static final class OutputFailedException extends IOException {
    private static final long serialVersionUID = 1L;

    OutputFailedException(IOException cause) {
      super("cannot write to standard output: " + cause.getMessage(), cause);
    }

    boolean brokenPipe() {
      String m = getCause().getMessage();
      return m != null && m.toLowerCase(java.util.Locale.ROOT).contains("broken pipe");
    }
  }
}
