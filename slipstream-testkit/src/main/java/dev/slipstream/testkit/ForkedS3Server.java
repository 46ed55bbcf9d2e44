/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.testkit;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * The same S3 server as {@link EmbeddedS3Server}, s3proxy over jclouds' {@code filesystem} provider,
 * but in a child JVM: for test classpaths where s3proxy's own dependencies (Jetty 11, jclouds, Guava)
 * clash with the code under test (Hadoop's Jetty 9, Spark's Jetty 12). It runs s3proxy's
 * {@code jar-with-dependencies} artifact, whose path the build passes in the system property
 * {@value #JAR_PROPERTY}. This class uses no s3proxy class, so it loads without s3proxy on the classpath.
 *
 * <p>Listens on 127.0.0.1, requires AWS signatures with {@link EmbeddedS3Server#ACCESS_KEY} /
 * {@link EmbeddedS3Server#SECRET_KEY}. A bucket is a directory of the base directory, so
 * {@link #createBucket} needs no request. {@link #close()} stops the child and deletes the directory.
 */
public final class ForkedS3Server implements AutoCloseable {
  public static final String JAR_PROPERTY = "slipstream.s3proxy.jar";
  private static final long START_TIMEOUT_MILLIS = 60_000;

  private final Path baseDir;
  private final Path dataDir;
  private final Path logFile;
  private final int port;
  private final Process process;

  private ForkedS3Server(Path jar) throws IOException, InterruptedException {
    this.baseDir = Files.createTempDirectory("slipstream-forked-s3-");
    this.dataDir = Files.createDirectories(baseDir.resolve("data"));
    this.logFile = baseDir.resolve("s3proxy.log");
    this.port = freePort();
    Properties p = new Properties();
    p.setProperty("s3proxy.endpoint", "http://127.0.0.1:" + port);
    p.setProperty("s3proxy.authorization", "aws-v2-or-v4");
    p.setProperty("s3proxy.identity", EmbeddedS3Server.ACCESS_KEY);
    p.setProperty("s3proxy.credential", EmbeddedS3Server.SECRET_KEY);
    p.setProperty("jclouds.provider", "filesystem");
    p.setProperty("jclouds.filesystem.basedir", dataDir.toString());
    Path props = baseDir.resolve("s3proxy.properties");
    try (OutputStream out = Files.newOutputStream(props)) {
      p.store(out, "written by ForkedS3Server");
    }
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    this.process = new ProcessBuilder(List.of(java, "-Xmx512m", "-jar", jar.toString(), "--properties", props.toString()))
        .redirectErrorStream(true)
        .redirectOutput(logFile.toFile())
        .start();
    awaitListening();
  }

  /** Starts s3proxy in a child JVM; fails with a clear message if the jar is not configured. */
  public static ForkedS3Server start() {
    String jar = System.getProperty(JAR_PROPERTY);
    if (jar == null || !Files.isRegularFile(Path.of(jar))) {
      throw new IllegalStateException("system property " + JAR_PROPERTY + " must name s3proxy's jar-with-dependencies"
          + " (the build copies it into target/); got " + jar);
    }
    try {
      return new ForkedS3Server(Path.of(jar));
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

  /** The directory holding the buckets (one subdirectory each). */
  public Path dataDir() {
    return dataDir;
  }

  public void createBucket(String bucket) {
    try {
      Files.createDirectories(dataDir.resolve(bucket));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
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
    close();
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
    process.destroy();
    try {
      if (!process.waitFor(10, TimeUnit.SECONDS)) {
        process.destroyForcibly();
        process.waitFor(10, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    try (Stream<Path> paths = Files.walk(baseDir)) {
      paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException e) {
      // best effort
    }
  }
}
