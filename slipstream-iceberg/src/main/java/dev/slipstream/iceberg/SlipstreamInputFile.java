/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.iceberg;

import dev.slipstream.OpenOptions;
import dev.slipstream.S3Location;
import dev.slipstream.Slipstream;
import dev.slipstream.SlipstreamInputStream;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.UncheckedIOException;
import org.apache.iceberg.exceptions.NotFoundException;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.io.SeekableInputStream;

/**
 * One file of a table, read through a Slipstream client.
 *
 * <p>Requests: a length given by the caller (Iceberg knows it for data files, delete files and manifests)
 * is trusted, and the file is opened with no HEAD. Without one, nothing is asked until it is needed: the
 * first of {@link #getLength()}, {@link #exists()} or {@link #newStream()} learns the length and ETag
 * (or takes the client's recent answer), and later streams of this file open with both. A stream of a
 * file read whole (a {@code metadata.json}, a manifest list: Iceberg opens both by path and reads them
 * from the start) learns them from the GET of its first block, with no HEAD; {@link #getLength()} and
 * {@link #exists()} before any stream ask with one HEAD.
 *
 * <p>Each stream reads with the policy the file's name calls for ({@link FileKind}).
 *
 * <p>A file of a deserialized FileIO copy reaches the copy's lease on the shared clients, and each of its
 * streams holds a lease of its own until closed ({@link SharedClients}): the clients stay open while a
 * file or stream of theirs is in use, whatever became of the copy.
 */
final class SlipstreamInputFile implements InputFile {
  private final String location;
  private final S3Location object;
  private final Slipstream client;
  private final FileKind kind;
  private final ReadMetrics metrics;
  /** The FileIO's lease on shared clients, or null if the FileIO owns its clients. */
  private final SharedClients.Lease lease;
  /** -1 until known. */
  private volatile long length;
  /** The ETag learnt with the length from S3, or null. */
  private volatile String etag;

  SlipstreamInputFile(String location, S3Location object, long length, Slipstream client, ReadMetrics metrics,
      SharedClients.Lease lease) {
    this.location = location;
    this.object = object;
    this.length = length;
    this.client = client;
    this.metrics = metrics;
    this.lease = lease;
    this.kind = FileKind.of(location);
  }

  @Override
  public long getLength() {
    long known = length;
    return known >= 0 ? known : stat();
  }

  @Override
  public SeekableInputStream newStream() {
    long knownLength = length;
    OpenOptions options = OpenOptions.NONE.withPolicy(kind.policy());
    if (knownLength >= 0) {
      options = options.withLength(knownLength).withEtag(etag);
    }
    SharedClients.Lease held = SharedClients.another(lease);
    SlipstreamInputStream in = null;
    try {
      in = client.open(object, options);
    } catch (FileNotFoundException e) {
      throw notFound(e);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot open " + location + ": " + e.getMessage(), e);
    } finally {
      if (in == null) {
        SharedClients.end(held);
      }
    }
    if (knownLength < 0) {
      learnt(in);
    }
    return new IcebergInputStream(location, in, metrics.readBytes(), metrics.readOperations(), held);
  }

  @Override
  public String location() {
    return location;
  }

  /** Asks S3 (one HEAD, unless the client's answer about this object still stands): false if there is no such object. */
  @Override
  public boolean exists() {
    try {
      stat();
      return true;
    } catch (NotFoundException e) {
      return false;
    }
  }

  /**
   * The length, learnt from S3 with the ETag: one HEAD, or the client's answer about this object within
   * access.ttl. Opened with no policy: one of a file read whole would GET its first block instead.
   */
  private long stat() {
    try (SharedClients.Lease held = SharedClients.another(lease);
         SlipstreamInputStream in = client.open(object, OpenOptions.NONE)) {
      return learnt(in);
    } catch (FileNotFoundException e) {
      throw notFound(e);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot get the length of " + location + ": " + e.getMessage(), e);
    }
  }

  private long learnt(SlipstreamInputStream in) {
    etag = in.etag();
    length = in.length();
    return in.length();
  }

  private NotFoundException notFound(FileNotFoundException e) {
    return new NotFoundException(e, "Location does not exist: %s", location);
  }

  @Override
  public String toString() {
    return "SlipstreamInputFile{" + location + (length >= 0 ? ", length=" + length : "") + "}";
  }
}
