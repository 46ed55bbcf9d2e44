/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.testkit;

import com.google.common.io.ByteSource;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Objects;
import java.util.Properties;
import java.util.stream.Stream;
import org.gaul.s3proxy.AuthenticationType;
import org.gaul.s3proxy.S3Proxy;
import org.jclouds.ContextBuilder;
import org.jclouds.blobstore.BlobStore;
import org.jclouds.blobstore.BlobStoreContext;
import org.jclouds.blobstore.domain.Blob;
import org.jclouds.io.payloads.ByteSourcePayload;

/**
 * A real S3 server in this JVM: s3proxy over jclouds' {@code filesystem} provider, in a temporary
 * directory, listening on an ephemeral port of 127.0.0.1 and requiring AWS signatures (V2 or V4) with
 * the fixed test credentials {@link #ACCESS_KEY} / {@link #SECRET_KEY}.
 *
 * <p>It honours ranged GETs, {@code If-Match} (412 on a mismatch) and returns MD5 ETags, which is all
 * the read path needs. Objects are written straight into the blob store (no HTTP), so test set-up
 * never goes through a {@link LinkShaper} by accident.
 */
public final class EmbeddedS3Server implements AutoCloseable {
  public static final String ACCESS_KEY = "slipstream-test-access";
  public static final String SECRET_KEY = "slipstream-test-secret-key-not-a-real-one";
  public static final String REGION = "us-east-1";

  private final Path baseDir;
  private final boolean deleteOnClose;
  private final BlobStoreContext context;
  private final S3Proxy proxy;

  private EmbeddedS3Server(Path baseDir, boolean deleteOnClose) throws Exception {
    this.baseDir = baseDir;
    this.deleteOnClose = deleteOnClose;
    Properties props = new Properties();
    props.setProperty("jclouds.filesystem.basedir", baseDir.toString());
    this.context = ContextBuilder.newBuilder("filesystem")
        .overrides(props)
        .build(BlobStoreContext.class);
    this.proxy = S3Proxy.builder()
        .blobStore(context.getBlobStore())
        .endpoint(URI.create("http://127.0.0.1:0"))
        .awsAuthentication(AuthenticationType.AWS_V2_OR_V4, ACCESS_KEY, SECRET_KEY)
        .jettyMaxThreads(256)
        .build();
    proxy.start();
    long deadline = System.nanoTime() + 30_000_000_000L;
    while (!"STARTED".equals(proxy.getState())) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("s3proxy did not start within 30 s: " + proxy.getState());
      }
      Thread.sleep(10);
    }
  }

  /** Starts a server over a new temporary directory, deleted on {@link #close()}. */
  public static EmbeddedS3Server start() {
    try {
      return new EmbeddedS3Server(Files.createTempDirectory("slipstream-s3-"), true);
    } catch (RuntimeException e) {
      throw e;
    } catch (Exception e) {
      throw new IllegalStateException("cannot start the embedded S3 server", e);
    }
  }

  /** Starts a server over {@code dir}, kept on {@link #close()}. */
  public static EmbeddedS3Server start(Path dir) {
    try {
      Files.createDirectories(dir);
      return new EmbeddedS3Server(dir, false);
    } catch (RuntimeException e) {
      throw e;
    } catch (Exception e) {
      throw new IllegalStateException("cannot start the embedded S3 server over " + dir, e);
    }
  }

  public int port() {
    return proxy.getPort();
  }

  /** {@code http://127.0.0.1:PORT}: use with path-style access and region {@link #REGION}. */
  public URI endpoint() {
    return URI.create("http://127.0.0.1:" + port());
  }

  public BlobStore blobStore() {
    return context.getBlobStore();
  }

  public void createBucket(String bucket) {
    blobStore().createContainerInLocation(null, bucket);
  }

  public void putObject(String bucket, String key, byte[] data) {
    Blob blob = blobStore().blobBuilder(key).payload(data).contentLength(data.length).build();
    blobStore().putBlob(bucket, blob);
  }

  /** Uploads {@code size} bytes of {@link TestData} generated from {@code seed}. */
  public void putGenerated(String bucket, String key, long seed, long size) {
    ByteSource source = new ByteSource() {
      @Override
      public InputStream openStream() {
        return TestData.stream(seed, size);
      }

      @Override
      public long size() {
        return size;
      }
    };
    Blob blob = blobStore().blobBuilder(key)
        .payload(new ByteSourcePayload(source))
        .contentLength(size)
        .build();
    blobStore().putBlob(bucket, blob);
  }

  public void putFile(String bucket, String key, Path file) {
    try {
      Blob blob = blobStore().blobBuilder(key).payload(file.toFile()).contentLength(Files.size(file)).build();
      blobStore().putBlob(bucket, blob);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  public byte[] getObject(String bucket, String key) {
    Blob blob = Objects.requireNonNull(blobStore().getBlob(bucket, key), "no object " + bucket + "/" + key);
    try (InputStream in = blob.getPayload().openStream()) {
      return in.readAllBytes();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  public String etag(String bucket, String key) {
    return blobStore().blobMetadata(bucket, key).getETag();
  }

  public void deleteObject(String bucket, String key) {
    blobStore().removeBlob(bucket, key);
  }

  @Override
  public void close() {
    try {
      proxy.stop();
    } catch (Exception e) {
      throw new IllegalStateException("cannot stop the embedded S3 server", e);
    } finally {
      context.close();
      if (deleteOnClose) {
        deleteTree(baseDir);
      }
    }
  }

  private static void deleteTree(Path dir) {
    try (Stream<Path> paths = Files.walk(dir)) {
      paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException e) {
      // best effort: a temporary directory left behind is not worth failing a test run
    }
  }
}
