/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.hadoop;

import dev.slipstream.ObjectChangedException;
import dev.slipstream.SlipstreamInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Locale;
import java.util.function.Consumer;
import java.util.function.IntFunction;
import org.apache.hadoop.fs.ByteBufferPositionedReadable;
import org.apache.hadoop.fs.ByteBufferReadable;
import org.apache.hadoop.fs.CanUnbuffer;
import org.apache.hadoop.fs.FSInputStream;
import org.apache.hadoop.fs.FileRange;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.StreamCapabilities;
import org.apache.hadoop.fs.statistics.IOStatistics;
import org.apache.hadoop.fs.statistics.IOStatisticsSource;

/**
 * Hadoop's view of a {@link SlipstreamInputStream}: the interfaces Hadoop readers probe for, each
 * mapped onto the stream's own thread-safe operations, and the bytes read counted into the
 * FileSystem's {@link FileSystem.Statistics} (which is where Spark's task input metrics come from).
 *
 * <p>Positional reads go straight to the stream's positional reads, which are thread-safe and leave
 * the position alone; {@link FSInputStream}'s defaults would instead seek and read under a lock.
 */
final class SlipstreamFSInputStream extends FSInputStream
    implements ByteBufferReadable, ByteBufferPositionedReadable, CanUnbuffer, StreamCapabilities,
        IOStatisticsSource {

  /** The stream read; replaced once at most, by {@link #reopen}, before any byte was returned. */
  private volatile SlipstreamInputStream in;
  /**
   * For a stream opened with the length and version of a listing (no HEAD): how to open the file again
   * if its first read finds it changed since. Null otherwise, and once a read succeeded or it was used.
   */
  private volatile Reopen reopen;
  private final FileSystem.Statistics fsStatistics;
  private final MergedRanges vectored;
  private volatile IOStatistics ioStatistics;
  /** Where the first read of any kind started, or -1 before it: open-ahead's evidence (see the FileSystem). */
  private volatile long firstRead = -1;
  /** How near its end a first read must start for the stream to have started at a footer. */
  static final long TAIL = 1 << 20;

  /**
   * What {@link #close} does with the stream read: closes it, or keeps it for an open of the same file to
   * come (see {@code Slipstream.closeForReopen}); set once by the FileSystem, null for a plain close.
   */
  private volatile java.util.function.Consumer<SlipstreamInputStream> closer;
  private final java.util.concurrent.atomic.AtomicBoolean closed = new java.util.concurrent.atomic.AtomicBoolean();

  /** Opens the file again, in the version S3 has now. */
  interface Reopen {
    SlipstreamInputStream open() throws IOException;
  }

  /** One read of the stream, the wrapped stream given. */
  private interface Read<T> {
    T run(SlipstreamInputStream in) throws IOException;
  }

  SlipstreamFSInputStream(SlipstreamInputStream in, FileSystem.Statistics fsStatistics, MergedRanges vectored) {
    this(in, null, fsStatistics, vectored);
  }

  /** @param reopen for a stream opened with a listing's version (see {@link #reopen}); or null */
  SlipstreamFSInputStream(SlipstreamInputStream in, Reopen reopen, FileSystem.Statistics fsStatistics,
      MergedRanges vectored) {
    this.in = in;
    this.reopen = reopen;
    this.fsStatistics = fsStatistics;
    this.vectored = vectored;
    this.ioStatistics = ReadIOStatistics.of(in.statistics());
  }

  /** Whether the first read of this stream started at the object's first byte (false before any read). */
  boolean startedAtFirstByte() {
    return firstRead == 0;
  }

  /**
   * Whether the first read of this stream started in the object's last MiB and its second half: a reader
   * that starts at a footer (Parquet, ORC), not one that starts at its data.
   */
  boolean startedInTail() {
    long first = firstRead;
    long length = in.length();
    return first > 0 && first >= length / 2 && length - first <= TAIL;
  }

  private void reading(long position) {
    if (firstRead < 0) {
      firstRead = position;
    }
  }

  private void readingHere() throws IOException {
    if (firstRead < 0) {
      firstRead = in.getPos();
    }
  }

  /**
   * Runs a read; for a stream opened with a listing's version, a first read that finds the object
   * changed since opens it again (the version S3 has now) and reads that, as if a HEAD at open had
   * found it. Once a read returned bytes of the listed version, a change is the caller's to hear of.
   */
  private <T> T read(Read<T> read) throws IOException {
    if (reopen == null) {
      return read.run(in);
    }
    SlipstreamInputStream used = in;
    T result;
    try {
      result = read.run(used);
    } catch (ObjectChangedException e) {
      return read.run(reopened(used, e));
    }
    synchronized (this) {
      if (in != used) {
        // Another thread's first read found the file changed and opened it again while this one read the
        // listed version: one stream must not return bytes of both.
        throw new ObjectChangedException(used.location(), "changed since it was listed, while this read took"
            + " the listed version; open it again");
      }
      reopen = null; // S3 served the listed version: a change from now on is the caller's to hear of
    }
    return result;
  }

  private synchronized SlipstreamInputStream reopened(SlipstreamInputStream failed, ObjectChangedException e)
      throws IOException {
    if (in != failed) {
      return in; // another thread's first read opened it again already
    }
    Reopen r = reopen;
    if (r == null) {
      throw e; // bytes of the listed version were returned: the change happened during this read
    }
    // The guard stays up until the swap: meanwhile, a read of another thread must not take the unlocked
    // path to the old stream (a block it holds would be the old version, and this read the new one).
    SlipstreamInputStream fresh = r.open();
    try {
      long pos = failed.getPos();
      if (pos > 0) {
        fresh.seek(pos);
      }
    } catch (IOException | RuntimeException seekFailed) {
      fresh.close();
      throw seekFailed;
    }
    in = fresh;
    reopen = null; // after the swap: a read that finds no guard finds the new stream
    ioStatistics = ReadIOStatistics.of(fresh.statistics());
    failed.close();
    return fresh;
  }

  private int counted(int n) {
    if (n > 0 && fsStatistics != null) {
      fsStatistics.incrementBytesRead(n);
    }
    return n;
  }

  @Override
  public int read() throws IOException {
    readingHere();
    int b = read(SlipstreamInputStream::read);
    if (b >= 0) {
      counted(1);
    }
    return b;
  }

  @Override
  public int read(byte[] b, int off, int len) throws IOException {
    readingHere();
    return counted(read(s -> s.read(b, off, len)));
  }

  @Override
  public int read(ByteBuffer buf) throws IOException {
    readingHere();
    return counted(read(s -> s.read(buf)));
  }

  @Override
  public long skip(long n) throws IOException {
    return in.skip(n);
  }

  @Override
  public int available() throws IOException {
    return in.available();
  }

  @Override
  public void seek(long pos) throws IOException {
    in.seek(pos);
  }

  @Override
  public long getPos() throws IOException {
    return in.getPos();
  }

  @Override
  public boolean seekToNewSource(long targetPos) {
    return false;
  }

  @Override
  public int read(long position, byte[] buffer, int offset, int length) throws IOException {
    validatePositionedReadArgs(position, buffer, offset, length);
    reading(position);
    return counted(read(s -> s.read(position, buffer, offset, length)));
  }

  @Override
  public void readFully(long position, byte[] buffer, int offset, int length) throws IOException {
    validatePositionedReadArgs(position, buffer, offset, length);
    reading(position);
    read(s -> {
      s.readFully(position, buffer, offset, length);
      return null;
    });
    counted(length);
  }

  @Override
  public void readFully(long position, byte[] buffer) throws IOException {
    readFully(position, buffer, 0, buffer.length);
  }

  @Override
  public int read(long position, ByteBuffer buf) throws IOException {
    if (position < 0) {
      throw new EOFException(in.location() + ": negative position " + position);
    }
    reading(position);
    return counted(read(s -> s.read(position, buf)));
  }

  @Override
  public void readFully(long position, ByteBuffer buf) throws IOException {
    if (position < 0) {
      throw new EOFException(in.location() + ": negative position " + position);
    }
    reading(position);
    int want = buf.remaining();
    if (position + want > in.length()) {
      throw new EOFException(in.location() + ": cannot read " + want + " bytes at " + position
          + ", past the end (length " + in.length() + ")");
    }
    while (buf.hasRemaining()) {
      int n = read(s -> s.read(position + (want - buf.remaining()), buf));
      if (n < 0) {
        throw new EOFException(in.location() + ": end of object at " + (position + want - buf.remaining()));
      }
    }
    counted(want);
  }

  @Override
  public int minSeekForVectorReads() {
    return vectored.minSeek();
  }

  @Override
  public int maxReadSizeForVectorReads() {
    return vectored.maxMerged();
  }

  @Override
  public void readVectored(List<? extends FileRange> ranges, IntFunction<ByteBuffer> allocate) throws IOException {
    readVectored(ranges, allocate, buffer -> { });
  }

  /** The Hadoop 3.4.2+ variant with a release function (no {@code @Override}: 3.4.1 lacks it). */
  public void readVectored(List<? extends FileRange> ranges, IntFunction<ByteBuffer> allocate,
      Consumer<ByteBuffer> release) throws IOException {
    java.util.Objects.requireNonNull(allocate, "allocate");
    java.util.Objects.requireNonNull(release, "release");
    if (firstRead < 0 && !ranges.isEmpty()) {
      firstRead = Math.max(1, ranges.get(0).getOffset()); // vectored: never a read from the start
    }
    if (reopen != null && !ranges.isEmpty()) {
      settleVersion(ranges);
    }
    // Counted here, on the caller's thread: FileSystem.Statistics keeps per-thread totals, and Spark
    // reads its task's input bytes from the task thread's.
    long requested = vectored.read(in, ranges, allocate, release);
    counted((int) Math.min(Integer.MAX_VALUE, requested));
  }

  /**
   * Before the first vectored read of a stream opened with a listed version: one byte of the first range,
   * read through the guard, so that a file changed since is opened again (and read in its current
   * version, as S3A's open would) before any range is read, and a file read as listed settles the
   * version, so that a later change fails the stream instead of mixing versions. The byte is read
   * where the ranges are about to be read: the request it makes, if any, fetches what they need.
   */
  private void settleVersion(List<? extends FileRange> ranges) throws IOException {
    long at = -1; // the lowest offset of a range with bytes to read (an empty range reads none)
    for (FileRange r : ranges) {
      if (r.getOffset() < 0 || r.getLength() < 0) {
        return; // the vectored read itself rejects it, with the error Hadoop's contract names
      }
      if (r.getLength() > 0 && r.getOffset() < in.length() && (at < 0 || r.getOffset() < at)) {
        at = r.getOffset();
      }
    }
    if (at < 0) {
      return; // no byte to read: nothing that could mix versions
    }
    long from = at;
    byte[] one = new byte[1];
    read(s -> s.read(from, one, 0, 1));
  }

  @Override
  public void unbuffer() {
    in.unbuffer();
  }

  @Override
  public boolean hasCapability(String capability) {
    switch (capability.toLowerCase(Locale.ROOT)) {
      case StreamCapabilities.IOSTATISTICS:
      case StreamCapabilities.READBYTEBUFFER:
      case StreamCapabilities.PREADBYTEBUFFER:
      case StreamCapabilities.UNBUFFER:
      case StreamCapabilities.VECTOREDIO:
        return true;
      default:
        return false;
    }
  }

  @Override
  public IOStatistics getIOStatistics() {
    return ioStatistics;
  }

  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    java.util.function.Consumer<SlipstreamInputStream> c = closer;
    if (c == null) {
      in.close();
    } else {
      c.accept(in);
    }
  }

  /** {@link #close} hands the stream read to {@code closer} instead of closing it. */
  void closeWith(java.util.function.Consumer<SlipstreamInputStream> closer) {
    this.closer = closer;
  }

  @Override
  public String toString() {
    return "SlipstreamFSInputStream[" + in + "]";
  }
}
