/*
 * Licensed under the Apache License, Version 2.0. See LICENSE at the root of this repository.
 */
package dev.slipstream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.slipstream.internal.store.ObjectStore;
import dev.slipstream.internal.store.S3ObjectStore;
import dev.slipstream.testkit.S3ServerExtension;
import java.io.InputStream;
import java.lang.reflect.Field;
import java.util.Arrays;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A GET's body leaves nothing behind in the JVM once read: the AWS SDK's {@code ResponseInputStream}
 * (2.30 on) queues a 60-second abort task per GET on one JVM-wide scheduler, and a cancelled task stays
 * queued until its time, so a client reading small objects kept about 80 bytes a GET for a minute. The
 * store's bodies are read without it, and still as that stream reads them: an interrupt aborts.
 */
class GetBodyTimersTest {
  @RegisterExtension static final S3ServerExtension S3 = new S3ServerExtension();
  static final String BUCKET = "timers";

  /** The tasks queued on the SDK's scheduler of response timeouts (its own field: no public way to ask). */
  private static int sdkResponseTimeoutTasks() throws ReflectiveOperationException {
    Class<?> scheduler = Class.forName("software.amazon.awssdk.core.ResponseInputStream$TimeoutScheduler");
    Field instance = scheduler.getDeclaredField("INSTANCE");
    instance.setAccessible(true);
    return ((ScheduledThreadPoolExecutor) instance.get(null)).getQueue().size();
  }

  @Test
  void readGetBodiesQueueNoTimeoutTaskInTheSdk() throws Exception {
    S3.server().createBucket(BUCKET);
    S3.server().putGenerated(BUCKET, "small", 7, 4096);
    byte[] expected = S3.server().getObject(BUCKET, "small");
    S3Location where = S3Location.parse("s3://" + BUCKET + "/small");
    try (S3ObjectStore store = S3ObjectStore.create(TestClients.config(S3.server()).build())) {
      int before = sdkResponseTimeoutTasks();
      for (int i = 0; i < 200; i++) {
        int from = i % 100;
        ObjectStore.Body body = store.get(where, from, from + 1000, ObjectStore.Version.ANY);
        try (InputStream in = body.stream()) {
          assertThat(in.readAllBytes()).isEqualTo(Arrays.copyOfRange(expected, from, from + 1000));
        }
      }
      assertThat(sdkResponseTimeoutTasks() - before).as("tasks queued by 200 GETs").isLessThan(10);
    }
  }

  @Test
  void aReadOnAnInterruptedThreadAbortsTheBody() throws Exception {
    S3.server().createBucket(BUCKET + "-interrupted");
    S3.server().putGenerated(BUCKET + "-interrupted", "a", 8, 64 * 1024);
    S3Location where = S3Location.parse("s3://" + BUCKET + "-interrupted/a");
    try (S3ObjectStore store = S3ObjectStore.create(TestClients.config(S3.server()).build())) {
      ObjectStore.Body body = store.get(where, 0, 64 * 1024, ObjectStore.Version.ANY);
      Thread.currentThread().interrupt();
      Throwable t;
      try {
        t = catchThrowable(() -> body.stream().read(new byte[1024]));
      } finally {
        Thread.interrupted();
      }
      assertThat(t).isNotNull();
      body.close();
    }
  }
}
