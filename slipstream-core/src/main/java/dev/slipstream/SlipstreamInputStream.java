/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.util.Objects;

/**
 * A seekable stream over one version of one S3 object.
 *
 * <p>The stream position moves with {@link #read()}, {@link #skip}, {@link #seek}. Positional reads
 * ({@link #read(long, byte[], int, int)}, {@link #readFully(long, byte[], int, int)}) neither use
 * nor move it and may be called from many threads at once, also while another thread reads
 * sequentially. {@link #close()} may be called from any thread; it cancels what is in flight and
 * every later read, seek or skip throws an {@link IOException} naming the object ({@link #getPos()}
 * still tells the position, {@link #unbuffer()} and {@link #close()} do nothing).
 *
 * <p>End of object: a read at the end returns -1; {@link #seek} to a negative position or past the
 * end throws {@link EOFException} ({@code seek(length())} is allowed); {@link #readFully} past the
 * end throws {@link EOFException}. {@link #available()} is the number of bytes left in the object
 * (capped at {@code Integer.MAX_VALUE}), as Hadoop's S3A stream answers.
 */
public abstract class SlipstreamInputStream extends InputStream {

  public abstract S3Location location();

  /** The object's length in bytes. */
  public abstract long length();

  /** The ETag of the version being read, or null until the first response if it was not known at open. */
  public abstract String etag();

  /** The stream position; still answers after close. */
  public abstract long getPos();

  public abstract void seek(long position) throws IOException;

  /** Reads into {@code dst} from the stream position; returns the bytes read or -1 at the end. */
  public abstract int read(ByteBuffer dst) throws IOException;

  /**
   * Reads up to {@code len} bytes at {@code position} without moving the stream position. Returns
   * the bytes read, or -1 if {@code position} is at or past the end. Thread-safe.
   */
  public abstract int read(long position, byte[] b, int off, int len) throws IOException;

  /** As {@link #read(long, byte[], int, int)} into a buffer. */
  public abstract int read(long position, ByteBuffer dst) throws IOException;

  /** Reads exactly {@code len} bytes at {@code position}, or throws {@link EOFException}. Thread-safe. */
  public void readFully(long position, byte[] b, int off, int len) throws IOException {
    Objects.checkFromIndexSize(off, len, b.length);
    if (position < 0) {
      throw new EOFException(location() + ": negative position " + position);
    }
    if (position + len > length()) {
      throw new EOFException(location() + ": cannot read " + len + " bytes at " + position
          + ", past the end (length " + length() + ")");
    }
    int done = 0;
    while (done < len) {
      int n = read(position + done, b, off + done, len - done);
      if (n < 0) {
        throw new EOFException(location() + ": end of object at " + (position + done));
      }
      done += n;
    }
  }

  /**
   * Starts reading exactly {@code len} bytes at {@code position} into {@code b[off, off + len)} in the
   * background and returns at once: for vectored reads, where many ranges are wanted together. Bytes
   * already in memory or in the disk cache are taken from there; the rest is fetched with ranged GETs of
   * exactly those bytes, split so that parts of one range are fetched in parallel. The future fails with
   * {@link EOFException} for a range past the end, or with the read's error. {@code b} must not be
   * touched until the future completes.
   */
  public abstract java.util.concurrent.CompletableFuture<Void> readFullyAsync(long position, byte[] b, int off,
      int len);

  public void readFully(long position, byte[] b) throws IOException {
    readFully(position, b, 0, b.length);
  }

  /**
   * Gives back the memory this stream holds and cancels its prefetches; the position is kept and the
   * next read fetches again. For callers that keep many streams open between reads. A no-op on a
   * closed stream.
   */
  public abstract void unbuffer();

  /**
   * Aborts what is in flight (connections are dropped, not drained), returns every buffer, and makes
   * every later call fail. Idempotent; never throws.
   */
  @Override
  public abstract void close();

  /** Counters of this stream; they also roll up into the client's and the JVM's. */
  public abstract ReadStatistics statistics();
}
