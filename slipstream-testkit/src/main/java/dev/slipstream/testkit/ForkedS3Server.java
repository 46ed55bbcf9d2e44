/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.testkit;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.HttpURLConnection;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.Base64;
import java.util.List;
import java.util.Properties;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The same S3 server as {@link EmbeddedS3Server}, s3proxy over jclouds' {@code filesystem} provider,
 * but in a child JVM: for test classpaths where s3proxy's own dependencies (Jetty 11, jclouds, Guava)
 * clash with the code under test (Hadoop's Jetty 9, Spark's Jetty 12). It runs s3proxy's
 * {@code jar-with-dependencies} artifact, whose path the build passes in the system property
 * {@value #JAR_PROPERTY}. This class uses no s3proxy class, so it loads without s3proxy on the classpath.
 *
 * <p>Listens on 127.0.0.1, requires AWS signatures with {@link EmbeddedS3Server#ACCESS_KEY} /
 * {@link EmbeddedS3Server#SECRET_KEY}. {@link #close()} stops the child and deletes its directory.
 *
 * <p>Two {@link Storage storages}: {@link Storage#FILESYSTEM} (the default) keeps objects as files,
 * a bucket being a directory of the base directory, so {@link #createBucket} needs no request; but
 * like any file system it cannot hold both {@code a} and {@code a/b}, nor list an empty
 * {@code dir/} marker object. {@link Storage#TRANSIENT} keeps objects in the child's memory under
 * their exact keys, as S3 does, which is what Hadoop's directory emulation (S3A) needs;
 * {@link #createBucket} then sends a signed PUT Bucket.
 */
public final class ForkedS3Server implements AutoCloseable {
  public static final String JAR_PROPERTY = "slipstream.s3proxy.jar";
  private static final long START_TIMEOUT_MILLIS = 60_000;

  /** Where the child keeps objects. */
  public enum Storage {
    /** Files under a temporary directory (jclouds {@code filesystem}). */
    FILESYSTEM,
    /** The child JVM's heap (jclouds {@code transient}): exact S3 key semantics, lost on close. */
    TRANSIENT
  }

  private final Storage storage;
  private final Path baseDir;
  private final Path dataDir;
  private final Path logFile;
  private final int port;
  private final ChildServer child;
  private final Process process;

  private ForkedS3Server(Path jar, Storage storage) throws IOException, InterruptedException {
    this.storage = storage;
    this.baseDir = Files.createTempDirectory("slipstream-forked-s3-");
    this.dataDir = Files.createDirectories(baseDir.resolve("data"));
    this.logFile = baseDir.resolve("s3proxy.log");
    this.port = freePort();
    Properties p = new Properties();
    p.setProperty("s3proxy.endpoint", "http://127.0.0.1:" + port);
    p.setProperty("s3proxy.authorization", "aws-v2-or-v4");
    p.setProperty("s3proxy.identity", EmbeddedS3Server.ACCESS_KEY);
    p.setProperty("s3proxy.credential", EmbeddedS3Server.SECRET_KEY);
    // AWS SDK 2.30+ adds flexible-checksum headers (x-amz-checksum-crc32, ...) to requests that need a
    // checksum, such as DeleteObjects; s3proxy answers any x-amz- header it does not know with
    // 501 NotImplemented unless told to ignore it. S3 itself accepts them.
    p.setProperty("s3proxy.ignore-unknown-headers", "true");
    if (storage == Storage.FILESYSTEM) {
      p.setProperty("jclouds.provider", "filesystem");
      p.setProperty("jclouds.filesystem.basedir", dataDir.toString());
    } else {
      p.setProperty("jclouds.provider", "transient");
    }
    Path props = baseDir.resolve("s3proxy.properties");
    try (OutputStream out = Files.newOutputStream(props)) {
      p.store(out, "written by ForkedS3Server");
    }
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    this.child = ChildServer.start(List.of(java, "-Xmx512m", "-jar", jar.toString(), "--properties", props.toString()),
        baseDir, logFile, "forked-s3proxy");
    this.process = child.process();
    try {
      awaitListening();
    } catch (IOException | InterruptedException | RuntimeException e) {
      close();
      throw e;
    }
  }

  /** Starts s3proxy in a child JVM over {@link Storage#FILESYSTEM}; fails with a clear message if the jar is not configured. */
  public static ForkedS3Server start() {
    return start(Storage.FILESYSTEM);
  }

  /** Starts s3proxy in a child JVM over {@code storage}; fails with a clear message if the jar is not configured. */
  public static ForkedS3Server start(Storage storage) {
    String jar = System.getProperty(JAR_PROPERTY);
    if (jar == null || !Files.isRegularFile(Path.of(jar))) {
      throw new IllegalStateException("system property " + JAR_PROPERTY + " must name s3proxy's jar-with-dependencies"
          + " (the build copies it into target/); got " + jar);
    }
    try {
      return new ForkedS3Server(Path.of(jar), storage);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start s3proxy in a child JVM", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while starting s3proxy", e);
    }
  }

  public URI endpoint() {
    return URI.create("http://127.0.0.1:" + port);
  }

  public int port() {
    return port;
  }

  public Storage storage() {
    return storage;
  }

  /** The directory holding the buckets (one subdirectory each); only for {@link Storage#FILESYSTEM}. */
  public Path dataDir() {
    if (storage != Storage.FILESYSTEM) {
      throw new IllegalStateException("a " + storage + " server keeps no data directory");
    }
    return dataDir;
  }

  /** Creates a bucket (S3 rules: 3 to 63 characters of lowercase letters, digits, '-' and '.'). */
  public void createBucket(String bucket) {
    if (!bucket.matches("[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]")) {
      throw new IllegalArgumentException("not a valid S3 bucket name: '" + bucket + "'");
    }
    if (storage == Storage.FILESYSTEM) {
      try {
        Files.createDirectories(dataDir.resolve(bucket));
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      return;
    }
    try {
      putBucket(bucket);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create bucket " + bucket + ": " + log(), e);
    }
  }

  /** PUT Bucket signed with AWS signature version 2, which s3proxy accepts next to version 4. */
  private void putBucket(String bucket) throws IOException {
    String date = DateTimeFormatter.RFC_1123_DATE_TIME.format(ZonedDateTime.now(ZoneOffset.UTC));
    String stringToSign = "PUT\n\n\n" + date + "\n/" + bucket;
    String signature;
    try {
      Mac mac = Mac.getInstance("HmacSHA1");
      mac.init(new SecretKeySpec(EmbeddedS3Server.SECRET_KEY.getBytes(StandardCharsets.UTF_8), "HmacSHA1"));
      signature = Base64.getEncoder().encodeToString(mac.doFinal(stringToSign.getBytes(StandardCharsets.UTF_8)));
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("HmacSHA1 unavailable", e);
    }
    HttpURLConnection c = (HttpURLConnection) endpoint().resolve("/" + bucket).toURL().openConnection();
    try {
      c.setRequestMethod("PUT");
      c.setConnectTimeout(10_000);
      c.setReadTimeout(30_000);
      c.setRequestProperty("Date", date);
      c.setRequestProperty("Authorization", "AWS " + EmbeddedS3Server.ACCESS_KEY + ":" + signature);
      c.setDoOutput(true);
      c.setFixedLengthStreamingMode(0);
      c.getOutputStream().close();
      int status = c.getResponseCode();
      if (status != 200) {
        InputStream err = c.getErrorStream();
        String body = err == null ? "" : new String(err.readAllBytes(), StandardCharsets.UTF_8);
        throw new IOException("PUT Bucket " + bucket + " answered " + status + ": " + body);
      }
      c.getInputStream().readAllBytes();
    } finally {
      c.disconnect();
    }
  }

  private void awaitListening() throws IOException, InterruptedException {
    long deadline = System.currentTimeMillis() + START_TIMEOUT_MILLIS;
    while (System.currentTimeMillis() < deadline) {
      if (!process.isAlive()) {
        throw new IOException("s3proxy exited with " + process.exitValue() + " at start: " + log());
      }
      try (Socket s = new Socket()) {
        s.connect(new InetSocketAddress("127.0.0.1", port), 200);
        return;
      } catch (IOException notYet) {
        Thread.sleep(100);
      }
    }
    throw new IOException("s3proxy did not listen on port " + port + " within " + START_TIMEOUT_MILLIS + " ms: " + log());
  }

  private String log() {
    try {
      String text = Files.readString(logFile, StandardCharsets.UTF_8);
      return text.length() > 4000 ? text.substring(text.length() - 4000) : text;
    } catch (IOException e) {
      return "(no log: " + e + ")";
    }
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }

  @Override
  public void close() {
    child.stop(true);
  }
}
