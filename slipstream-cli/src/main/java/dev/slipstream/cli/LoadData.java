/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.cli;

import dev.slipstream.S3Clients;
import dev.slipstream.S3Location;
import dev.slipstream.SlipstreamConfig;
import dev.slipstream.testkit.EmbeddedS3Server;
import dev.slipstream.testkit.TestData;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * The objects a load reads, of known bytes: one large object and {@value #SMALL_FILES} small ones, in the
 * embedded server or under a prefix of a real bucket. In a real bucket they are written at the start
 * (which needs write access) and deleted by {@link #close()}, on the S3 client Slipstream would build for
 * the same settings ({@link S3Clients}), which does not retry: a write that fails ends the load.
 */
final class LoadData implements AutoCloseable {
  static final int SMALL_FILES = 64;
  static final int SMALL_SIZE = 256 * 1024;
  /** The largest object one PUT may write. */
  static final long MAX_SIZE = 5L << 30;

  private final String bucket;
  private final String prefix;
  private final long bigSize;
  private final long seed;
  /** Writes and deletes the objects of a real bucket; null for the embedded server. */
  private final S3Client writer;

  private LoadData(String bucket, String prefix, long bigSize, long seed, S3Client writer) {
    this.bucket = bucket;
    this.prefix = prefix;
    this.bigSize = bigSize;
    this.seed = seed;
    this.writer = writer;
  }

  /** The objects, written into {@code bucket} (created) of the embedded {@code server}. */
  static LoadData embedded(EmbeddedS3Server server, String bucket, long bigSize, long seed) {
    LoadData d = new LoadData(bucket, "", bigSize, seed, null);
    server.createBucket(bucket);
    server.putGenerated(bucket, d.big().key(), seed, bigSize);
    for (int i = 0; i < SMALL_FILES; i++) {
      server.putGenerated(bucket, d.small(i).key(), d.smallSeed(i), SMALL_SIZE);
    }
    return d;
  }

  /**
   * The objects, written under {@code prefix} of {@code bucket} at the endpoint, region and credentials of
   * {@code config}. If a write fails, what was written is deleted and the error names the place.
   */
  static LoadData external(SlipstreamConfig config, String bucket, String prefix, long bigSize, long seed)
      throws IOException {
    LoadData d = new LoadData(bucket, prefix, bigSize, seed, S3Clients.create(config));
    try {
      d.put(d.big(), seed, bigSize);
      for (int i = 0; i < SMALL_FILES; i++) {
        d.put(d.small(i), d.smallSeed(i), SMALL_SIZE);
      }
      return d;
    } catch (SdkException e) {
      IOException failed = new IOException("cannot write the load's objects under " + d.where()
          + " (the load writes its own data there, and needs write access): " + Errors.oneLine(
          String.valueOf(e.getMessage())), e);
      try {
        d.close();
      } catch (RuntimeException suppressed) {
        failed.addSuppressed(suppressed);
      }
      throw failed;
    }
  }

  private void put(S3Location at, long dataSeed, long length) {
    writer.putObject(r -> r.bucket(at.bucket()).key(at.key()).contentLength(length),
        RequestBody.fromContentProvider(() -> TestData.stream(dataSeed, length), length, "application/octet-stream"));
  }

  S3Location big() {
    return new S3Location(bucket, prefix + "big");
  }

  long bigSize() {
    return bigSize;
  }

  long seed() {
    return seed;
  }

  S3Location small(int i) {
    return new S3Location(bucket, prefix + String.format(Locale.ROOT, "small/part-%04d", i));
  }

  long smallSeed(int i) {
    return seed + 1 + i;
  }

  /** {@code s3://bucket/prefix}, for messages. */
  String where() {
    return "s3://" + bucket + "/" + prefix;
  }

  /**
   * Deletes the objects written into a real bucket (nothing for the embedded server's), one request each:
   * S3-compatible servers do not all take the checksums the SDK sends with a multi-object delete.
   */
  @Override
  public void close() {
    if (writer == null) {
      return;
    }
    try {
      List<S3Location> all = new ArrayList<>();
      all.add(big());
      for (int i = 0; i < SMALL_FILES; i++) {
        all.add(small(i));
      }
      for (S3Location at : all) {
        writer.deleteObject(r -> r.bucket(at.bucket()).key(at.key()));
      }
    } catch (SdkException e) {
      throw new UncheckedIOException(new IOException("cannot delete the load's objects under " + where() + ": "
          + Errors.oneLine(String.valueOf(e.getMessage())), e));
    } finally {
      writer.close();
    }
  }
}
