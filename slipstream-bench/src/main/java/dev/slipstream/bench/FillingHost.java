/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.bench;

import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.zip.CRC32C;

/**
 * Host A of the {@code cluster-*} workloads, the main class of a JVM of its own ({@link FillingHostProcess}
 * starts it): a Slipstream client that reads one object start to end, checking its CRC32C, and so fills the
 * shared tier for host B, the benchmark's timed reader in another process. It opens the same reader as host
 * B, with the same settings: the shared tier's block names are a keyed hash of {@code shared.namespace},
 * bucket, key, ETag, {@code block.size} and the block's index, so B finds A's blocks only where the
 * namespace, the secret and the block size are B's. Closing the client waits for its background writes to
 * the pool (bounded), so the pool holds what A wrote when the process ends.
 *
 * <p>What to read, and the settings, come on standard input as properties ({@link Request}), never as
 * arguments: {@code shared.secret} is among them, and a command line is visible to every user of the
 * machine (ps, /proc/PID/cmdline). A pipe leaves nothing behind, where a file, however private, outlives a
 * parent killed before it could delete it, and an environment variable is inherited by every process
 * this one might start. On success it prints one line ({@link Filled#line}) to standard output and exits 0;
 * on any failure it prints {@value #FAILED} and the cause to standard error and exits 1.
 */
final class FillingHost {
  /** How a failure's line begins. */
  static final String FAILED = "host A failed: ";

  private FillingHost() {}

  public static void main(String[] args) {
    int status = 1;
    try {
      Filled filled = fill(Request.read(System.in));
      System.out.println(filled.line());
      System.out.flush();
      status = 0;
    } catch (Exception | Error e) {
      System.err.println(FAILED + Report.reason(e));
      System.err.flush();
    }
    // The S3 client's and the memcached client's threads would keep the JVM running.
    System.exit(status);
  }

  /** Reads {@code r}'s object start to end with a fresh session of its reader; closes it; checks the bytes. */
  static Filled fill(Request r) throws IOException {
    ReadSession session = Readers.byName(r.reader()).open(new Target(r.endpoint(), r.bucket()), r.settings());
    long total = 0;
    CRC32C crc = new CRC32C();
    try {
      FileRef ref = session.stat(r.key());
      byte[] buf = new byte[1 << 20];
      try (ObjectStream in = session.open(ref)) {
        int n;
        while ((n = in.read(buf, 0, buf.length)) > 0) {
          crc.update(buf, 0, n);
          total += n;
        }
      }
    } finally {
      session.close(); // waits for the writes to the pool
    }
    if (total != r.length() || crc.getValue() != r.crc32c()) {
      throw new IOException("host A read wrong bytes from s3://" + r.bucket() + "/" + r.key() + ": " + total
          + " bytes with CRC32C " + Long.toHexString(crc.getValue()) + ", the object has " + r.length()
          + " with " + Long.toHexString(r.crc32c()));
    }
    Map<String, Long> shared = new TreeMap<>();
    session.slipstreamCounters().forEach((name, value) -> {
      if (name.startsWith("shared_") && !name.contains("_latency_")) {
        shared.put(name, value);
      }
    });
    return new Filled(total, crc.getValue(), shared);
  }

  /**
   * What host A is to read, and how: a reader of the benchmark, the S3 endpoint and bucket, the object with
   * its length and CRC32C, and the Slipstream settings (keys without prefix) of the workload.
   */
  record Request(String reader, URI endpoint, String bucket, String key, long length, long crc32c,
      Map<String, String> settings) {
    private static final String SETTING = "setting.";

    Request {
      settings = Map.copyOf(settings);
    }

    /** As properties text, for the child's standard input. */
    String text() {
      Properties p = new Properties();
      p.setProperty("reader", reader);
      p.setProperty("endpoint", endpoint.toString());
      p.setProperty("bucket", bucket);
      p.setProperty("key", key);
      p.setProperty("length", Long.toString(length));
      p.setProperty("crc32c", Long.toString(crc32c));
      settings.forEach((k, v) -> p.setProperty(SETTING + k, v));
      StringWriter w = new StringWriter();
      try {
        p.store(w, null);
      } catch (IOException e) {
        throw new UncheckedIOException(e); // a StringWriter does not fail
      }
      return w.toString();
    }

    /** Reads the properties {@link #text} wrote from {@code in}, to its end. */
    static Request read(InputStream in) throws IOException {
      Properties p = new Properties();
      p.load(new InputStreamReader(in, StandardCharsets.UTF_8));
      Map<String, String> settings = new LinkedHashMap<>();
      for (String name : p.stringPropertyNames()) {
        if (name.startsWith(SETTING)) {
          settings.put(name.substring(SETTING.length()), p.getProperty(name));
        }
      }
      try {
        return new Request(required(p, "reader"), URI.create(required(p, "endpoint")), required(p, "bucket"),
            required(p, "key"), Long.parseLong(required(p, "length")), Long.parseLong(required(p, "crc32c")),
            settings);
      } catch (IllegalArgumentException e) {
        throw new IOException("bad request on standard input: " + e.getMessage(), e);
      }
    }

    private static String required(Properties p, String name) throws IOException {
      String v = p.getProperty(name);
      if (v == null) {
        throw new IOException("no '" + name + "' in the request on standard input");
      }
      return v;
    }

    /** Without the settings' values: {@code shared.secret} is one of them. */
    @Override
    public String toString() {
      return "Request[" + reader + ", " + endpoint + ", s3://" + bucket + "/" + key + ", " + length
          + " bytes, settings " + settings.keySet() + "]";
    }
  }

  /**
   * What host A did: the bytes it read, their CRC32C, and its client's {@code shared_*} counters after close,
   * latencies left out (e.g. {@code shared_sets}, the blocks it wrote to the pool, and {@code
   * shared_sets_dropped}, those its writer dropped with too many writes waiting).
   */
  record Filled(long bytes, long crc32c, Map<String, Long> shared) {
    /** How the result line begins. */
    static final String PREFIX = "host A filled:";

    Filled {
      shared = Map.copyOf(shared);
    }

    /** One line: {@code host A filled: bytes=N crc32c=HEX shared_hits=N ...}. */
    String line() {
      StringBuilder b = new StringBuilder(PREFIX).append(" bytes=").append(bytes).append(" crc32c=")
          .append(Long.toHexString(crc32c));
      new TreeMap<>(shared).forEach((k, v) -> b.append(' ').append(k).append('=').append(v));
      return b.toString();
    }

    /** The line {@link #line} printed; null if {@code line} is not one. */
    static Filled parse(String line) {
      if (!line.startsWith(PREFIX)) {
        return null;
      }
      long bytes = -1;
      long crc = -1;
      Map<String, Long> shared = new TreeMap<>();
      try {
        for (String field : line.substring(PREFIX.length()).trim().split(" ")) {
          int eq = field.indexOf('=');
          if (eq < 0) {
            return null;
          }
          String name = field.substring(0, eq);
          String value = field.substring(eq + 1);
          switch (name) {
            case "bytes" -> bytes = Long.parseLong(value);
            case "crc32c" -> crc = Long.parseUnsignedLong(value, 16);
            default -> shared.put(name, Long.parseLong(value));
          }
        }
      } catch (NumberFormatException e) {
        return null;
      }
      return bytes < 0 || crc < 0 ? null : new Filled(bytes, crc, shared);
    }
  }
}
