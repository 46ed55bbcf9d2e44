/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.iceberg;

import static org.assertj.core.api.Assertions.assertThat;

import dev.slipstream.Counter;
import dev.slipstream.testkit.MemcachedServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.io.OutputFile;
import org.apache.iceberg.io.SeekableInputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The jar users add beside Iceberg's runtime and AWS bundle ({@code target/slipstream-iceberg-<version>.jar},
 * built by the shade plugin in {@code package}), after it is built: every class in it is Slipstream's, the
 * shared tier's client (Folsom, Netty, Guava) relocated under {@code dev.slipstream.shaded}; and two
 * {@link SlipstreamFileIO}s, each in a JVM of its own with the jar and what an Iceberg job has (the runtime,
 * the AWS bundle, slf4j) on its class path, share a file's blocks through a real memcached.
 */
class DropInJarIT {
  private static final Path JAR = Path.of(System.getProperty("slipstream.dropin.jar", "target/missing.jar"));
  private static final String BUCKET = "lake";

  @Test
  void everyClassInTheJarIsSlipstreamsOrRelocatedUnderIt() throws IOException {
    List<String> foreign = new ArrayList<>();
    List<String> otherResources = new ArrayList<>();
    try (JarFile jar = new JarFile(JAR.toFile())) {
      for (JarEntry e : Collections.list(jar.entries())) {
        String name = e.getName();
        if (e.isDirectory()) {
          continue;
        }
        if (name.endsWith(".class")) {
          if (!name.startsWith("dev/slipstream/")) {
            foreign.add(name);
          }
        } else if (!name.equals("META-INF/MANIFEST.MF") && !name.matches("META-INF/(LICENSE|NOTICE)(\\.txt)?")
            && !name.startsWith("META-INF/services/dev.slipstream.")) {
          otherResources.add(name); // e.g. a service another library registers, or a native library
        }
      }
    }
    assertThat(foreign).as("classes in %s outside dev.slipstream", JAR).isEmpty();
    assertThat(otherResources).as("resources in %s that are not Slipstream's, a manifest, licence or notice", JAR)
        .isEmpty();
  }

  @Test
  void carriesTheSharedTierWhoseClientIsRelocated() throws IOException {
    try (JarFile jar = new JarFile(JAR.toFile())) {
      assertThat(jar.getEntry("dev/slipstream/iceberg/SlipstreamFileIO.class")).isNotNull();
      assertThat(jar.getEntry("dev/slipstream/memcached/MemcachedBlockStore.class")).isNotNull();
      assertThat(jar.getEntry("dev/slipstream/shaded/com/spotify/folsom/MemcacheClientBuilder.class")).isNotNull();
      assertThat(jar.getEntry("dev/slipstream/shaded/io/netty/channel/nio/NioEventLoopGroup.class")).isNotNull();
      assertThat(jar.getEntry("dev/slipstream/shaded/com/google/common/util/concurrent/ListenableFuture.class"))
          .isNotNull();
      assertThat(jar.getEntry("dev/slipstream/shaded/com/github/benmanes/caffeine/cache/Caffeine.class")).isNotNull();
      assertThat(jar.getEntry("dev/slipstream/shaded/com/spotify/dns/DnsSrvResolver.class"))
          .as("Folsom's DNS SRV discovery, never used, is left out").isNull();
      String services = read(jar, "META-INF/services/dev.slipstream.spi.SharedBlockStore$Provider");
      assertThat(services.strip()).isEqualTo("dev.slipstream.memcached.MemcachedBlockStore$Provider");
      String store = new String(readBytes(jar, "dev/slipstream/memcached/MemcachedBlockStore.class"),
          StandardCharsets.ISO_8859_1);
      assertThat(store).as("the store's references to Folsom")
          .contains("dev/slipstream/shaded/com/spotify/folsom/")
          .doesNotContain("Lcom/spotify/folsom/");
    }
  }

  /**
   * Two JVMs, each a SlipstreamFileIO from the jar with {@code slipstream.shared.mode=read-write} over one
   * memcached: the first reads a file from S3 and keeps its blocks in the tier; the second reads them from the
   * tier, but for the first block, which its open's GET brings from S3 (that answer is also what lets it serve
   * cached bytes, rule 8).
   */
  @Test
  void twoFileIosInTwoJvmsShareTheTier(@TempDir Path tmp) throws Exception {
    byte[] data = new byte[(3 << 20) + 12_345];
    new Random(46).nextBytes(data);
    String path = "s3://" + BUCKET + "/tier/data.avro"; // read whole: every block is fetched and offered
    try (TestServer s3 = new TestServer(BUCKET);
        MemcachedServer memcached = MemcachedServer.start(64)) {
      Map<String, String> properties = new LinkedHashMap<>(s3.catalogProperties());
      properties.put("slipstream.block.size", "1M");
      properties.put("slipstream.shared.mode", "read-write");
      properties.put("slipstream.shared.servers", memcached.hostPort());
      properties.put("slipstream.shared.secret", "iceberg-drop-in-jar-test");
      // A new JVM's first gets load and warm the tier's client: on a busy machine they can take longer than the
      // 200 ms a get may wait by default, and a late one is a miss. This test is about where bytes come from.
      properties.put("slipstream.shared.timeout", "30s");
      properties.put("slipstream.shared.timeout.adaptive", "false"); // nor a shorter wait fitted to quieter moments
      write(s3.catalogProperties(), path, data);

      Map<String, Long> first = readInChildJvm(tmp.resolve("first"), properties, path, Reader.sha256(data));
      Map<String, Long> second = readInChildJvm(tmp.resolve("second"), properties, path, Reader.sha256(data));

      assertThat(first.get(Counter.SHARED_HITS.metricName())).as("the first JVM: %s", first).isZero();
      assertThat(first.get(Counter.SHARED_SETS.metricName())).as("the first JVM keeps the file's 4 blocks: %s", first)
          .isEqualTo(4);
      assertThat(first.get(Counter.BYTES_FETCHED.metricName())).as("%s", first).isEqualTo(data.length);
      assertThat(second.get(Counter.SHARED_HITS.metricName()))
          .as("the second JVM reads from the tier all but the first block, which its open's GET brought: %s", second)
          .isEqualTo(3);
      assertThat(second.get(Counter.SHARED_BYTES_READ.metricName()) + second.get(Counter.BYTES_FETCHED.metricName()))
          .as("%s", second).isEqualTo(data.length);
      assertThat(second.get(Counter.BYTES_FETCHED.metricName())).as("from S3 the first block: %s", second)
          .isEqualTo(1 << 20);
    }
  }

  /**
   * Iceberg 1.12's AWS bundle has no Apache 4 HTTP client: a FileIO from the jar, with Iceberg's runtime and
   * a bundle but none of the SDK's Apache 4 client, initializes, since Slipstream reads through S3FileIO's
   * client, on the bundle's Apache 5 one. (It failed before, naming the jars to add: Slipstream built a
   * client of its own on the Apache 4 one.) Up to 1.10 the bundle's only HTTP client is the Apache 4 one,
   * which S3FileIO needs as much: nothing to show there.
   */
  @Test
  void withoutTheSdksApacheClientAFileIoStillInitializes() throws Exception {
    org.junit.jupiter.api.Assumptions.assumeTrue(present("software.amazon.awssdk.http.apache5.Apache5HttpClient"),
        "this bundle has no HTTP client but the Apache 4 one");
    List<java.net.URL> urls = new ArrayList<>();
    for (String entry : childClassPath().split(java.io.File.pathSeparator)) {
      urls.add(Path.of(entry).toUri().toURL());
    }
    try (java.net.URLClassLoader withoutApacheClient = new java.net.URLClassLoader(
        urls.toArray(new java.net.URL[0]), ClassLoader.getPlatformClassLoader()) {
          @Override
          protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
            if (name.startsWith("software.amazon.awssdk.http.apache.")) {
              throw new ClassNotFoundException(name); // as with iceberg-aws-bundle 1.12 alone
            }
            return super.loadClass(name, resolve);
          }
        }) {
      Object io = withoutApacheClient.loadClass(SlipstreamFileIO.class.getName()).getConstructor().newInstance();
      Map<String, String> properties = Map.of("s3.endpoint", "http://127.0.0.1:9", "client.region", "us-east-1",
          "s3.access-key-id", "a", "s3.secret-access-key", "b");
      Thread me = Thread.currentThread();
      ClassLoader context = me.getContextClassLoader();
      me.setContextClassLoader(withoutApacheClient); // Iceberg loads its HTTP client's configuration through it
      try {
        io.getClass().getMethod("initialize", Map.class).invoke(io, properties);
        io.getClass().getMethod("close").invoke(io);
      } finally {
        me.setContextClassLoader(context);
      }
    }
  }

  private static boolean present(String className) {
    try {
      Class.forName(className, false, DropInJarIT.class.getClassLoader());
      return true;
    } catch (ClassNotFoundException e) {
      return false;
    }
  }

  /** Writes {@code data} at {@code path} through a SlipstreamFileIO of this JVM (S3FileIO underneath). */
  private static void write(Map<String, String> properties, String path, byte[] data) throws IOException {
    SlipstreamFileIO io = new SlipstreamFileIO();
    io.initialize(properties);
    try {
      OutputFile file = io.newOutputFile(path);
      try (OutputStream out = file.createOrOverwrite()) {
        out.write(data);
      }
    } finally {
      io.close();
    }
  }

  /**
   * Runs {@link Reader} in a child JVM whose class path is the jar and what an Iceberg job brings; returns the
   * counters it printed.
   */
  private static Map<String, Long> readInChildJvm(Path dir, Map<String, String> properties, String path,
      String sha256) throws Exception {
    Files.createDirectories(dir);
    Properties p = new Properties();
    p.putAll(properties);
    Path props = dir.resolve("catalog.properties");
    try (OutputStream out = Files.newOutputStream(props)) {
      p.store(out, null); // a file, not the command line: the test keys stay out of the process list
    }
    List<String> cmd = List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx256m",
        "-Daws.requestChecksumCalculation=WHEN_REQUIRED", "-Daws.responseChecksumValidation=WHEN_REQUIRED",
        "-cp", childClassPath(), Reader.class.getName(), props.toString(), path, sha256);
    Path out = dir.resolve("stdout");
    Path err = dir.resolve("stderr");
    Process child = new ProcessBuilder(cmd).redirectOutput(out.toFile()).redirectError(err.toFile()).start();
    try {
      if (!child.waitFor(120, TimeUnit.SECONDS)) {
        throw new AssertionError("the reading JVM (pid " + child.pid() + ") did not end in 120 s");
      }
    } finally {
      if (child.isAlive()) {
        child.destroyForcibly();
      }
    }
    String log = Files.readString(err, StandardCharsets.UTF_8);
    assertThat(child.exitValue()).as("the reading JVM's exit; its stderr:%n%s", log).isZero();
    Properties counters = new Properties();
    try (InputStream in = Files.newInputStream(out)) {
      counters.load(in);
    }
    Map<String, Long> result = new LinkedHashMap<>();
    counters.forEach((k, v) -> result.put((String) k, Long.parseLong((String) v)));
    return result;
  }

  /**
   * The jar, Iceberg's runtime (FileIO, S3FileIO), the AWS SDK it reads with (the bundle, with the HTTP
   * clients it carries), slf4j's API, and this test's own
   * classes for {@link Reader}: not the module's classes, nor the tier's or its client's unshaded jars.
   */
  private static String childClassPath() throws URISyntaxException, ClassNotFoundException {
    Set<String> entries = new LinkedHashSet<>();
    entries.add(JAR.toAbsolutePath().toString());
    for (String c : new String[] {"org.apache.iceberg.io.FileIO", "org.apache.iceberg.aws.s3.S3FileIO",
        "software.amazon.awssdk.services.s3.S3Client", "org.slf4j.Logger", Reader.class.getName()}) {
      Class<?> found = Class.forName(c, false, DropInJarIT.class.getClassLoader());
      entries.add(Path.of(found.getProtectionDomain().getCodeSource().getLocation().toURI()).toString());
    }
    return String.join(java.io.File.pathSeparator, entries);
  }

  /**
   * The child JVM: opens a SlipstreamFileIO from the catalog properties in a file, reads one file whole
   * (unknown length, as Iceberg opens metadata), checks its SHA-256, closes the FileIO (which waits for the
   * tier's writes) and prints this JVM's counters as properties.
   */
  static final class Reader {
    public static void main(String[] args) throws Exception {
      Properties p = new Properties();
      try (InputStream in = Files.newInputStream(Path.of(args[0]))) {
        p.load(in);
      }
      Map<String, String> properties = new LinkedHashMap<>();
      p.stringPropertyNames().forEach(k -> properties.put(k, p.getProperty(k)));
      SlipstreamFileIO io = new SlipstreamFileIO();
      io.initialize(properties);
      byte[] read;
      try {
        InputFile file = io.newInputFile(args[1]);
        try (SeekableInputStream in = file.newStream()) {
          read = in.readAllBytes();
        }
      } finally {
        io.close();
      }
      if (!sha256(read).equals(args[2])) {
        throw new AssertionError("read " + read.length + " bytes of another content than was written");
      }
      PrintStream out = System.out;
      for (Counter c : new Counter[] {Counter.SHARED_HITS, Counter.SHARED_MISSES, Counter.SHARED_BYTES_READ,
          Counter.SHARED_SETS, Counter.SHARED_SETS_DROPPED, Counter.SHARED_ERRORS, Counter.SHARED_TIMEOUTS,
          Counter.BYTES_FETCHED}) {
        out.println(c.metricName() + "=" + dev.slipstream.ReadStatistics.global().get(c));
      }
      out.flush();
    }

    /** Not the enclosing class's: the child JVM must not initialize it. */
    static String sha256(byte[] data) throws java.security.NoSuchAlgorithmException {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(data));
    }
  }

  private static String read(JarFile jar, String name) throws IOException {
    return new String(readBytes(jar, name), StandardCharsets.UTF_8);
  }

  private static byte[] readBytes(JarFile jar, String name) throws IOException {
    JarEntry e = jar.getJarEntry(name);
    assertThat(e).as("%s in %s", name, JAR).isNotNull();
    try (InputStream in = jar.getInputStream(e)) {
      return in.readAllBytes();
    }
  }

  static {
    if (!Files.isRegularFile(JAR)) {
      throw new IllegalStateException("no drop-in jar at " + JAR + ": run through Maven's verify (failsafe)");
    }
  }
}
