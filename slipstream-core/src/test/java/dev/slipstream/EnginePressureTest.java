/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream;

import static org.assertj.core.api.Assertions.assertThat;

import dev.slipstream.testkit.S3ServerExtension;
import dev.slipstream.testkit.TestData;
import java.io.File;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Slipstream as a tenant of an engine's heap: once a read has filled the memory pool (the memory cache
 * holding all of {@code memory.max}), the engine allocates most of the rest of its heap, as an
 * aggregation does, and that must succeed. The engine runs in a child JVM with a small fixed heap, so
 * that what "most of the heap" means does not depend on the test JVM's size or on earlier tests.
 */
@Timeout(180)
class EnginePressureTest {
  @RegisterExtension static final S3ServerExtension S3 = new S3ServerExtension();
  static final String BUCKET = "engine-pressure";
  static final int HEAP_MIB = 256;
  /** A quarter of the heap: the default of a plain client, and the Hadoop default. */
  static final int MEMORY_MAX_MIB = HEAP_MIB / 4;
  /**
   * What the engine holds at once: with the JVM's own ~30 MiB (the SDK, Slipstream's classes) it fits the
   * heap with room to spare, and it cannot fit beside a pool holding all of {@code memory.max}.
   */
  static final int ENGINE_MIB = 192;

  @Test
  void theEngineGetsTheHeapTheMemoryCacheHoldsIdle(@TempDir Path tmp) throws Exception {
    S3.server().createBucket(BUCKET);
    long size = (long) MEMORY_MAX_MIB << 20;
    S3.server().putGenerated(BUCKET, "fills-the-pool", 41, size);

    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    List<String> cmd = List.of(java, "-Xmx" + HEAP_MIB + "m", "-Xms" + HEAP_MIB + "m", "-XX:+UseG1GC",
        "-cp", System.getProperty("java.class.path"), Engine.class.getName(),
        S3.server().endpoint().toString(), BUCKET, "fills-the-pool", MEMORY_MAX_MIB + "M",
        Integer.toString(ENGINE_MIB));
    File out = tmp.resolve("stdout").toFile();
    Process p = new ProcessBuilder(cmd).redirectOutput(out).redirectErrorStream(true).start();
    if (!p.waitFor(150, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new AssertionError("the engine's JVM did not end");
    }
    String output = Files.readString(out.toPath(), StandardCharsets.UTF_8);
    System.out.print(output);
    assertThat(output).as("the engine's output").contains("pool full: kept " + size + " bytes of " + size);
    assertThat(p.exitValue()).as(output).isZero();
    assertThat(output).contains("engine allocated " + ENGINE_MIB + " MiB");
    assertThat(output).as("the budget the collector took is the pool's again").contains("read again: " + size + " bytes right");
  }

  /** The engine: a Slipstream read that fills the pool, then an aggregation's worth of live heap. */
  static final class Engine {
    public static void main(String[] args) throws IOException {
      String endpoint = args[0];
      String bucket = args[1];
      String key = args[2];
      String memoryMax = args[3];
      int engineMib = Integer.parseInt(args[4]);
      System.out.println("heap after GC before the read: " + heapAfterGc() + " MiB");
      SlipstreamConfig config = TestClients.config(java.net.URI.create(endpoint))
          .set("memory.max", memoryMax).set("block.size", "1M").set("cache.memory", "true").build();
      // The client stays open, as in an executor: its memory cache is what the engine competes with.
      Slipstream client = Slipstream.create(config);
      readAndCheck(client, bucket, key);
      System.out.println("pool full: kept " + client.memoryCached() + " bytes of " + client.memoryBudget()
          + ", in use " + client.memoryInUse());
      System.out.println("heap after GC once the read ended: " + heapAfterGc() + " MiB");
      // The aggregation: many mid-sized arrays held at once (64 KiB, not humongous in G1's 1 MiB regions).
      List<byte[]> held = new ArrayList<>();
      int chunk = 64 * 1024 - 64;
      long target = (long) engineMib << 20;
      for (long total = 0; total < target; total += chunk) {
        held.add(new byte[chunk]);
      }
      System.out.println("engine allocated " + engineMib + " MiB in " + held.size() + " arrays");
      System.out.println("memory cache while the engine holds its heap: " + client.memoryCached() + " bytes");
      held.clear();
      System.out.println("heap after GC once the engine let go: " + heapAfterGc() + " MiB");
      System.out.println("read again: " + readAndCheck(client, bucket, key) + " bytes right");
      client.close();
    }

    private static long readAndCheck(Slipstream client, String bucket, String key) throws IOException {
      try (SlipstreamInputStream in = client.open(S3Location.parse("s3://" + bucket + "/" + key))) {
        byte[] chunk = new byte[1 << 20];
        long pos = 0;
        for (int n; (n = in.read(chunk)) > 0; pos += n) {
          if (TestData.firstMismatch(41, pos, chunk, 0, n) != -1) {
            throw new AssertionError("a wrong byte near " + pos);
          }
        }
        return pos;
      }
    }

    private static long heapAfterGc() {
      System.gc();
      return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed() >> 20;
    }
  }
}
