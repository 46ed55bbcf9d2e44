/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.iceberg;

import dev.slipstream.SlipstreamInputStream;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.util.Objects;
import org.apache.iceberg.exceptions.NotFoundException;
import org.apache.iceberg.io.RangeReadable;
import org.apache.iceberg.io.SeekableInputStream;
import org.apache.iceberg.metrics.Counter;

/**
 * Iceberg's stream over a Slipstream stream: {@link SeekableInputStream} for readers that seek, and
 * {@link RangeReadable} for those that read ranges by position (a footer with {@link #readTail}, column
 * chunks with {@link #readFully(long, byte[], int, int)}), which Slipstream serves without moving the
 * stream position and from many threads at once.
 *
 * <p>Bytes and read calls are counted into the FileIO's metrics ({@code read.bytes}, {@code
 * read.operations}), as S3FileIO's stream counts them. An object that is gone when first read (opened
 * with a known length, so with no HEAD) fails with Iceberg's {@link NotFoundException}, as S3FileIO's
 * does.
 *
 * <p>A stream of a deserialized FileIO copy holds a lease on the shared clients until it is closed
 * ({@link SharedClients}).
 */
final class IcebergInputStream extends SeekableInputStream implements RangeReadable {
  /** The location as Iceberg named it (s3a:// stays s3a://), for messages. */
  private final String location;
  private final SlipstreamInputStream in;
  private final Counter readBytes;
  private final Counter readOperations;
  /** This stream's lease on shared clients, or null where the FileIO owns its clients. */
  private final SharedClients.Lease lease;

  IcebergInputStream(String location, SlipstreamInputStream in, Counter readBytes, Counter readOperations,
      SharedClients.Lease lease) {
    this.location = Objects.requireNonNull(location, "location");
    this.in = Objects.requireNonNull(in, "in");
    this.readBytes = readBytes;
    this.readOperations = readOperations;
    this.lease = lease;
  }

  @Override
  public long getPos() {
    return in.getPos();
  }

  @Override
  public void seek(long newPos) throws IOException {
    try {
      in.seek(newPos);
    } catch (FileNotFoundException e) {
      throw notFound(e);
    }
  }

  @Override
  public int read() throws IOException {
    int b;
    try {
      b = in.read();
    } catch (FileNotFoundException e) {
      throw notFound(e);
    }
    counted(b < 0 ? 0 : 1);
    return b;
  }

  @Override
  public int read(byte[] b, int off, int len) throws IOException {
    int n;
    try {
      n = in.read(b, off, len);
    } catch (FileNotFoundException e) {
      throw notFound(e);
    }
    counted(Math.max(n, 0));
    return n;
  }

  @Override
  public long skip(long n) throws IOException {
    try {
      return in.skip(n);
    } catch (FileNotFoundException e) {
      throw notFound(e);
    }
  }

  @Override
  public int available() throws IOException {
    return in.available();
  }

  @Override
  public void readFully(long position, byte[] buffer, int offset, int length) throws IOException {
    try {
      in.readFully(position, buffer, offset, length);
    } catch (FileNotFoundException e) {
      throw notFound(e);
    }
    counted(length);
  }

  /** Reads the last {@code min(length, object length)} bytes into {@code buffer[offset...]}; returns how many. */
  @Override
  public int readTail(byte[] buffer, int offset, int length) throws IOException {
    Objects.checkFromIndexSize(offset, length, buffer.length);
    long size = in.length();
    int n = (int) Math.min(length, size);
    if (n == 0) {
      return 0;
    }
    readFully(size - n, buffer, offset, n);
    return n;
  }

  @Override
  public void close() {
    try {
      in.close();
    } finally {
      SharedClients.end(lease);
    }
  }

  /** The Slipstream stream underneath: its statistics, for tests and tools. */
  SlipstreamInputStream slipstream() {
    return in;
  }

  private void counted(int bytes) {
    readBytes.increment((long) bytes);
    readOperations.increment();
  }

  private NotFoundException notFound(FileNotFoundException e) {
    return new NotFoundException(e, "Location does not exist: %s", location);
  }

  @Override
  public String toString() {
    return "IcebergInputStream{" + location + ", pos=" + in.getPos() + "}";
  }
}
