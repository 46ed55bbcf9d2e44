/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.bench;

import dev.slipstream.testkit.EmbeddedS3Server;
import dev.slipstream.testkit.TestData;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BiFunction;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.http.apache.ApacheHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.CompletedPart;

/**
 * Puts the benchmark's objects straight into the S3 server (not through the link shaper: only reads are
 * shaped and counted). Objects above {@value #PART_SIZE} bytes go up as multipart uploads.
 */
final class Uploader implements AutoCloseable {
  static final long PART_SIZE = 64L << 20;

  private final S3Client s3;
  private final String bucket;

  Uploader(URI endpoint, String bucket) {
    this.s3 = client(endpoint, 8);
    this.bucket = bucket;
  }

  /** A plain S3 client on {@code endpoint} with the test server's credentials. */
  static S3Client client(URI endpoint, int connections) {
    return S3Client.builder()
        .endpointOverride(endpoint)
        .region(Region.of(EmbeddedS3Server.REGION))
        .credentialsProvider(StaticCredentialsProvider.create(
            AwsBasicCredentials.create(EmbeddedS3Server.ACCESS_KEY, EmbeddedS3Server.SECRET_KEY)))
        .forcePathStyle(true)
        .requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED)
        .responseChecksumValidation(ResponseChecksumValidation.WHEN_REQUIRED)
        .httpClientBuilder(ApacheHttpClient.builder().maxConnections(connections))
        .build();
  }

  /** Uploads {@code length} bytes of generated data for {@code seed}. */
  void putGenerated(String key, long seed, long length) {
    put(key, length, (offset, n) -> TestData.stream(seed, offset, n));
  }

  /**
   * Uploads many small objects, {@code sizes.get(key)} bytes each (generated from the key), eight at a
   * time: the listing workloads' trees of up to 100,000 keys.
   */
  void putSmall(java.util.Map<String, Integer> sizes) {
    java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(8);
    try {
      List<java.util.concurrent.Future<?>> done = new ArrayList<>();
      for (java.util.Map.Entry<String, Integer> e : sizes.entrySet()) {
        done.add(pool.submit(() -> {
          byte[] body = smallBody(e.getKey(), e.getValue());
          s3.putObject(r -> r.bucket(bucket).key(e.getKey()).contentLength((long) body.length),
              RequestBody.fromBytes(body));
        }));
      }
      for (java.util.concurrent.Future<?> f : done) {
        f.get();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while uploading small objects", e);
    } catch (java.util.concurrent.ExecutionException e) {
      throw new IllegalStateException("cannot upload small objects: " + e.getCause(), e.getCause());
    } finally {
      pool.shutdownNow();
    }
  }

  /**
   * Uploads {@code count} objects, object {@code i} at {@code key.apply(i)} with the bytes {@code
   * body.apply(i)}, made as they go up, eight at a time: up to 100,000 objects without holding them all.
   */
  void putMany(int count, java.util.function.IntFunction<String> key, java.util.function.IntFunction<byte[]> body) {
    java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(8);
    java.util.concurrent.atomic.AtomicInteger next = new java.util.concurrent.atomic.AtomicInteger();
    try {
      List<java.util.concurrent.Future<?>> done = new ArrayList<>();
      for (int t = 0; t < 8; t++) {
        done.add(pool.submit(() -> {
          for (int i = next.getAndIncrement(); i < count; i = next.getAndIncrement()) {
            byte[] b = body.apply(i);
            String k = key.apply(i);
            s3.putObject(r -> r.bucket(bucket).key(k).contentLength((long) b.length), RequestBody.fromBytes(b));
          }
        }));
      }
      for (java.util.concurrent.Future<?> f : done) {
        f.get();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while uploading objects", e);
    } catch (java.util.concurrent.ExecutionException e) {
      throw new IllegalStateException("cannot upload objects: " + e.getCause(), e.getCause());
    } finally {
      pool.shutdownNow();
    }
  }

  static byte[] smallBody(String key, int size) {
    byte[] b = new byte[size];
    java.util.Arrays.fill(b, (byte) key.hashCode());
    return b;
  }

  /** Uploads a local file. */
  void putFile(String key, Path file) throws IOException {
    long length = java.nio.file.Files.size(file);
    put(key, length, (offset, n) -> {
      try {
        FileChannel ch = FileChannel.open(file, StandardOpenOption.READ);
        ch.position(offset);
        return new java.io.BufferedInputStream(boundedStream(Channels.newInputStream(ch), n), 1 << 16);
      } catch (IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
    });
  }

  private void put(String key, long length, BiFunction<Long, Long, InputStream> source) {
    if (length <= PART_SIZE) {
      s3.putObject(r -> r.bucket(bucket).key(key).contentLength(length),
          RequestBody.fromContentProvider(() -> source.apply(0L, length), length, "application/octet-stream"));
      return;
    }
    String uploadId = s3.createMultipartUpload(r -> r.bucket(bucket).key(key)).uploadId();
    try {
      List<CompletedPart> parts = new ArrayList<>();
      int number = 1;
      for (long offset = 0; offset < length; offset += PART_SIZE, number++) {
        long off = offset;
        long n = Math.min(PART_SIZE, length - offset);
        int partNumber = number;
        String etag = s3.uploadPart(r -> r.bucket(bucket).key(key).uploadId(uploadId).partNumber(partNumber)
                .contentLength(n),
            RequestBody.fromContentProvider(() -> source.apply(off, n), n, "application/octet-stream")).eTag();
        parts.add(CompletedPart.builder().partNumber(partNumber).eTag(etag).build());
      }
      s3.completeMultipartUpload(r -> r.bucket(bucket).key(key).uploadId(uploadId)
          .multipartUpload(m -> m.parts(parts)));
    } catch (RuntimeException e) {
      try {
        s3.abortMultipartUpload(r -> r.bucket(bucket).key(key).uploadId(uploadId));
      } catch (RuntimeException suppressed) {
        e.addSuppressed(suppressed);
      }
      throw e;
    }
  }

  private static InputStream boundedStream(InputStream in, long limit) {
    return new java.io.FilterInputStream(in) {
      private long left = limit;

      @Override
      public int read() throws IOException {
        if (left <= 0) {
          return -1;
        }
        int b = super.read();
        if (b >= 0) {
          left--;
        }
        return b;
      }

      @Override
      public int read(byte[] b, int off, int len) throws IOException {
        if (left <= 0) {
          return -1;
        }
        int n = super.read(b, off, (int) Math.min(len, left));
        if (n > 0) {
          left -= n;
        }
        return n;
      }
    };
  }

  @Override
  public void close() {
    s3.close();
  }
}
