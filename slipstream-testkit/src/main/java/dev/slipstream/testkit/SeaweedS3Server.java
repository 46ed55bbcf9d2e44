/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.testkit;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.HttpURLConnection;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * A real SeaweedFS (Apache 2.0) on 127.0.0.1, master, volume server, filer and S3 gateway in one {@code weed
 * server} process, for what s3proxy does not enforce: SeaweedFS's S3 gateway stores an object PUT with an SSE-C
 * key encrypted, and refuses a GET or HEAD of it without the key (400) or with another key (403), as S3 does
 * (checked with a plain S3 client before it was chosen; moto's server serves such an object to anyone). It also
 * honours ranged GETs, {@code If-Match} (412) and ListObjectsV2.
 *
 * <p>The binary: {@code $WEED}, else the one {@code bin/install-test-deps} builds with Go into
 * {@code ~/.cache/slipstream/seaweedfs/weed}, else {@code weed} on the {@code PATH}. Every port is a free one
 * of 127.0.0.1; no identities are configured, so any signature is accepted. {@link #close()} kills the process
 * by its own id and deletes its directory.
 */
public final class SeaweedS3Server implements AutoCloseable {
  private static final long START_TIMEOUT_MILLIS = 90_000;
  /** The bucket the start-up probe writes to: a write succeeds only once the filer and a volume server are up. */
  private static final String PROBE_BUCKET = "seaweed-ready-probe";

  private final Path baseDir;
  private final Path logFile;
  private final int s3Port;
  private final List<Integer> ports;
  private final ChildServer child;
  private final Process process;

  private SeaweedS3Server(String binary) throws IOException, InterruptedException {
    this.baseDir = Files.createTempDirectory("slipstream-seaweed-");
    Path data = Files.createDirectories(baseDir.resolve("data"));
    this.logFile = baseDir.resolve("weed.log");
    this.ports = freePorts(8);
    this.s3Port = ports.get(6);
    List<String> cmd = List.of(binary, "server", "-ip=127.0.0.1", "-ip.bind=127.0.0.1", "-dir=" + data,
        "-master.port=" + ports.get(0), "-master.port.grpc=" + ports.get(1), "-master.volumeSizeLimitMB=64",
        "-volume.port=" + ports.get(2), "-volume.port.grpc=" + ports.get(3), "-volume.max=16",
        "-volume.preStopSeconds=0",
        "-filer", "-filer.port=" + ports.get(4), "-filer.port.grpc=" + ports.get(5),
        "-filer.localSocket=" + baseDir.resolve("filer.sock"),
        "-s3", "-s3.port=" + s3Port, "-s3.port.grpc=" + ports.get(7), "-s3.localSocket=" + baseDir.resolve("s3.sock"),
        "-s3.port.iceberg=0", "-s3.port.lance=0");
    this.child = ChildServer.start(cmd, baseDir, logFile, "seaweedfs");
    this.process = child.process();
    try {
      awaitReady();
    } catch (IOException | InterruptedException | RuntimeException e) {
      close();
      throw e;
    }
  }

  /** Starts SeaweedFS; a clear error if it is not installed or does not come up. */
  public static SeaweedS3Server start() {
    String binary = binary();
    IOException last = null;
    for (int attempt = 0; attempt < 3; attempt++) {
      try {
        return new SeaweedS3Server(binary);
      } catch (IOException e) {
        last = e; // most likely a port taken between choosing it and binding it: other ports
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while starting SeaweedFS", e);
      }
    }
    throw new UncheckedIOException("cannot start SeaweedFS (" + binary + ")", last);
  }

  /** The {@code weed} binary; a clear error naming how to install it when there is none. */
  static String binary() {
    String env = System.getenv("WEED");
    if (env != null && !env.isBlank()) {
      return env;
    }
    Path built = Path.of(System.getProperty("user.home"), ".cache", "slipstream", "seaweedfs", "weed");
    if (Files.isExecutable(built)) {
      return built.toString();
    }
    for (String dir : System.getenv().getOrDefault("PATH", "").split(":")) {
      if (!dir.isEmpty() && Files.isExecutable(Path.of(dir, "weed"))) {
        return Path.of(dir, "weed").toString();
      }
    }
    throw new IllegalStateException("SeaweedFS is not installed: the SSE-C tests start a real SeaweedFS server."
        + " Run bin/install-test-deps (it builds SeaweedFS's weed with Go into " + built + ") or set WEED to its path");
  }

  /** {@code http://127.0.0.1:port} of the S3 gateway: use with path-style access. */
  public URI endpoint() {
    return URI.create("http://127.0.0.1:" + s3Port);
  }

  /** Creates a bucket (S3 rules: 3 to 63 characters of lowercase letters, digits, '-' and '.'). */
  public void createBucket(String bucket) {
    if (!bucket.matches("[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]")) {
      throw new IllegalArgumentException("not a valid S3 bucket name: '" + bucket + "'");
    }
    try {
      int status = put("/" + bucket, new byte[0]);
      if (status != 200) {
        throw new IOException("PUT Bucket " + bucket + " answered " + status);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create bucket " + bucket + ": " + log(), e);
    }
  }

  /** Waits until a bucket can be made and an object written: the filer and a volume server have joined. */
  private void awaitReady() throws IOException, InterruptedException {
    long deadline = System.currentTimeMillis() + START_TIMEOUT_MILLIS;
    String last = "no answer";
    while (System.currentTimeMillis() < deadline) {
      if (!process.isAlive()) {
        throw new IOException("SeaweedFS exited with " + process.exitValue() + " at start: " + log());
      }
      try {
        int bucket = put("/" + PROBE_BUCKET, new byte[0]);
        int object = bucket == 200 || bucket == 409 ? put("/" + PROBE_BUCKET + "/probe", new byte[] {1}) : -1;
        if (object == 200) {
          return;
        }
        last = "PUT Bucket answered " + bucket + ", PUT Object " + object;
      } catch (IOException notYet) {
        last = notYet.toString();
      }
      Thread.sleep(200);
    }
    throw new IOException("SeaweedFS's S3 gateway on port " + s3Port + " was not ready within "
        + START_TIMEOUT_MILLIS + " ms (" + last + "): " + log());
  }

  private int put(String path, byte[] body) throws IOException {
    HttpURLConnection c = (HttpURLConnection) endpoint().resolve(path).toURL().openConnection();
    try {
      c.setRequestMethod("PUT");
      c.setConnectTimeout(2_000);
      c.setReadTimeout(10_000);
      c.setDoOutput(true);
      c.setFixedLengthStreamingMode(body.length);
      try (var out = c.getOutputStream()) {
        out.write(body);
      }
      int status = c.getResponseCode();
      try (InputStream in = status < 400 ? c.getInputStream() : c.getErrorStream()) {
        if (in != null) {
          in.readAllBytes();
        }
      }
      return status;
    } finally {
      c.disconnect();
    }
  }

  private String log() {
    try {
      String text = Files.readString(logFile, StandardCharsets.UTF_8);
      return text.length() > 4000 ? text.substring(text.length() - 4000) : text;
    } catch (IOException e) {
      return "(no log: " + e + ")";
    }
  }

  private static List<Integer> freePorts(int n) throws IOException {
    List<ServerSocket> held = new ArrayList<>();
    try {
      List<Integer> ports = new ArrayList<>();
      for (int i = 0; i < n; i++) {
        ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
        held.add(s); // held until all are chosen, so that no two are the same
        ports.add(s.getLocalPort());
      }
      return ports;
    } finally {
      for (ServerSocket s : held) {
        s.close();
      }
    }
  }

  /** Kills the server (its data is thrown away anyway) and deletes its directory and the sockets it made. */
  @Override
  public void close() {
    child.stop(false);
    // The gRPC servers' sockets have no flag: each is made in the temporary directory, named by its port.
    Path tmp = Path.of(System.getProperty("java.io.tmpdir"));
    for (int port : ports) {
      try (var sockets = Files.newDirectoryStream(tmp, "seaweedfs-*-" + port + ".sock")) {
        for (Path socket : sockets) {
          Files.deleteIfExists(socket);
        }
      } catch (IOException e) {
        // best effort
      }
    }
  }
}
