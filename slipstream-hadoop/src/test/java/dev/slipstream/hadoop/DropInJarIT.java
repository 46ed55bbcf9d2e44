/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.hadoop;

import static org.assertj.core.api.Assertions.assertThat;

import dev.slipstream.testkit.MemcachedServer;
import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.ServiceLoader;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import org.junit.jupiter.api.Test;

/**
 * The jar users drop into Hadoop or Spark ({@code target/slipstream-hadoop-<version>.jar}, built by the shade
 * plugin in {@code package}), listed after it is built: every class in it is Slipstream's, the shared tier's
 * client (Folsom, Netty, Guava) relocated under {@code dev.slipstream.shaded}, and the tier runs from the jar
 * with nothing beside it but slf4j, which every Hadoop has.
 */
class DropInJarIT {
  private static final Path JAR = Path.of(System.getProperty("slipstream.dropin.jar", "target/missing.jar"));

  @Test
  void everyClassInTheJarIsSlipstreamsOrRelocatedUnderIt() throws IOException {
    List<String> foreign = new ArrayList<>();
    List<String> otherResources = new ArrayList<>();
    try (JarFile jar = new JarFile(JAR.toFile())) {
      for (JarEntry e : java.util.Collections.list(jar.entries())) {
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
      assertThat(jar.getEntry("dev/slipstream/memcached/MemcachedBlockStore.class")).isNotNull();
      assertThat(jar.getEntry("dev/slipstream/shaded/com/spotify/folsom/MemcacheClientBuilder.class")).isNotNull();
      assertThat(jar.getEntry("dev/slipstream/shaded/io/netty/channel/nio/NioEventLoopGroup.class")).isNotNull();
      assertThat(jar.getEntry("dev/slipstream/shaded/com/github/benmanes/caffeine/cache/Caffeine.class")).isNotNull();
      assertThat(jar.getEntry("dev/slipstream/shaded/com/google/common/util/concurrent/ListenableFuture.class"))
          .isNotNull();
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
   * The relocated Caffeine runs from the jar alone: it finds its generated cache classes by name, which
   * only works if relocation renamed them all. The per-object state of a client (answers, plans) builds
   * bounded, expiring caches of it.
   */
  @Test
  void theRelocatedCaffeineRunsFromTheJarAlone() throws Exception {
    URL slf4j = org.slf4j.Logger.class.getProtectionDomain().getCodeSource().getLocation();
    try (URLClassLoader alone = new URLClassLoader(new URL[] {JAR.toUri().toURL(), slf4j},
        ClassLoader.getPlatformClassLoader())) {
      Class<?> answersClass = alone.loadClass("dev.slipstream.internal.fetch.RecentAnswers");
      Object answers = answersClass.getConstructor(java.time.Duration.class).newInstance(java.time.Duration.ofSeconds(30));
      Class<?> location = alone.loadClass("dev.slipstream.S3Location");
      Object file = location.getMethod("parse", String.class).invoke(null, "s3://b/k");
      answersClass.getMethod("forgetUnder", String.class, String.class).invoke(answers, "b", "");
      assertThat(answersClass.getMethod("fresh", location).invoke(answers, file)).isNull();
      assertThat(alone.loadClass("dev.slipstream.internal.parquet.ParquetFooters").getConstructor().newInstance())
          .isNotNull();
    }
  }

  /**
   * A class loader of the jar and slf4j alone (its parent the JDK's platform loader): the tier's provider is
   * found as core finds it, opens a store on a real memcached server and keeps and returns a block. Any
   * class the jar missed, or took from outside, would fail here.
   */
  @Test
  void theSharedTierRunsFromTheJarAlone() throws Exception {
    URL slf4j = org.slf4j.Logger.class.getProtectionDomain().getCodeSource().getLocation();
    try (MemcachedServer server = MemcachedServer.start(64);
        URLClassLoader alone = new URLClassLoader(new URL[] {JAR.toUri().toURL(), slf4j},
            ClassLoader.getPlatformClassLoader())) {
      Class<?> configClass = alone.loadClass("dev.slipstream.SlipstreamConfig");
      Object config = configClass.getMethod("fromMap", Map.class, String.class).invoke(null,
          Map.of("fs.slipstream.shared.mode", "read-write", "fs.slipstream.shared.secret", "drop-in-jar-test",
              "fs.slipstream.shared.servers", server.hostPort()),
          "fs.slipstream.");
      Object stats = alone.loadClass("dev.slipstream.ReadStatistics").getMethod("global").invoke(null);
      Class<?> providerClass = alone.loadClass("dev.slipstream.spi.SharedBlockStore$Provider");
      Object provider = ServiceLoader.load(providerClass, alone).findFirst().orElseThrow();
      assertThat(provider.getClass().getClassLoader()).isSameAs(alone);
      AutoCloseable store = (AutoCloseable) providerClass.getMethod("open", configClass, stats.getClass())
          .invoke(provider, config, stats);
      try {
        Class<?> storeClass = alone.loadClass("dev.slipstream.spi.SharedBlockStore");
        Method put = storeClass.getMethod("put", byte[].class, byte[].class, int.class, int.class);
        Method get = storeClass.getMethod("get", byte[].class, int.class, int.class, byte[].class, int.class,
            int.class);
        byte[] name = new byte[32];
        byte[] block = new byte[3 << 20];
        Random random = new Random(33);
        random.nextBytes(name);
        random.nextBytes(block);
        assertThat((Boolean) put.invoke(store, name, block, 0, block.length)).as("stored").isTrue();
        byte[] back = new byte[block.length];
        assertThat((Boolean) get.invoke(store, name, block.length, 0, back, 0, back.length)).as("found").isTrue();
        assertThat(back).isEqualTo(block);
      } finally {
        store.close();
      }
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
