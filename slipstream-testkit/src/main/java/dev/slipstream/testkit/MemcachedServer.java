/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.testkit;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A real memcached process on 127.0.0.1, as a user runs it: Debian's {@code memcached} (or the one on
 * {@code PATH}, or at {@code $MEMCACHED}), started on a free port, stopped by its own process id. {@link
 * #pause} and {@link #resume} send SIGSTOP and SIGCONT (a server that hangs), {@link #kill} SIGKILL.
 */
public final class MemcachedServer implements AutoCloseable {
  private volatile Process process;
  private final int port;
  private final int memoryMb;
  private final String[] options;

  private MemcachedServer(Process process, int port, int memoryMb, String[] options) {
    this.process = process;
    this.port = port;
    this.memoryMb = memoryMb;
    this.options = options.clone();
  }

  /** Starts memcached with {@code memoryMb} of memory and these extra options (e.g. {@code -I 2m}). */
  public static MemcachedServer start(int memoryMb, String... options) throws IOException {
    IOException last = null;
    for (int attempt = 0; attempt < 5; attempt++) {
      int port = freePort();
      try {
        return new MemcachedServer(launch(port, memoryMb, options), port, memoryMb, options);
      } catch (IOException e) {
        last = e; // the port was taken in the meantime: another one
      }
    }
    throw last;
  }

  /** After {@link #kill}: a new, empty memcached on the same port, with the same options. */
  public void restart() throws IOException {
    if (process.isAlive()) {
      throw new IllegalStateException("memcached on port " + port + " is still running");
    }
    process = launch(port, memoryMb, options);
  }

  private static Process launch(int port, int memoryMb, String[] options) throws IOException {
    List<String> cmd = new ArrayList<>(List.of(binary(), "-l", "127.0.0.1", "-p", String.valueOf(port), "-U", "0",
        "-m", String.valueOf(memoryMb), "-t", "2", "-c", "256"));
    if (isRoot()) {
      cmd.add("-u");
      cmd.add("root"); // memcached refuses to run as root without being told to
    }
    cmd.addAll(List.of(options));
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD)
        .start();
    if (awaitListening(p, port)) {
      return p;
    }
    p.destroyForcibly();
    throw new IOException("memcached did not start listening on 127.0.0.1:" + port + " (" + String.join(" ", cmd)
        + ")" + (p.isAlive() ? "" : ", exit " + exitValue(p)));
  }

  /** Empties the server ({@code flush_all}). */
  public void flushAll() throws IOException {
    try (java.net.Socket s = new java.net.Socket("127.0.0.1", port)) {
      s.getOutputStream().write("flush_all\r\n".getBytes(java.nio.charset.StandardCharsets.US_ASCII));
      s.getOutputStream().flush();
      String answer = new java.io.BufferedReader(new java.io.InputStreamReader(s.getInputStream(),
          java.nio.charset.StandardCharsets.US_ASCII)).readLine();
      if (!"OK".equals(answer)) {
        throw new IOException("flush_all on 127.0.0.1:" + port + " answered " + answer);
      }
    }
  }

  /**
   * One counter of the server's {@code stats} ({@code total_items}: items ever stored, {@code curr_items}: held
   * now, {@code cmd_set}: set commands received, ...).
   */
  public long stat(String name) throws IOException {
    try (java.net.Socket s = new java.net.Socket("127.0.0.1", port)) {
      s.getOutputStream().write("stats\r\n".getBytes(java.nio.charset.StandardCharsets.US_ASCII));
      s.getOutputStream().flush();
      java.io.BufferedReader in = new java.io.BufferedReader(new java.io.InputStreamReader(s.getInputStream(),
          java.nio.charset.StandardCharsets.US_ASCII));
      for (String line = in.readLine(); line != null && !line.equals("END"); line = in.readLine()) {
        String[] parts = line.split(" ");
        if (parts.length == 3 && parts[0].equals("STAT") && parts[1].equals(name)) {
          return Long.parseLong(parts[2]);
        }
      }
    }
    throw new IOException("memcached on 127.0.0.1:" + port + " has no stat " + name);
  }

  /** The binary: $MEMCACHED, else memcached on PATH or in /usr/bin; a clear error if there is none. */
  static String binary() throws IOException {
    String env = System.getenv("MEMCACHED");
    if (env != null && !env.isBlank()) {
      return env;
    }
    for (String dir : System.getenv().getOrDefault("PATH", "/usr/bin").split(":")) {
      Path p = Path.of(dir, "memcached");
      if (Files.isExecutable(p)) {
        return p.toString();
      }
    }
    if (Files.isExecutable(Path.of("/usr/bin/memcached"))) {
      return "/usr/bin/memcached";
    }
    throw new IOException("memcached is not installed: the shared tier's tests start real memcached servers."
        + " Install it (Debian: apt-get install memcached) or set MEMCACHED to its path");
  }

  public InetSocketAddress address() {
    return new InetSocketAddress("127.0.0.1", port);
  }

  /** {@code 127.0.0.1:port}, as shared.servers lists it. */
  public String hostPort() {
    return "127.0.0.1:" + port;
  }

  public long pid() {
    return process.pid();
  }

  /** SIGSTOP: the server keeps its connections and answers nothing. */
  public void pause() throws IOException {
    signal("STOP");
  }

  /** SIGCONT: the server answers again. */
  public void resume() throws IOException {
    signal("CONT");
  }

  /** SIGKILL, and waits for the process to end. */
  public void kill() {
    process.destroyForcibly();
    try {
      process.waitFor(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  public boolean isAlive() {
    return process.isAlive();
  }

  @Override
  public void close() {
    if (process.isAlive()) {
      try {
        resume(); // a stopped process would not see SIGTERM until continued
      } catch (IOException ignored) {
        // it is killed below anyway
      }
      process.destroy();
      try {
        if (!process.waitFor(5, TimeUnit.SECONDS)) {
          kill();
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        kill();
      }
    }
  }

  private void signal(String name) throws IOException {
    try {
      int rc = new ProcessBuilder("kill", "-" + name, String.valueOf(process.pid())).start().waitFor();
      if (rc != 0) {
        throw new IOException("kill -" + name + " " + process.pid() + " failed with " + rc);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while signalling memcached", e);
    }
  }

  private static boolean awaitListening(Process p, int port) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (System.nanoTime() < deadline && p.isAlive()) {
      try (Socket s = new Socket()) {
        s.connect(new InetSocketAddress("127.0.0.1", port), 200);
        return true;
      } catch (IOException notYet) {
        try {
          Thread.sleep(20);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return false;
        }
      }
    }
    return false;
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }

  private static boolean isRoot() {
    return "root".equals(System.getProperty("user.name"));
  }

  private static String exitValue(Process p) {
    try {
      return String.valueOf(p.exitValue());
    } catch (IllegalThreadStateException e) {
      return "none";
    }
  }
}
