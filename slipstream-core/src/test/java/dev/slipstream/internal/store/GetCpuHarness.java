/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream.internal.store;

import dev.slipstream.S3Location;
import dev.slipstream.SlipstreamConfig;
import dev.slipstream.internal.util.ETag;
import dev.slipstream.testkit.EmbeddedS3Server;
import java.io.IOException;
import java.io.InputStream;
import java.lang.management.ManagementFactory;
import java.util.Arrays;

/**
 * The CPU and the heap one small GET costs the calling thread through {@link S3ObjectStore}, against
 * s3proxy on loopback: a 4 KiB ranged GET with {@code If-Match}, as a read sends it, its body read to
 * the end. A measuring tool, not a test (nothing is asserted; timings belong to a quiet machine):
 *
 * <pre>
 * java -cp slipstream-core/target/test-classes:slipstream-core/target/classes:$(test classpath) \
 *     dev.slipstream.internal.store.GetCpuHarness [rounds] [gets a round]
 * </pre>
 *
 * <p>Prints, per round, the mean CPU microseconds and bytes allocated per GET of the calling
 * thread ({@code com.sun.management.ThreadMXBean}), then the medians over the rounds after the first
 * (which warms the JIT).
 */
public final class GetCpuHarness {
  private GetCpuHarness() {}

  public static void main(String[] args) throws IOException {
    int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 11;
    int gets = args.length > 1 ? Integer.parseInt(args[1]) : 500;
    com.sun.management.ThreadMXBean mx = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    long me = Thread.currentThread().getId();
    try (EmbeddedS3Server server = EmbeddedS3Server.start()) {
      server.createBucket("bkt");
      server.putGenerated("bkt", "obj", 1, 1 << 20);
      ETag etag = ETag.fromServer(server.etag("bkt", "obj"));
      SlipstreamConfig config = SlipstreamConfig.builder()
          .set("endpoint", server.endpoint().toString())
          .set("region", EmbeddedS3Server.REGION)
          .set("path.style.access", "true")
          .set("access.key", EmbeddedS3Server.ACCESS_KEY)
          .set("secret.key", EmbeddedS3Server.SECRET_KEY)
          .build();
      S3Location where = new S3Location("bkt", "obj");
      byte[] sink = new byte[8192];
      double[] cpu = new double[rounds];
      double[] alloc = new double[rounds];
      try (ObjectStore store = S3ObjectStore.create(config)) {
        for (int r = 0; r < rounds; r++) {
          long c0 = mx.getCurrentThreadCpuTime();
          long a0 = mx.getThreadAllocatedBytes(me);
          for (int i = 0; i < gets; i++) {
            long start = (long) (i % 200) * 4096;
            ObjectStore.Body body = store.get(where, start, start + 4096, new ObjectStore.Version(etag, null, null));
            try (InputStream in = body.stream()) {
              while (in.read(sink) >= 0) {
                // to the end, so that the connection is reused
              }
            }
          }
          cpu[r] = (mx.getCurrentThreadCpuTime() - c0) / 1e3 / gets;
          alloc[r] = (mx.getThreadAllocatedBytes(me) - a0) / (double) gets;
          System.out.printf("round %2d: %7.1f us CPU, %9.0f bytes allocated a GET%n", r, cpu[r], alloc[r]);
        }
      }
      System.out.printf("median of rounds 1-%d: %.1f us CPU, %.0f bytes allocated a GET%n", rounds - 1,
          median(cpu), median(alloc));
    }
  }

  private static double median(double[] rounds) {
    double[] r = Arrays.copyOfRange(rounds, 1, rounds.length);
    Arrays.sort(r);
    return r.length % 2 == 1 ? r[r.length / 2] : (r[r.length / 2 - 1] + r[r.length / 2]) / 2;
  }
}
